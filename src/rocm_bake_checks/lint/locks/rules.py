"""The locks family: every Python distribution an image installs comes from its component's
lock (``dockerfiles/locks/<component>.txt``, made by ``inv lock``), by version and sha256.

- ``lock-stale``: a component whose Dockerfile installs with pip has a lock, the lock's
  recorded inputs digest is that of its inputs today (``locks.inputs``: the requirement files,
  the upstream files at the pinned commits, the bake variables they use), and it pins every
  distribution its inputs name (the cell's own excepted).  Fix: ``inv lock``.
- ``pip-unlocked``: a component's Dockerfile installs its own lock, and every ``pip install``
  runs ``--require-hashes`` with requirements only from a lock (``-r .../locks/<name>.txt``,
  which must exist) and from the cell's wheel list that ``write-constraints.py --wheels FILE``
  writes in the same RUN (each wheel file with its sha256); no requirement on the command
  line.  ``pip wheel`` runs ``--no-deps
  --no-build-isolation`` (otherwise pip fetches dependencies or build requirements unlocked).
  One more form is locked: ``pip install --no-index -r FILE`` (no ``--find-links``, no index
  URL) after an install of the lock in the same RUN only checks FILE against what the lock
  installed -- a requirement the lock lacks fails the step, naming it.
- ``lock-inputs``: such a ``--no-index -r FILE`` of the source's own requirements is declared
  in ``upstream.toml`` (the component's ``installs``), so ``inv lock`` resolves the lock from
  FILE at the pin, or, where FILE at the pin cannot be had, a ``[[nearest-copy]]`` stands in
  for it (the lines of the nearest stored copies, with where each was read); undeclared, the
  lock is only checked against it when the image is built.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from packaging.requirements import Requirement

from rocm_bake.model.bakefile import Definition
from rocm_bake.net.errors import NetError
from rocm_bake_checks.lint import bakemodel, downloads, upstream
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.locks import built as builtmeta
from rocm_bake_checks.lint.locks import file as lockfile
from rocm_bake_checks.lint.locks import inputs as lockinputs
from rocm_bake_checks.lint.locks import metadata as lockmeta
from rocm_bake_checks.lint.upstream import Metadata, canonical

RULES = ("lock-stale", "pip-unlocked", "lock-inputs")
_INDEXES = frozenset({"-f", "--find-links", "-i", "--index-url", "--extra-index-url"})
_PIP = re.compile(r"\bpip3?\s+(install|wheel)\b(.*?)(?=&&|\|\||;|\||$)", re.S)
_WHEEL_LIST = re.compile(r"write-constraints\.py\s+--wheels\s+(\S+)")
_LOCK = re.compile(r"(?:^|/)locks/([A-Za-z0-9_.-]+\.txt)$")


# -- inv lock -------------------------------------------------------------------------------
def lock(root: Path, bake_files: list[Path], components: Sequence[str] = (),
         index_url: str = lockfile.DEFAULT_INDEX, upgrade: bool = False,
         metadata: upstream.Settings | None = None,
         offline: bool = False) -> Iterator[lockfile.Written]:
    """The lock of every component (or of ``components``), one by one: kept as it is when its
    inputs did not change; else taken from another component's lock made from the very same
    inputs (``lockfile.twin``, no index asked); else resolved again, keeping its other
    versions.  ``upgrade``: every one resolved afresh, to the newest versions allowed.
    ``offline`` (``inv regen``): a lock that needs the index is an error naming ``inv lock``."""
    definition = bakemodel.load(bake_files)
    targets = bakemodel.targets(definition, root)
    fetched = Metadata(metadata or upstream.Settings())
    if not offline:   # the published wheels [built] reads (pypi:<wheel>), before any input
        record_metadata(root, index_url, fetched.settings.config,
                        lockinputs.built_dists(definition, bake_files, targets))
    every = lockinputs.derive(definition, bake_files, targets, root, fetched)
    known = [i.component for i in every]
    unknown = sorted(set(components) - set(known))
    if unknown:
        raise LintError(f"no lock for component {unknown[0]}; components with a lock: "
                        f"{', '.join(known)}")
    for index, first in enumerate(every):
        if components and first.component not in components:
            continue
        # a lock extends its parent image's (lockinputs._constraints): derived again once the
        # locks before it in the bake file's component order (its parents) are written
        inputs = lockinputs.derive(definition, bake_files, targets, root, fetched)[index] \
            if index else first
        twin = None if upgrade else lockfile.twin(inputs, root)
        if not upgrade and lockfile.is_fresh(inputs, root):
            yield lockfile.kept(inputs, root)
        elif twin is not None:
            yield lockfile.copied(inputs, root, twin)
        elif offline:
            raise LintError(f"{relative(inputs.lock_path(root), root)}: {inputs.component}'s "
                            "lock must be resolved against the package index: run `inv lock`")
        else:
            yield lockfile.write(inputs, root, lockfile.uv_binary(), index_url, upgrade)


def built_of(bake_files: list[Path], root: Path | None = None) -> set[str]:
    """The distributions the cells of ``bake_files`` build."""
    definition = bakemodel.load(bake_files)
    targets = bakemodel.targets(definition, root or Path.cwd())
    return lockinputs.built_dists(definition, bake_files, targets)


def record_metadata(root: Path, index_url: str = lockfile.DEFAULT_INDEX,
                    config: Path = upstream.CONFIG, dists: set[str] | None = None) -> int:
    """The locked distributions' metadata snapshot (``locks.metadata``) brought up to the locks and
    to the published wheels ``[built]`` reads for ``dists`` (the bake file's; None: all): how
    many were read from the index."""
    paths = sorted((root / lockinputs.LOCK_DIR).glob("*.txt"))
    wheels = builtmeta.published(upstream.load_config(config), dists)
    try:
        return lockmeta.record(paths, root / lockmeta.SNAPSHOT, index_url.rstrip("/"), wheels)
    except NetError as exc:
        raise lockfile.LockError(f"the locked distributions' metadata: {exc}") from None


# -- lock-stale -----------------------------------------------------------------------------
def check_locks(definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
                root: Path, metadata: Metadata) -> list[Finding]:
    found: list[Finding] = []
    for inputs in lockinputs.derive(definition, bake_files, targets, root, metadata):
        found += _stale(inputs, root)
    return found


def _stale(inputs: lockinputs.Inputs, root: Path) -> list[Finding]:
    path = inputs.lock_path(root)
    name = relative(path, root)
    own = f"locks/{path.name}"
    if own not in (root / inputs.dockerfile).read_text(encoding="utf-8"):
        return [Finding(inputs.dockerfile, 1, "pip-unlocked",
                        f"{inputs.component}: the stages install with pip but never from "
                        f"the component's own lock {own}")]
    if not path.is_file():
        return [Finding(inputs.dockerfile, 1, "lock-stale",
                        f"{inputs.component}: no lock {name}: run `inv lock`")]
    text = path.read_text(encoding="utf-8")
    recorded = lockfile.recorded_digest(text)
    line = _line_of(text, lockfile.DIGEST_KEY)
    if recorded != inputs.digest():
        return [Finding(name, line, "lock-stale",
                        f"{inputs.component}: the lock's inputs changed since it was made "
                        "(its inputs-sha256 is not theirs): run `inv lock`")]
    pinned = lockfile.pins(text)
    excluded = set(inputs.excluded)
    missing = sorted({canonical(r.name) for r in map(Requirement, inputs.requirements)
                      if _applies(r, inputs.python)} - set(pinned) - excluded)
    built = sorted(set(pinned) & excluded)
    out = []
    if missing:
        out.append(Finding(name, line, "lock-stale",
                           f"{inputs.component}: the lock does not pin {', '.join(missing)}, "
                           "which its inputs require: run `inv lock`"))
    if built:
        out.append(Finding(name, line, "lock-stale",
                           f"{inputs.component}: the lock pins {', '.join(built)}, which the "
                           "cell builds itself: run `inv lock`"))
    return out


def _applies(requirement: Requirement, python: str) -> bool:
    environment = {"python_version": python, "python_full_version": f"{python}.0",
                   "sys_platform": "linux", "platform_system": "Linux",
                   "platform_machine": "x86_64", "os_name": "posix",
                   "implementation_name": "cpython",
                   "platform_python_implementation": "CPython", "extra": ""}
    return requirement.marker is None or requirement.marker.evaluate(environment)


def _line_of(text: str, prefix: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(prefix):
            return number
    return 1


# -- pip-unlocked ---------------------------------------------------------------------------
def check_installs(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    found: list[Finding] = []
    for name, path, instruction in files.instructions(paths, root):
        if instruction.keyword == "RUN":
            found += _run(name, path.parent, instruction.body, instruction.line)
    return found


def _run(name: str, context: Path, body: str, line: int) -> list[Finding]:
    wheel_lists = set(_WHEEL_LIST.findall(body))
    out = []
    locked = False          # an earlier pip install of this RUN installed a lock
    for match in _PIP.finditer(body):
        verb, arguments = match.group(1), _tokens(match.group(2))
        problems = list(_install(arguments, wheel_lists, context, locked) if verb == "install"
                        else _wheel(arguments))
        locked = locked or (verb == "install" and not problems
                            and any(_LOCK.search(f) for f in _split(arguments)[0]))
        if problems:
            out.append(Finding(name, line, "pip-unlocked", f"pip {verb}: {'; '.join(problems)}"))
    return out


def no_index_files(arguments: list[str]) -> list[str] | None:
    """The -r files of a ``pip install --no-index`` that reaches no index or link (it only
    checks them against what is installed); None for any other install."""
    if "--no-index" not in arguments or any(a.split("=", 1)[0] in _INDEXES for a in arguments):
        return None
    return _split(arguments)[0]


def _install(arguments: list[str], wheel_lists: set[str], context: Path,
             locked: bool = False) -> Iterator[str]:
    checked = no_index_files(arguments)
    if checked is not None:
        if not locked:
            yield ("--no-index installs from what is already installed: install the "
                   "component's lock first, in the same RUN (-r .../locks/<component>.txt)")
        for argument in _split(arguments)[1]:
            yield f"'{argument}' is installed outside the lock"
        return
    if "--require-hashes" not in arguments:
        yield "without --require-hashes (install from the component's lock: `-r locks/...`)"
    files, positional = _split(arguments)
    if not any(_LOCK.search(f) for f in files):
        yield "installs from no lock (-r .../locks/<component>.txt)"
    for file in files:
        lock = _LOCK.search(file)
        if lock and not (context / "locks" / lock.group(1)).is_file():
            yield f"lock {lock.group(1)} does not exist in {context.name}/locks (`inv lock`)"
        elif not lock and file not in wheel_lists:
            yield (f"-r {file} is neither a lock nor the cell's wheel list "
                   "(write-constraints.py --wheels FILE in the same RUN)")
    for argument in positional:
        yield f"'{argument}' is installed outside the lock"


# -- lock-inputs ----------------------------------------------------------------------------
def check_declared(paths: list[Path], files: Dockerfiles, root: Path,
                   config: upstream.Config) -> list[Finding]:
    """Every source requirement file installed ``--no-index`` against a lock is one of the
    lock's inputs: declared in upstream.toml's ``installs`` for that Dockerfile."""
    declared = {c.dockerfile: set(c.installs) for c in config.components}
    for copy in config.copies:   # a stored copy standing in for the file at the pin
        declared.setdefault(copy.dockerfile, set()).add(copy.file)
    found: list[Finding] = []
    for name, _, instruction in files.instructions(paths, root):
        if instruction.keyword != "RUN":
            continue
        for match in _PIP.finditer(instruction.body):
            checked = no_index_files(_tokens(match.group(2))) if match.group(1) == "install" \
                else None
            for file in checked or ():
                if _LOCK.search(file) or _declares(declared.get(name, set()), file):
                    continue
                found.append(Finding(
                    name, instruction.line, "lock-inputs",
                    f"pip install --no-index -r {file}: the source's {file} is no input of the "
                    f"lock (no upstream.toml [[component]] for {name} lists it in `installs`, "
                    "no [[nearest-copy]] stands in for it), so the lock is checked against it "
                    "only when the image is built: record the file at the pin in the snapshot "
                    "(`inv lint --online --record`) and declare it, or, where it cannot be "
                    "had, record the nearest stored copies' lines; then `inv lock`"))
    return found


def _declares(installs: set[str], file: str) -> bool:
    return any(file == path or file.endswith("/" + path) for path in installs)


def _wheel(arguments: list[str]) -> Iterator[str]:
    for flag in ("--no-deps", "--no-build-isolation"):
        if flag not in arguments:
            yield f"without {flag} (pip would fetch unlocked distributions)"


def _split(arguments: list[str]) -> tuple[list[str], list[str]]:
    """(-r files, positional arguments) of one pip command line."""
    files: list[str] = []
    positional: list[str] = []
    value_of = ""
    for token in arguments:
        if value_of:
            if value_of in ("-r", "--requirement"):
                files.append(token)
            value_of = ""
        elif token in downloads.PIP_OPTIONS_WITH_VALUE:
            value_of = token
        elif token.startswith("--requirement=") or (token.startswith("-r") and len(token) > 2):
            files.append(token.split("=", 1)[1] if "=" in token else token[2:])
        elif not token.startswith("-"):
            positional.append(token)
    return files, positional


def _tokens(text: str) -> list[str]:
    try:
        return shlex.split(text.replace("\\\n", " "), comments=False)
    except ValueError:
        return text.split()
