"""Rule ``runtime-pip`` (family conformance): every distribution upstream's final image installs
by name with pip or uv (``pip install NAME``, ``uv pip install NAME`` in the RUNs of its FROM
chain in its file: vLLM's Dockerfile.rocm final, mori_base, base) is pinned by a lock the
runtime image here installs (the locks the base Dockerfile and the runtime stage's chain copy
in, ``COPY locks/<name>.txt``).  Requirement files, wheels, paths and ``$VARIABLES`` are not
names; a name with an extra (``huggingface-hub[cli]``) counts as its distribution."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from rocm_bake_checks.lint import stages
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, Stage
from rocm_bake_checks.lint.downloads import pip_operands
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.locks import file as lockfile
from rocm_bake_checks.lint.upstream import canonical
from rocm_bake_checks.lint.upstreamdocker import Upstream, split

_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b(.*?)(?=&&|\|\||;|\||$)", re.S)
_LOCK = re.compile(r"^locks/[A-Za-z0-9_.-]+\.txt$")


def names(arguments: str) -> list[str]:
    """The distributions one ``pip install`` names (options, files, paths, globs and
    ``$VARIABLES`` dropped; an extra or a version specifier read off)."""
    out: list[str] = []
    for token in pip_operands(arguments):
        if token.startswith(("-", "$", ".")) or any(c in token for c in "/*"):
            continue
        try:
            out.append(canonical(Requirement(token).name))
        except InvalidRequirement:
            continue
    return out


def theirs(up: Upstream) -> dict[str, str]:
    """Distribution -> where upstream's final image pip-installs it by name
    (``Dockerfile.rocm stage mori_base:519``)."""
    parsed, final = up.stage(up.settings.final)
    found: dict[str, str] = {}
    for link in reversed(stages.chain(parsed, final)):
        for instruction in stages.runs(link):
            body = instruction.body.replace("\\\n", " ")
            for match in _PIP_INSTALL.finditer(body):
                for name in names(match.group(1)):
                    found.setdefault(name, f"{parsed.path.name} stage {link.name}:"
                                           f"{instruction.line}")
    return found


def _copied_locks(parsed: Dockerfile, chain: list[Stage]) -> list[Path]:
    out = []
    for stage in chain:
        for instruction in stage.instructions:
            if instruction.keyword == "COPY" and not instruction.flags.get("from"):
                out += [parsed.path.parent / word for word in instruction.body.split()[:-1]
                        if _LOCK.match(word)]
    return out


def ours(up: Upstream, root: Path, files: Dockerfiles) -> tuple[dict[str, str], str, int]:
    """Distribution -> the lock that pins it, of the runtime image here (the base Dockerfile's
    locks, then the runtime stage's chain's); the runtime stage's file and line."""
    file, name = split(up.settings.ours_final, f"{up.settings.config} ours-final")
    for path in (root / up.settings.ours_base, root / file):
        if not path.is_file():
            raise LintError(f"{up.settings.config}: {path.relative_to(root)} does not exist")
    base = files.get(root / up.settings.ours_base)
    parsed = files.get(root / file)
    runtime = parsed.stage(name)
    if runtime is None:
        raise LintError(f"{up.settings.config}: ours-final: {file} has no stage {name!r}")
    pinned: dict[str, str] = {}
    for lock in [*_copied_locks(base, base.stages),
                 *_copied_locks(parsed, stages.chain(parsed, runtime))]:
        if not lock.is_file():
            raise LintError(f"{file}: copies {lock.relative_to(root)}, which does not exist")
        for dist in lockfile.pins(lock.read_text(encoding="utf-8")):
            pinned.setdefault(dist, str(lock.relative_to(root)))
    return pinned, file, runtime.base.line


def check(up: Upstream, root: Path, files: Dockerfiles) -> list[Finding]:
    pinned, file, line = ours(up, root, files)
    return [Finding(file, line, "runtime-pip",
                    f"upstream's final image pip-installs {name} ({where}); no lock the "
                    "runtime image here installs pins it")
            for name, where in sorted(theirs(up).items()) if name not in pinned]
