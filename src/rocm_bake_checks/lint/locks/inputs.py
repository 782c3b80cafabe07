"""What each component's lock (``dockerfiles/locks/<component>.txt``) is resolved from.

The components are the bake file's component table (``rocm_bake.model.graph``: ``ARCHS``); a
component has a lock when its Dockerfile runs ``pip install``.  Its inputs, in layers:

- inherited: the whole input of every component whose image a stage is built ``FROM`` (the
  ``base`` context, ``vllm`` for LMCache's runtime image);
- installed wheels: for every ``RUN --mount=...,from=X`` of the cell's own wheels, their runtime
  requirements (what their source declares, ``locks.built`` from ``upstream.toml`` ``[built]``
  ``requires-from``, and the component's ``runtime`` files when X is a component with
  upstream metadata, e.g. vLLM's ``requirements/rocm.txt``);
- its own: the local ``requirements/*.txt`` files its Dockerfile names (``${VARIABLE}``
  replaced by the bake variable's value), the upstream files it installs and those that
  become its wheel's install_requires (``upstream.toml``, read through the replayable
  snapshot ``upstream.Metadata``), or, for a file whose copy at the pin could not be had, the
  requirement lines of the stored copies standing in for it (``upstream.toml``
  ``[[nearest-copy]]``, each named with its repository, path and commit in the lock's header),
  less what the stage drops first (``drop-requirement.py``, ``use_existing_torch.py``) and
  with what ``set-requirement.py`` rewrites.

An exact ``==`` pin of a later layer replaces the exact pins of earlier layers on that
distribution (a stage's own tool version over the base image's, as its ``pip install`` does),
and so does any later requirement the earlier pin does not meet; every other requirement is
kept, for the resolver to meet together.  Locks follow images (``_constraints``): a lock
extends its parent image's lock (its pins are constraints) and honours the caps of the images
built on it.  The cell's own distributions (the bake file's ``WHEELS``: torch, triton, ...)
are never resolved from an index: the build provides them, so the resolver gets them as
overrides that never apply.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import graph
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint import conformance, upstream
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, csv_options
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.locks import built as builtmeta
from rocm_bake_checks.lint.upstream import Config, Metadata, canonical

LOCK_DIR = Path("dockerfiles") / "locks"
# The images' platform, for the resolver: the glibc of the ROCm base image's Ubuntu release
# (bake variable ROCM_BASE_IMAGE), so the lock picks the wheels pip picks in the image.
BASE_IMAGE_VARIABLE = "ROCM_BASE_IMAGE"
GLIBC = {"22.04": "2_35", "24.04": "2_39"}
_UBUNTU = re.compile(r"ubuntu-(\d+\.\d+)")
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b")
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", re.I | re.M)
_TARGET = re.compile(r"^target:(.+)$")


@dataclass(frozen=True)
class Layer:
    origin: str                      # where the lines come from, for the lock's header
    lines: tuple[str, ...]           # requirement strings


@dataclass(frozen=True)
class Inputs:
    """One component's resolver input: the requirements, the cell's own distributions."""

    component: str
    dockerfile: str
    python: str
    platform: str
    origins: tuple[str, ...]
    requirements: tuple[str, ...]
    excluded: tuple[str, ...]
    constraints: tuple[str, ...] = ()   # the parent images' pins, the child images' caps

    def text(self) -> str:
        return "".join(f"{line}\n" for line in self.requirements)

    def constraints_text(self) -> str:
        return "".join(f"{line}\n" for line in self.constraints)

    def overrides(self) -> str:
        """The cell's own distributions as overrides no environment matches: the resolver
        drops them and what only they require (the build provides them)."""
        return "".join(f"{name} ; sys_platform == 'never'\n" for name in self.excluded)

    def digest(self) -> str:
        """sha256 of the requirements the lock is resolved from, for its Python and platform
        (the lock header records it). The cell's own distributions are not part of it: adding
        a component leaves the other locks fresh, and a lock that pins a distribution the
        graph now builds is stale by its content (``locks._stale``)."""
        hashed = hashlib.sha256()
        parts = [f"python {self.python}\n", f"platform {self.platform}\n", self.text()]
        if self.constraints:
            parts.append("constraints\n" + self.constraints_text())
        for part in parts:
            hashed.update(part.encode())
        return hashed.hexdigest()

    def lock_path(self, root: Path) -> Path:
        return root / LOCK_DIR / f"{self.component}.txt"


def derive(definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
           root: Path, metadata: Metadata, config: Config | None = None) -> list[Inputs]:
    """Every component's inputs, in the bake file's component order."""
    config = config or upstream.load_config(metadata.settings.config)
    variables = {v.name: v.value for v in definition.variables()}
    python = str(variables.get("PYTHON_VERSION") or "3.12")
    components, cells = _components(bake_files, targets)
    if not components:
        return []
    # The distributions each component builds (the bake file's WHEELS, else its own name).
    config = conformance.with_components(config, definition)
    platform = _platform(variables)
    deriver = _Deriver(root, metadata, config, variables, python, components, cells,
                       conformance.context_dists(definition))
    locked = [c for c, t in deriver.components.items()
              if t.dockerfile is not None and _installs(deriver.files.get(t.dockerfile))]
    for component in locked:
        deriver.layers(component)
    out = []
    for component in locked:
        target = deriver.components[component]
        assert target.dockerfile is not None
        layers = deriver.layers(component)
        merged = _merge(layers)
        constraints, origins = _constraints(deriver, component, merged, root, set(locked))
        out.append(Inputs(component, relative(target.dockerfile, root), python, platform,
                          tuple(dict.fromkeys([*(layer.origin for layer in layers), *origins])),
                          merged, tuple(sorted(config.built)), constraints))
    return out


def _constraints(deriver: _Deriver, component: str, merged: tuple[str, ...], root: Path,
                 locked: set[str]) -> tuple[tuple[str, ...], list[str]]:
    """Locks follow images.  A component built FROM another component's image extends that
    image's lock: every pin of the parent's lock is a constraint, unless the component's own
    requirements ask for another version of it (a stage's own build tool over the base
    image's: pip replaces it, ``inv lint``'s resolution family checks what that leaves).  And
    a parent's lock honours the caps of the images built on it (their own requirements that
    are not exact pins, on a distribution the parent does not pin exactly itself): what a
    child caps is never installed newer underneath it -- the way vllm-project/vllm v0.33.0
    docker/Dockerfile.rocm_72 (final stage, lines 955-962: ``opentelemetry-api<=1.40.0`` in
    /tmp/otel-constraints.txt, "Keep OpenTelemetry within LMCache's cap") keeps vLLM's
    OpenTelemetry within LMCache's cap."""
    out: list[str] = []
    origins: list[str] = []
    own = [Requirement(line) for line in _merge(deriver.added(component))]
    pinned: dict[str, str] = {}
    # a parent built on another parent (vLLM's image on the base) moved what it pins over it
    for parent in sorted(deriver.parents(component), key=lambda p: len(deriver.ancestors(p))):
        path = root / LOCK_DIR / f"{parent}.txt"
        if parent not in locked or not path.is_file():
            continue
        pinned.update(_lock_pins(path.read_text(encoding="utf-8")))
        origins.append(f"{relative(path, root)} (the parent image's lock, as constraints)")
    for name, version in sorted(pinned.items()):
        if not any(canonical(r.name) == name and not r.specifier.contains(version, True)
                   for r in own):
            out.append(f"{name}=={version}")
    exact = {name for name in map(_exact, merged) if name}
    for child in deriver.children(component):
        caps = [line for line in _merge(deriver.added(child))
                if _exact(line) is None and Requirement(line).specifier
                and canonical(Requirement(line).name) not in exact]
        if caps:
            out += caps
            origins.append(f"the caps of component {child}, built on this image "
                           "(as constraints)")
    return tuple(sorted(dict.fromkeys(out), key=lambda line: (line.lower(), line))), origins


def _lock_pins(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)", line)
        if match:
            out[canonical(match.group(1))] = match.group(2)
    return out


def runtime_requires(definition: Definition, bake_files: list[Path],
                     targets: list[BakeTarget], root: Path, metadata: Metadata,
                     config: Config, versions: Mapping[str, str]
                     ) -> dict[str, tuple[str, ...]]:
    """A component's own distribution (the one named after it: vLLM's ``vllm``, never the
    ``amdsmi`` wheel beside it) -> the requirements its upstream ``runtime`` files give its
    wheel: less what its stages drop first, and with the pins a stage writes into one of them
    with upstream's pin script (``pins``: ``_pinned``; ``versions``, built distribution ->
    the version the cell builds), for the components upstream.toml declares ``runtime`` for
    (vLLM, LMCache)."""
    variables = {v.name: v.value for v in definition.variables()}
    components, cells = _components(bake_files, targets)
    deriver = _Deriver(root, metadata, config, variables, "", components, cells,
                       conformance.context_dists(definition))
    out: dict[str, tuple[str, ...]] = {}
    for component, target in components.items():
        if target.dockerfile is None:
            continue
        declared = deriver.upstream.get(relative(target.dockerfile, root))
        if declared is None or not declared.runtime:
            continue
        parsed = deriver.files.get(target.dockerfile)
        stage = conformance.stage_drops(parsed)
        sets = conformance.stage_sets(parsed)
        base = upstream.resolve(declared.base, variables, f"component {component}")
        pinned = _pinned(deriver, declared, base, parsed, versions)
        lines: list[str] = []
        for path in declared.runtime:
            read = list(deriver.file(f"{base}/{path}", stage.get(path, set()),
                                     conformance.drops_torch(parsed), sets.get(path)).lines)
            pins = pinned.get(path)
            lines += [*pins, *_unpinned(read, pins)] if pins else read
        own = canonical(declared.name)
        if own in deriver.dists.get(component, ()):
            out[own] = tuple(dict.fromkeys(lines))
    return out


def _pinned(deriver: _Deriver, declared: upstream.Component, base: str, parsed: Dockerfile,
            versions: Mapping[str, str]) -> dict[str, list[str]]:
    """Runtime file -> the ``name==version`` lines upstream's pin script (``declared.pins``)
    writes at its top where a RUN of the stage runs ``python SCRIPT DIR FILE``: one per wheel
    in DIR whose file name starts with a prefix of the script's ``package_mapping``, in that
    order (vLLM tools/vllm-rocm/pin_rocm_dependencies.py: get_custom_wheel_versions,
    pin_dependencies_in_requirements).  DIR's wheels are those the RUN mounts (the recipe links
    them there), each named as its wheel file is (``name-version-...``)."""
    if not declared.pins:
        return {}
    runs = re.compile(rf"\bpython3?\s+(?:\./)?{re.escape(declared.pins)}\s+\S+\s+(\S+)")
    url = f"{base}/{declared.pins}"
    out: dict[str, list[str]] = {}
    for stage in parsed.stages:
        for instruction in stage.instructions:
            match = runs.search(instruction.body.replace("\\\n", " ")) \
                if instruction.keyword == "RUN" else None
            if match is None:
                continue
            file = match.group(1).strip("\"'")
            if file not in declared.runtime:
                raise LintError(f"{relative(parsed.path, deriver.root)}:{instruction.line}: runs "
                                f"{declared.pins} on {file}, which is not one of component "
                                f"{declared.name}'s runtime files (upstream.toml)")
            mounted = [d for mount in instruction.flags.get("mount", [])
                       for d in deriver.dists.get(csv_options(mount).get("from", ""), ())]
            mapping = deriver.metadata.fact(url, "package_mapping",
                                            functools.partial(_mapping, url))
            out[file] = _pins([(str(p), str(n)) for p, n in mapping],
                              {d: versions[d] for d in mounted if d in versions})
    return out


def _mapping(url: str, text: str) -> list[list[str]]:
    """The pin script's package_mapping as JSON (what lint records of the script)."""
    return [list(pair) for pair in builtmeta.package_mapping(text, url)]


def _pins(mapping: list[tuple[str, str]], wheels: Mapping[str, str]) -> list[str]:
    """The script's pins for the wheels (distribution -> version): each wheel file
    (``name-version-...``, the name's ``-`` and ``.`` as ``_``) taken by the first prefix
    it starts with, the pins in the mapping's order."""
    found: dict[str, str] = {}
    for dist, version in wheels.items():
        file = f"{re.sub(r'[-_.]+', '_', dist)}-{version}-"
        name = next((name for prefix, name in mapping if file.startswith(prefix)), None)
        if name is not None:
            found[name] = version
    return [f"{name}=={found[name]}" for _, name in mapping if name in found]


def _unpinned(lines: list[str], pins: list[str]) -> list[str]:
    """``lines`` less those the pin script takes out for a pinned name: its pattern
    ``^NAME\\s*[=<>]=?\\s*[\\d.a-zA-Z+]+``, ``-`` matching ``-`` or ``_``, any case
    (pin_rocm_dependencies.py, pin_dependencies_in_requirements)."""
    names = [pin.split("==", 1)[0] for pin in pins]
    patterns = [re.compile(rf"^{name.replace('-', '[-_]')}\s*[=<>]=?\s*[\d.a-zA-Z+]+", re.I)
                for name in names]
    return [line for line in lines if not any(p.match(line.strip()) for p in patterns)]


def built_dists(definition: Definition, bake_files: list[Path], targets: list[BakeTarget]
                ) -> set[str]:
    """The distributions the bake file's components build (``conformance.context_dists``;
    a stage's own extra wheel such as vLLM's amdsmi is left out: it reads nothing published)."""
    components, _ = _components(bake_files, targets)
    dists = conformance.context_dists(definition)
    return {d for component in components for d in dists.get(component, ())}


def platform(variables: Mapping[str, object]) -> str:
    """The images' pip platform (``--python-platform``) from the base image's release."""
    return _platform(variables)


def _platform(variables: Mapping[str, object]) -> str:
    image = str(variables.get(BASE_IMAGE_VARIABLE) or "")
    match = _UBUNTU.search(image)
    if match is None or match.group(1) not in GLIBC:
        raise LintError(f"lock inputs: {BASE_IMAGE_VARIABLE} {image!r} is not a known Ubuntu "
                        f"release ({', '.join(f'ubuntu-{r}' for r in GLIBC)}): its glibc is "
                        "the images' platform")
    return f"x86_64-manylinux_{GLIBC[match.group(1)]}"


def _components(bake_files: list[Path], targets: list[BakeTarget]
                ) -> tuple[dict[str, BakeTarget], dict[str, str]]:
    """component -> the target of its first built cell, and cell target -> component (the
    bake file's component table)."""
    by_name = {t.name: t for t in targets}
    try:
        cells = graph.cells([str(f) for f in bake_files], env={})
    except RocmBakeError:
        return {}, {}   # no component table (ARCHS): nothing is locked
    out: dict[str, BakeTarget] = {}
    for cell in cells:
        if cell.target and cell.target in by_name and cell.component not in out:
            out[cell.component] = by_name[cell.target]
    return out, {c.target: c.component for c in cells if c.target}


def _installs(parsed: Dockerfile) -> bool:
    return any(i.keyword == "RUN" and _PIP_INSTALL.search(i.body)
               for s in parsed.stages for i in s.instructions)


class _Deriver:
    def __init__(self, root: Path, metadata: Metadata, config: Config,
                 variables: Mapping[str, object], python: str,
                 components: dict[str, BakeTarget], cells: dict[str, str],
                 dists: Mapping[str, tuple[str, ...]]) -> None:
        self.root, self.metadata, self.config = root, metadata, config
        self.variables, self.python, self.components = variables, python, components
        self.cells = cells
        self.dists = dists                  # context -> its wheels
        self.files = Dockerfiles()
        self.upstream = {c.dockerfile: c for c in config.components}
        self._memo: dict[str, list[Layer]] = {}
        self._added: dict[str, list[Layer]] = {}
        self._parents: dict[str, list[str]] = {}

    def added(self, component: str) -> list[Layer]:
        """What the component's own stages add over the images they are built FROM."""
        return self._added.get(component, [])

    def parents(self, component: str) -> list[str]:
        return self._parents.get(component, [])

    def ancestors(self, component: str) -> set[str]:
        out: set[str] = set()
        for parent in self.parents(component):
            out |= {parent, *self.ancestors(parent)}
        return out

    def children(self, component: str) -> list[str]:
        return [c for c, parents in self._parents.items() if component in parents]

    def layers(self, component: str, seen: tuple[str, ...] = ()) -> list[Layer]:
        if component in seen:
            raise LintError(f"lock inputs: component {component} is built FROM itself "
                            f"({' -> '.join((*seen, component))})")
        if component not in self._memo:
            self._memo[component] = self._layers(component, (*seen, component))
        return self._memo[component]

    def _layers(self, component: str, seen: tuple[str, ...]) -> list[Layer]:
        target = self.components[component]
        assert target.dockerfile is not None
        parsed = self.files.get(target.dockerfile)
        contexts = self._context_components(target)
        inherited: list[Layer] = []
        mounted: list[Layer] = []
        parents: list[str] = []
        for name in dict.fromkeys(_FROM.findall(target.dockerfile.read_text(encoding="utf-8"))):
            if name in contexts:
                inherited += self.layers(contexts[name], seen)
                parents.append(contexts[name])
        for source in self._mounts(parsed):
            mounted += self._runtime(source, contexts)
        self._parents[component] = list(dict.fromkeys(parents))
        self._added[component] = [*mounted, *self._own(component, target, parsed)]
        return [*inherited, *self._added[component]]

    def _context_components(self, target: BakeTarget) -> dict[str, str]:
        """Named context -> the component whose cell its ``target:`` builds."""
        out = {}
        for name, value in target.contexts.items():
            match = _TARGET.match(str(value))
            if match and match.group(1) in self.cells:
                out[name] = self.cells[match.group(1)]
        return out

    @staticmethod
    def _mounts(parsed: Dockerfile) -> list[str]:
        names = []
        for stage in parsed.stages:
            for instruction in stage.instructions:
                if instruction.keyword == "RUN":
                    for mount in instruction.flags.get("mount", []):
                        source = csv_options(mount).get("from", "")
                        if source:
                            names.append(source)
        return list(dict.fromkeys(names))

    def _runtime(self, source: str, contexts: Mapping[str, str]) -> list[Layer]:
        out = []
        for dist in self.dists.get(source, ()):
            out += self._built(dist)
        component = contexts.get(source)
        target = self.components.get(component or "")
        declared = self.upstream.get(relative(target.dockerfile, self.root)) \
            if target and target.dockerfile else None
        if declared is not None:
            base = upstream.resolve(declared.base, self.variables, f"component {declared.name}")
            out += [self.file(f"{base}/{path}", set())
                    for path in declared.runtime]
        return out

    def _own(self, component: str, target: BakeTarget, parsed: Dockerfile) -> list[Layer]:
        assert target.dockerfile is not None
        text = target.dockerfile.read_text(encoding="utf-8")
        out = []
        for dist in self.dists.get(component, ()):   # the wheels it builds
            out += self._built(dist)
        for folder, name in dict.fromkeys(conformance.LOCAL_REQUIREMENTS.findall(text)):
            local = target.dockerfile.parent / folder / name
            if folder == "requirements" and local.is_file():
                text = conformance.expand(local.read_text(encoding="utf-8"), self.variables)
                lines = [line for line, _ in conformance.requirement_lines(text, str(local))]
                out.append(Layer(relative(local, self.root), tuple(lines)))
        out += self._copies(relative(target.dockerfile, self.root), parsed)
        declared = self.upstream.get(relative(target.dockerfile, self.root))
        if declared is not None:
            stage = conformance.stage_drops(parsed)
            base = upstream.resolve(declared.base, self.variables, f"component {component}")
            sets = conformance.stage_sets(parsed)
            for path in (*declared.installs, *declared.runtime):
                out.append(self.file(f"{base}/{path}", stage.get(path, set()),
                                     conformance.drops_torch(parsed), sets.get(path)))
        return out

    def _copies(self, dockerfile: str, parsed: Dockerfile) -> list[Layer]:
        """The stored copies standing in for source files the stage installs whose copy at
        the pin could not be had (upstream.toml ``[[nearest-copy]]``), less what the stage
        drops from those files first."""
        drops = conformance.stage_drops(parsed)
        out = []
        for copy in self.config.copies:
            if copy.dockerfile != dockerfile:
                continue
            if not self.variables.get(copy.pin):
                raise LintError(f"upstream.toml [[nearest-copy]] {copy.repo} {copy.path}: pin "
                                f"{copy.pin} is not a non-empty bake variable")
            dropped = drops.get(copy.file, set())
            out.append(Layer(copy.origin(self.variables), tuple(
                line for line in copy.requires
                if canonical(Requirement(line).name) not in dropped)))
        return out

    def _built(self, dist: str) -> list[Layer]:
        """The built wheel's own requirements, as its source declares them (``locks.built``)."""
        read = builtmeta.requires(dist, self.config, self.metadata, self.variables, self.root)
        if not read.requires:
            return []
        return [Layer(" + ".join(read.sources) or f"upstream.toml [built] {dist}",
                      read.requires)]

    def file(self, url: str, dropped: set[str], torch: bool = False,
             sets: Mapping[str, str] | None = None) -> Layer:
        text = conformance.requirement_text(self.metadata, url)
        if sets:   # set-requirement.py's replacements, line for line
            text = "".join(sets.get(line.rstrip("\r\n"), line.rstrip("\r\n")) + "\n"
                           for line in text.splitlines())
        kept = []
        for line, requirement in conformance.requirement_lines(text, url):
            if canonical(requirement.name) in dropped or (torch and "torch" in line.lower()):
                continue
            kept.append(line)
        return Layer(url, tuple(kept))


def _unmet(pin: Requirement, later: list[Requirement]) -> bool:
    version = next(s.version for s in pin.specifier if s.operator == "==")
    return any(canonical(r.name) == canonical(pin.name) and r.specifier
               and not r.specifier.contains(version, True) for r in later)


def _exact(line: str) -> str | None:
    requirement = Requirement(line)
    if any(s.operator == "==" for s in requirement.specifier):
        return canonical(requirement.name)
    return None


def _merge(layers: list[Layer]) -> tuple[str, ...]:
    """The layers' requirements, a later exact pin replacing earlier exact pins of its name,
    and so does a later requirement the earlier exact pin does not meet (pip installs the
    later layer over the earlier image's version)."""
    kept: list[str] = []
    for layer in layers:
        pinned = {name for name in map(_exact, layer.lines) if name}
        later = [Requirement(line) for line in layer.lines]
        kept = [line for line in kept if _exact(line) not in pinned
                and not (_exact(line) and _unmet(Requirement(line), later))]
        kept += layer.lines
    return tuple(sorted(dict.fromkeys(kept), key=lambda line: (line.lower(), line)))
