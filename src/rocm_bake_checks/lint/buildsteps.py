"""Steps of upstream's build stages besides their flags (family conformance), for each stage
mapped in ``upstream-dockerfiles.toml`` [dockerfiles.stages]:

- ``build-toolchain``: every ``update-alternatives --install LINK NAME PATH PRIORITY`` (and
  each of its ``--slave LINK NAME PATH``) of upstream's stage and the stages of its file it is
  built ``FROM`` (its file's base stage included, so a switch moved into upstream's base still
  counts) selects the same PATH for LINK in the stage here: its ``FROM`` chain or the base
  Dockerfile (e.g. torch 2.12 built with gcc-13, not the distribution's gcc);
- ``build-scripts``: every script of the source that upstream's stage runs (``python[3]
  PATH.py``, PATH as written or the source path a ``COPY`` from the build context put there;
  ``setup.py`` is the build itself, compared by build-components and build-flags) is run by
  the stage here (a path that is, or ends with ``/`` and, the same source path).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_bake_checks.lint import stages
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, Stage
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.upstreamdocker import Upstream, split

_ALTERNATIVES = re.compile(r"\bupdate-alternatives\s+(--install\b.*?)(?=&&|\|\||;|\||$)", re.S)
_SCRIPT = re.compile(r"(?:^|[\s;&|(])python[0-9.]*\s+(?:-[A-Za-z]+\s+)*([^\s;&|()]+\.py)\b")


@dataclass(frozen=True)
class Step:
    what: str        # "/usr/bin/gcc -> /usr/bin/gcc-13" or a source path
    where: str       # Dockerfile.rocm_base:142


def _own_chain(parsed: Dockerfile, stage: Stage, roots: bool) -> list[Stage]:
    defaults = {n: a.default or "" for n, a in parsed.global_args.items()}
    chain = stages.chain(parsed, stage, defaults)
    if roots:
        return chain
    return [link for link in chain
            if parsed.stage(stages.expand(link.base.name, defaults)) is not None]


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


def alternatives(parsed: Dockerfile, chain: list[Stage],
                 values: Mapping[str, str] | None = None) -> dict[str, Step]:
    """LINK -> (PATH it is switched to, where) of every ``update-alternatives --install``
    (``$VARIABLES`` expanded from the file's ARG defaults and ``values``)."""
    out: dict[str, Step] = {}
    for link in chain:
        known = {**{n: a.default or "" for n, a in parsed.global_args.items()},
                 **{n: a.default or "" for n, a in link.args.items()}, **(values or {})}
        for instruction in stages.runs(link):
            body = instruction.body.replace("\\\n", " ")
            for match in _ALTERNATIVES.finditer(body):
                words = _words(match.group(1))
                for index, word in enumerate(words):
                    if word in ("--install", "--slave") and len(words) > index + 3:
                        target = stages.expand(words[index + 1], known)
                        path = stages.expand(words[index + 3], known)
                        out.setdefault(target, Step(path,
                                                    f"{parsed.path.name}:{instruction.line}"))
    return out


def scripts(parsed: Dockerfile, chain: list[Stage]) -> dict[str, Step]:
    """Source path -> where, of every ``python PATH.py`` of the chain but ``setup.py``."""
    copied: dict[str, str] = {}
    for link in chain:
        for instruction in link.instructions:
            if instruction.keyword == "COPY" and not instruction.flags.get("from"):
                words = instruction.body.split()
                if len(words) == 2 and words[0].endswith(".py"):
                    copied[words[1]] = words[0]
    out: dict[str, Step] = {}
    for link in chain:
        for instruction in stages.runs(link):
            for match in _SCRIPT.finditer(instruction.body.replace("\\\n", " ")):
                path = copied.get(match.group(1), match.group(1)).removeprefix("./")
                if path.rsplit("/", 1)[-1] != "setup.py":
                    out.setdefault(path, Step(path, f"{parsed.path.name}:{instruction.line}"))
    return out


def _ours(up: Upstream, root: Path, files: Dockerfiles, ref: str
          ) -> tuple[Dockerfile, list[Stage], str, int]:
    file, name = split(up.settings.stages[ref].ours, f"{up.settings.config} [dockerfiles.stages]")
    parsed = files.get(root / file)
    stage = parsed.stage(name)
    if stage is None:
        raise LintError(f"{up.settings.config}: {ref}: {file} has no stage {name!r}")
    return parsed, _own_chain(parsed, stage, roots=True), file, stage.base.line


def _runs(have: dict[str, Step], path: str) -> bool:
    return any(mine == path or mine.endswith("/" + path) for mine in have)


def check(up: Upstream, root: Path, files: Dockerfiles,
          values: Mapping[str, str]) -> Iterator[Finding]:
    base = files.get(root / up.settings.ours_base)
    base_switches = alternatives(base, base.stages, values)
    for ref in up.settings.stages:
        parsed, stage = up.stage(ref)
        theirs = _own_chain(parsed, stage, roots=False)
        mine, chain, file, line = _ours(up, root, files, ref)
        switched = {**base_switches, **alternatives(mine, chain, values)}
        upstream_switches = alternatives(parsed, _own_chain(parsed, stage, roots=True), values)
        for target, step in sorted(upstream_switches.items()):
            have = switched.get(target)
            if have is None or have.what != step.what:
                now = f"it is {have.what} ({have.where})" if have else "it is not switched"
                yield Finding(file, line, "build-toolchain",
                              f"upstream's {up.name(ref)} builds with {target} switched to "
                              f"{step.what} (update-alternatives, {step.where}); here {now}: "
                              f"run `update-alternatives --install {target} ... {step.what}` "
                              "in this stage")
        have_scripts = scripts(mine, chain)
        for path, step in sorted(scripts(parsed, theirs).items()):
            if not _runs(have_scripts, path):
                yield Finding(file, line, "build-scripts",
                              f"upstream's {up.name(ref)} runs the source's {path} "
                              f"({step.where}); this stage does not: run it from the source "
                              "tree here")
