"""Components and build flags of upstream's build stages (family conformance):

- ``build-components``: every upstream stage that builds something (a wheel, a binary, an
  install: ``ninja install``, ``make install``, ``cmake --build``/``--install``) and is part of
  upstream's images or release is mapped to a stage here
  (``upstream-dockerfiles.toml`` [dockerfiles.stages]) or is what an implied flag stands for.
- ``build-flags``: each mapped stage here passes the flags upstream's stage passes: the
  ``NAME=value`` of its build commands, ``export NAME=value``, the ``-DNAME=value`` options of
  its CMake configures (named ``-DNAME``; e.g. vLLM v0.33.0's build_rocm_runtime configures
  CLR with ``-DCLR_BUILD_HIP=ON -DCLR_BUILD_OCL=OFF``), the ``ENV`` of its FROM chain below
  upstream's base, and the implied flags ([[dockerfiles.implied]]).  Ours are the same
  read of our stage's chain, plus its ARGs (set by the bake file), the base Dockerfile's ENV
  and the implied flags of our base.  A literal value must match; a ``$`` value only be set.
  The other way too: a flag the stage here sets to an off value (``OFF``, ``0``, ``false``,
  ``no``) that upstream's stage does not set turns off what upstream builds with its source's
  default (e.g. Triton's profiler, ``TRITON_BUILD_PROTON``).
- ``lint-policy`` (the config's own staleness): an ``[[dockerfiles.implied]]`` entry that
  applies to nothing -- its package installed by neither base, its stage copied by no mapped
  upstream stage, or a ``for`` naming a stage [dockerfiles.stages] does not map.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from rocm_bake_checks.lint import aptbase, stages
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, Stage
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.upstreamdocker import Implied, Upstream, split

_BUILDS = re.compile(r"\bbdist_wheel\b|\bpip3?\s+wheel\b|\buv\s+build\b|\bbuild_rust\.sh\b"
                     r"|\bninja\s+install\b|\bmake\s+install\b|\bcmake\s+--(?:build|install)\b")
Flags = dict[str, tuple[str, str]]     # name -> (value, where)
OFF = frozenset({"off", "0", "false", "no"})


def _own(parsed: Dockerfile, link: Stage) -> bool:
    """The stage is below the file's root (its FROM is another stage of the file)."""
    return parsed.stage(stages.expand(link.base.name, _defaults(parsed))) is not None


def _defaults(parsed: Dockerfile) -> dict[str, str]:
    return {n: a.default or "" for n, a in parsed.global_args.items()}


def _read(parsed: Dockerfile, stage: Stage, into: Flags, roots: bool = False) -> None:
    for link in stages.chain(parsed, stage, _defaults(parsed)):
        if not roots and not _own(parsed, link):
            continue
        for flag in [*stages.command_flags(link), *stages.env(link), *stages.cmake_options(link)]:
            into.setdefault(flag.name, (flag.value, f"{parsed.path.name}:{flag.line}"))


def upstream_flags(up: Upstream, ref: str, packages: set[str]) -> Flags:
    parsed, stage = up.stage(ref)
    flags: Flags = {}
    _read(parsed, stage, flags)
    for implied in up.settings.implied:
        if _applies(up, implied, ref, packages):
            name, _, value = implied.flag.partition("=")
            flags.setdefault(name, (value, f"implied: {implied.why}"))
    return flags


def _applies(up: Upstream, implied: Implied, ref: str, packages: set[str]) -> bool:
    """The implied flag counts for upstream's mapped stage ``ref`` (its base installs the
    package, or the stage copies from the implied stage)."""
    if implied.applies and ref not in implied.applies:
        return False
    if implied.package:
        return implied.package in packages
    key = ref.rpartition(":")[0]
    origins = {s.origin for s in stages.sources(up.stage(ref)[1])}
    return bool(implied.stage) and implied.stage.startswith(key + ":") \
        and implied.stage.split(":", 1)[1] in origins


def stale_implied(up: Upstream, root: Path, theirs: set[str], ours: set[str]) -> list[Finding]:
    """``[[dockerfiles.implied]]`` entries that apply to nothing, one finding each."""
    config = relative(up.settings.config, root)
    found = []
    for implied in up.settings.implied:
        unmapped = [a for a in implied.applies if a not in up.settings.stages]
        if unmapped:
            why = f"its `for` names {', '.join(unmapped)}, which [dockerfiles.stages] does not map"
        elif any(_applies(up, implied, ref, theirs | ours) for ref in up.settings.stages):
            continue
        elif implied.package:
            why = f"neither upstream's base nor this base installs {implied.package}"
        else:
            why = f"no mapped upstream stage copies from {implied.stage or '(no stage)'}"
        found.append(Finding(config, implied.line, "lint-policy",
                             f"[[dockerfiles.implied]] {implied.flag} matches nothing: {why}; "
                             "remove it (or correct it)"))
    return found


def our_flags(up: Upstream, root: Path, files: Dockerfiles, ref: str,
              packages: set[str]) -> tuple[Flags, str, int]:
    file, name = split(up.settings.stages[ref].ours, f"{up.settings.config} [dockerfiles.stages]")
    path = root / file
    if not path.is_file():
        raise LintError(f"{up.settings.config}: {ref}: {file} does not exist")
    parsed = files.get(path)
    stage = parsed.stage(name)
    if stage is None:
        raise LintError(f"{up.settings.config}: {ref}: {file} has no stage {name!r}")
    flags: Flags = {}
    _read(parsed, stage, flags, roots=True)
    for link in stages.chain(parsed, stage):
        for arg in link.args:
            flags.setdefault(arg, (f"${arg}", file))
    base = files.get(root / up.settings.ours_base)
    for st in base.stages:
        for flag in stages.env(st):
            flags.setdefault(flag.name, (flag.value, up.settings.ours_base))
    for implied in up.settings.implied:
        if implied.package and implied.package in packages \
                and (not implied.applies or ref in implied.applies):
            key, _, value = implied.flag.partition("=")
            flags.setdefault(key, (value, f"implied: {implied.why}"))
    return flags, file, stage.base.line


def components(up: Upstream, root: Path) -> list[Finding]:
    config = relative(up.settings.config, root)
    implied = {i.stage for i in up.settings.implied if i.stage}
    found = []
    starts = [up.settings.final, *up.settings.base_stages, *up.settings.release]
    for key, parsed in up.files.items():
        reached: dict[int, Stage] = {}
        for ref in starts:
            if ref.startswith(key + ":"):
                reached.update({s.index: s for s in parsed.reachable(up.stage(ref)[1])})
        for stage in sorted(reached.values(), key=lambda s: s.index):
            ref = f"{key}:{stage.name}"
            if ref in up.settings.stages or ref in implied:
                continue
            line = next((i.line for i in stages.runs(stage) if _BUILDS.search(i.body)), 0)
            if line:
                found.append(Finding(config, up.settings.stages_line, "build-components",
                                     f"upstream's {up.name(ref)} builds something "
                                     f"({parsed.path.name}:{line}); no stage here is mapped "
                                     "to it"))
    return found


def check(up: Upstream, root: Path, files: Dockerfiles,
          values: Mapping[str, str]) -> list[Finding]:
    theirs = set(aptbase.theirs(up, values))
    ours_packages: set[str] = set()
    for stage in files.get(root / up.settings.ours_base).stages:
        ours_packages |= set(stages.apt_packages(stage, values))
    found = components(up, root)
    wanted_of = {ref: upstream_flags(up, ref, theirs) for ref in up.settings.stages}
    # A stage of ours may answer several of upstream's (one component, several stages): a flag
    # one of them sets is not extra in the others'.
    answered: dict[str, set[str]] = {}
    for ref, mapped in up.settings.stages.items():
        answered.setdefault(mapped.ours, set()).update(wanted_of[ref])
    for ref in up.settings.stages:
        wanted = wanted_of[ref]
        together = answered[up.settings.stages[ref].ours]
        have, file, line = our_flags(up, root, files, ref, ours_packages)
        for name, (value, where) in sorted(wanted.items()):
            mine = have.get(name)
            if mine is None:
                found.append(Finding(file, line, "build-flags",
                                     f"upstream's {up.name(ref)} builds with {name}={value} "
                                     f"({where}); this stage does not"))
            elif "$" not in value and "$" not in mine[0] and mine[0] != value:
                found.append(Finding(file, line, "build-flags",
                                     f"upstream's {up.name(ref)} builds with {name}={value} "
                                     f"({where}); this stage with {name}={mine[0]}"))
        for name, (value, where) in sorted(have.items()):
            if name not in together and value.lower() in OFF:
                found.append(Finding(file, line, "build-flags",
                                     f"this stage builds with {name}={value} ({where}); "
                                     f"upstream's {up.name(ref)} leaves {name} at its "
                                     f"source's default: drop {name}={value}"))
    return [*found, *stale_implied(up, root, theirs, ours_packages)]
