"""Upstream build-metadata conformance: each stage against its source's own metadata at the
pinned version (``upstream.toml``; fetched by ``upstream.Metadata``).

- ``build-requires``: every name of the source's ``[build-system].requires`` (markers evaluated
  for the cell's Python on linux/x86_64) is installed in the stage at a version inside the
  range.  The stage's tools are the base image's pins (``requirements/*.txt`` and exact
  ``name==version`` pins of base.Dockerfile, bake variables resolved), then the stage's own,
  then the upstream requirement files the stage installs.  The cell's own wheels (torch,
  triton, ...) are exempt under ``--no-build-isolation`` -- the cell builds against its own
  torch, as vLLM's use_existing_torch.py and LMCache's docs do -- unless the stage builds with
  ``python -m build --no-isolation``, which checks every requirement and stops on any missing.
- ``file-owner``: nothing an upstream requirement file installs (``installs``) or puts in the
  wheel's install_requires (``runtime``) installs a top-level package a wheel the cell built
  owns under another distribution name (e.g. PyPI's ``cupy-rocm-7-0`` over the cell's
  ``cupy``).  Compared by distribution and top-level package name (the bake file's
  ``WHEELS``, ``packages`` derived from it, ``upstream.toml``'s ``[pypi-packages]``): PyPI
  wheels' RECORD files are not available offline.
- ``constraint-conflict``: such a file pins a distribution the cell built to a version the
  cell's constraints file excludes (pip would fail, or without constraints swap the wheel).

Requirements a stage removes first (``drop-requirement.py FILE NAME...``, vLLM's
``use_existing_torch.py``) are not counted.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from rocm_bake.model import components
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint import upstream, upstreamdocker
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, csv_options
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.upstream import Built, Component, Config, Metadata, canonical

# A local requirements file or lock a Dockerfile names (``requirements/x.txt``, ``locks/x.txt``).
LOCAL_REQUIREMENTS = re.compile(r"(requirements|locks)/([A-Za-z0-9_.-]+\.txt)")
_PIN = re.compile(r"[\"']?([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\"'\\]+)")
_DROP = re.compile(r"drop-requirement\.py((?:\s+[^\s;&|\\]+)+)")
_LOOP = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+([^;]*);\s*do\b")
_SHELL_VARIABLE = re.compile(r"^\$\{?([A-Za-z_]\w*)\}?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_SET = re.compile(r"set-requirement\.py\s+(\S+)\s+'([^']+)'\s+'([^']+)'")
_BUILD = re.compile(r"\bpip3?\s+wheel\b|\bbdist_wheel\b|-m\s+build\b|\bpip3?\s+install\s+\.")
_CHECKING_FRONTEND = re.compile(r"-m\s+build\b[^&|;]*--no-isolation")
_SKIP_CHECK = re.compile(r"\s(?:-x|--skip-dependency-check)\b")


def context_dists(definition: Definition, settings: upstreamdocker.Settings | None = None
                  ) -> dict[str, tuple[str, ...]]:
    """Every named context or stage whose ``/wheels`` a stage installs -> its distributions:
    each component's from the bake file (``WHEELS``, else the one named after it), and each
    stage of ours that upstream-dockerfiles.toml maps to upstream's (e.g. vLLM's ``amdsmi``)."""
    mapped: dict[str, tuple[str, ...]] = {}
    settings = settings or upstreamdocker.load()
    for stage in settings.stages.values() if settings is not None else ():
        name = stage.ours.rpartition(":")[2]
        mapped[name] = tuple(dict.fromkeys([*mapped.get(name, ()),
                                            *(canonical(w) for w in stage.wheels)]))
    return {**mapped, **components.wheels(definition)}


def packages(definition: Definition) -> dict[str, tuple[str, ...]]:
    """Each built distribution -> its top-level packages, where upstream.toml's [built] does
    not say: the component's name (``_`` for ``-``) for the one wheel of a component (amd-mori
    -> mori), each distribution's own name where a component builds several (torchvision)."""
    out: dict[str, tuple[str, ...]] = {}
    for name, dists in components.wheels(definition).items():
        for dist in dists:
            own = name if len(dists) == 1 else dist
            out.setdefault(dist, (own.replace("-", "_"),))
    return out


def with_components(config: Config, definition: Definition) -> Config:
    """``config`` with a [built] entry for every distribution a component builds, its
    top-level packages derived (``packages``) where [built] gives none."""
    built = dict(config.built)
    for dist, derived in packages(definition).items():
        entry = built.get(dist)
        built[dist] = Built(derived) if entry is None else \
            entry if entry.packages else dataclasses.replace(entry, packages=derived)
    return dataclasses.replace(config, built=built)


@dataclass(frozen=True)
class Tool:
    version: str       # "" = installed, version not known here (an upstream range)
    where: tuple[str, int]


@dataclass
class Stage:
    """What the lint knows of one component's build stage."""

    file: str
    build_line: int
    tools: dict[str, Tool] = field(default_factory=dict)
    cell_wheels: set[str] = field(default_factory=set)
    drops: dict[str, set[str]] = field(default_factory=dict)
    drops_torch: bool = False
    checking_frontend: bool = False


def check(definition: Definition, root: Path, metadata: Metadata,
          config: Config | None = None) -> list[Finding]:
    config = with_components(config or upstream.load_config(metadata.settings.config),
                             definition)
    dists = context_dists(definition)
    variables = {v.name: v.value for v in definition.variables()}
    python = str(variables.get("PYTHON_VERSION") or "3.12")
    files = Dockerfiles()
    found: list[Finding] = []
    for component in config.components:
        path = root / component.dockerfile
        if not path.is_file():
            raise LintError(f"upstream.toml: component {component.name}: "
                            f"{component.dockerfile} does not exist")
        stage = _stage(path, files, root, variables, dists)
        base = upstream.resolve(component.base, variables, f"component {component.name}")
        found += _build_requires(component, stage, metadata, base, config, python)
        found += _requirement_files(component, stage, metadata, base, config, python,
                                    variables)
    return found


# -- the stage ------------------------------------------------------------------------------
def _stage(path: Path, files: Dockerfiles, root: Path, variables: Mapping[str, object],
           dists: Mapping[str, tuple[str, ...]]) -> Stage:
    parsed = files.get(path)
    stage = Stage(relative(path, root), _build_line(parsed), drops=stage_drops(parsed),
                  drops_torch=drops_torch(parsed))
    base = path.with_name("base.Dockerfile")
    for source in ([files.get(base)] if base.is_file() and base != path else []) + [parsed]:
        _tools_of(source, root, variables, stage)
    for st in parsed.stages:
        for instruction in st.instructions:
            if instruction.keyword != "RUN":
                continue
            for mount in instruction.flags.get("mount", []):
                context = csv_options(mount).get("from", "")
                stage.cell_wheels.update(dists.get(context, ()))
            if (_CHECKING_FRONTEND.search(instruction.body)
                    and not _SKIP_CHECK.search(instruction.body)):
                stage.checking_frontend = True
    return stage


def stage_drops(parsed: Dockerfile) -> dict[str, set[str]]:
    """upstream file -> the requirement names ``drop-requirement.py`` removes from it.  A call
    inside shell ``for VAR in WORD...; do`` loops of its RUN (``drop-requirement.py "${file}"
    "${tool}"``) drops every combination of the loops' words."""
    drops: dict[str, set[str]] = {}
    for st in parsed.stages:
        for instruction in st.instructions:
            if instruction.keyword == "RUN":
                loops = {m.group(1): m.group(2).split()
                         for m in _LOOP.finditer(instruction.body)}
                for match in _DROP.finditer(instruction.body):
                    words = [_words(w, loops) for w in match.group(1).split()]
                    names = {canonical(n) for w in words[1:] for n in w if _NAME.match(n)}
                    for file in words[0] if names else ():
                        drops.setdefault(file, set()).update(names)
    return drops


def _words(token: str, loops: Mapping[str, list[str]]) -> list[str]:
    """A shell word of a drop-requirement.py call: a loop variable's words, else itself (an
    unknown variable: none)."""
    word = token.strip("\"'")
    variable = _SHELL_VARIABLE.match(word)
    if variable is None:
        return [word]
    return loops.get(variable.group(1), [])


def stage_sets(parsed: Dockerfile) -> dict[str, dict[str, str]]:
    """upstream file -> {line: the line ``set-requirement.py FILE 'OLD' 'NEW'`` puts there}."""
    sets: dict[str, dict[str, str]] = {}
    for st in parsed.stages:
        for instruction in st.instructions:
            if instruction.keyword == "RUN":
                for match in _SET.finditer(instruction.body):
                    sets.setdefault(match.group(1).strip("\"'"), {})[match.group(2)] = \
                        match.group(3)
    return sets


def drops_torch(parsed: Dockerfile) -> bool:
    """The stage runs vLLM's ``use_existing_torch.py`` (its requirement files lose torch)."""
    return any(i.keyword == "RUN" and "use_existing_torch.py" in i.body
               for st in parsed.stages for i in st.instructions)


def _build_line(parsed: Dockerfile) -> int:
    lines = [i.line for s in parsed.stages for i in s.instructions
             if i.keyword == "RUN" and _BUILD.search(i.body)]
    return lines[0] if lines else 1


def _tools_of(parsed: Dockerfile, root: Path, variables: Mapping[str, object],
              stage: Stage) -> None:
    text = parsed.path.read_text(encoding="utf-8")
    for folder, name in dict.fromkeys(LOCAL_REQUIREMENTS.findall(text)):
        local = parsed.path.parent / folder / name
        if local.is_file():
            for number, line in enumerate(local.read_text(encoding="utf-8").splitlines(), 1):
                match = _PIN.match(expand(line.strip(), variables))
                if match:
                    stage.tools[canonical(match.group(1))] = Tool(
                        match.group(2), (relative(local, root), number))
    for st in parsed.stages:
        for instruction in st.instructions:
            if instruction.keyword != "RUN" or "pip" not in instruction.body:
                continue
            for match in _PIN.finditer(instruction.body):
                version = expand(match.group(2), variables)
                stage.tools[canonical(match.group(1))] = Tool(
                    version, (relative(parsed.path, root), instruction.line))


def expand(text: str, variables: Mapping[str, object]) -> str:
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
                  lambda m: str(variables.get(m.group(1), m.group(0))), text)


# -- upstream files -------------------------------------------------------------------------
def _environment(python: str) -> dict[str, str]:
    return {"python_version": python, "python_full_version": f"{python}.0",
            "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64",
            "os_name": "posix", "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "extra": ""}


def _applies(requirement: Requirement, python: str) -> bool:
    return requirement.marker is None or requirement.marker.evaluate(_environment(python))


def _parse(text: str, url: str) -> Requirement:
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise LintError(f"upstream metadata {url}: cannot parse requirement {text!r}: {exc}") \
            from None


def build_system(text: str, url: str) -> list[Requirement]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LintError(f"upstream metadata {url}: not TOML ({exc})") from None
    requires = data.get("build-system", {}).get("requires", [])
    if not isinstance(requires, list):
        raise LintError(f"upstream metadata {url}: [build-system].requires is not a list")
    return [_parse(str(r), url) for r in requires]


def requirement_lines(text: str, url: str) -> Iterator[tuple[str, Requirement]]:
    """(raw line, requirement) of a requirements file; options and ``-r`` includes skipped."""
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        yield line, _parse(line, url)


def requirement_text(metadata: Metadata, url: str) -> str:
    """Upstream's requirements file at ``url``, its requirement lines only, as written: those
    lines are recorded as a fact, not the file's text."""
    lines = metadata.fact(url, "requirement lines", lambda text: [
        raw for raw in text.splitlines() if any(requirement_lines(raw, url))])
    return "".join(f"{line}\n" for line in lines)


def requirements_of(metadata: Metadata, url: str) -> list[tuple[str, Requirement]]:
    """(line, requirement) of upstream's requirements file at ``url`` (``requirement_text``)."""
    return list(requirement_lines(requirement_text(metadata, url), url))


def build_requires_of(metadata: Metadata, url: str) -> list[Requirement]:
    """[build-system].requires of upstream's pyproject.toml at ``url``, recorded as a fact."""
    requires = metadata.fact(url, "build-system requires",
                             lambda text: [str(r) for r in build_system(text, url)])
    return [_parse(str(r), url) for r in requires]


def _kept(stage: Stage, path: str, line: str, requirement: Requirement) -> bool:
    if canonical(requirement.name) in stage.drops.get(path, set()):
        return False
    return not (stage.drops_torch and "torch" in line.lower())


# -- rules ----------------------------------------------------------------------------------
def _build_requires(component: Component, stage: Stage, metadata: Metadata, base: str,
                    config: Config, python: str) -> list[Finding]:
    url = f"{base}/{component.build_system}"
    tools = dict(stage.tools)
    for path in component.installs:
        file_url = f"{base}/{path}"
        for line, requirement in requirements_of(metadata, file_url):
            if not _kept(stage, path, line, requirement) or not _applies(requirement, python):
                continue
            pinned = [s.version for s in requirement.specifier if s.operator == "=="]
            name = canonical(requirement.name)
            if pinned or name not in tools:
                tools[name] = Tool(pinned[0] if pinned else "", (stage.file, stage.build_line))
    found = []
    for requirement in build_requires_of(metadata, url):
        if not _applies(requirement, python):
            continue
        name = canonical(requirement.name)
        if name in config.built and not stage.checking_frontend:
            continue
        tool = tools.get(name)
        origin = f"{component.build_system} [build-system].requires at the pinned version"
        if name in config.built and name in stage.cell_wheels:
            continue
        if tool is None:
            why = (" (`python -m build --no-isolation` checks every build requirement and "
                   "stops: build with pip wheel --no-build-isolation, as vLLM does)"
                   if stage.checking_frontend and name in config.built else "")
            found.append(Finding(stage.file, stage.build_line, "build-requires",
                                 f"{component.name}: {origin} needs {requirement}, which the "
                                 f"stage does not install{why}"))
            continue
        if tool.version and not _satisfies(requirement, tool.version):
            found.append(Finding(tool.where[0], tool.where[1], "build-requires",
                                 f"{component.name}: {name} {tool.version} is outside "
                                 f"{requirement} ({origin})"))
    return found


def _satisfies(requirement: Requirement, version: str) -> bool:
    try:
        return requirement.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def _requirement_files(component: Component, stage: Stage, metadata: Metadata, base: str,
                       config: Config, python: str,
                       variables: Mapping[str, object]) -> list[Finding]:
    owners = {p: dist for dist, built in config.built.items() for p in built.packages}
    found = []
    for path in (*component.installs, *component.runtime):
        url = f"{base}/{path}"
        for line, requirement in requirements_of(metadata, url):
            if not _kept(stage, path, line, requirement) or not _applies(requirement, python):
                continue
            name = canonical(requirement.name)
            if name in config.built:
                found += _conflict(component, stage, path, requirement, config, variables)
                continue
            packages = config.pypi_packages.get(name, (requirement.name.replace("-", "_"),))
            clash = sorted({owners[p] for p in packages if p in owners})
            if clash:
                shared = ", ".join(sorted(set(packages) & set(owners)))
                found.append(Finding(stage.file, stage.build_line, "file-owner",
                                     f"{component.name}: {path} installs {requirement.name}, "
                                     f"which owns {shared}/ "
                                     f"like the cell's own {', '.join(clash)} wheel and would "
                                     "overwrite it (by top-level package name); drop it with "
                                     "drop-requirement.py"))
    return found


def _conflict(component: Component, stage: Stage, path: str, requirement: Requirement,
              config: Config, variables: Mapping[str, object]) -> list[Finding]:
    variable = config.built[canonical(requirement.name)].version
    version = str(variables.get(variable) or "") if variable else ""
    if not version or not str(requirement.specifier) or _satisfies(requirement, version):
        return []
    return [Finding(stage.file, stage.build_line, "constraint-conflict",
                    f"{component.name}: {path} requires {requirement}, but the cell builds "
                    f"{canonical(requirement.name)} {version} ({variable}): pip would swap the "
                    "cell's wheel, or fail under its constraints file; drop it with "
                    "drop-requirement.py")]
