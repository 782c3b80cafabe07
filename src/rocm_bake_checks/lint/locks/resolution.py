"""Family ``resolution``: every image's whole Python environment resolved before any build.

The model follows the rehearsal (``inv rehearse``, which runs the real Dockerfiles): each of
the rehearsal's deliberate bad cases stops here at the step it stops there, and the tree that
rehearses clean resolves clean (tests/lint/test_rehearsal_agreement.py).

For every target of the bake files, the ``pip install -r .../locks/<lock>.txt`` steps its
stage, the stages it is built ``FROM`` and the images of its ``FROM`` contexts make are
replayed in order (a parent image's first), each step with the cell's own wheels the ``RUN``
mounts (``--mount=from=<context>``: a context's component wheels, ``conformance.context_dists``,
and what its target's stage copies into ``/wheels``, e.g. the vLLM image's FlashAttention and
MoRI wheels; the same for every cell, a context a cell skips included).  Each step is resolved
OFFLINE by uv's resolver (``uv pip compile --offline --no-index --find-links``) against
stand-in wheels made here: one per locked distribution, carrying its real metadata
(``locks.metadata``: recorded from PyPI), and one per built distribution, carrying what its source
declares at the pin (``locks.built``; the component's upstream ``runtime`` files for the wheel
named after it, with the pins upstream's pin script writes into them at build time, e.g.
vLLM's ``amd-aiter==``, ``torch==``: ``locks.inputs.runtime_requires``).  A source file the
same ``RUN`` then installs ``--no-index`` (torch's requirements.txt, as its stored copy) must
be met by what is installed.  Findings:

- ``resolve-unsatisfiable``: uv finds no solution (e.g. a wheel's ``pybind11>=3.0.1`` against
  the lock's ``pybind11==2.13.6``);
- ``resolve-unhashed``: a step needs a distribution its lock does not pin (or pins without a
  sha256): ``pip install --require-hashes`` refuses it, and ``--no-index`` finds none; or a
  cell's own wheel another wheel pins that the ``RUN`` does not mount (no index has it);
- ``resolve-downgrade``: a step installs an older version of a distribution a parent image
  installed (pip replaces it underneath the parent; a newer one, e.g. a build stage's own
  build tool over the base image's, is a finding only if ``pip check`` then fails);
- ``resolve-pip-check``: what ``pip check`` reports on the image's final environment.
- ``resolve-metadata``: a pin the recorded metadata snapshot lacks (run ``inv lock``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import graph
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint import conformance, supportedarchs, upstream
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.dockerfile import Dockerfile, Instruction, Stage, csv_options
from rocm_bake_checks.lint.findings import Finding, LintError, merge_cells
from rocm_bake_checks.lint.locks import built as builtmeta
from rocm_bake_checks.lint.locks import file as lockfile
from rocm_bake_checks.lint.locks import inputs as lockinputs
from rocm_bake_checks.lint.locks import metadata as lockmeta
from rocm_bake_checks.lint.stages import chain, runs
from rocm_bake_checks.lint.upstream import Metadata, canonical

RULES = ("resolve-unsatisfiable", "resolve-unhashed", "resolve-downgrade", "resolve-pip-check",
         "resolve-metadata")
_LOCK = re.compile(r"\bpip3?\s+install\b[^&;|]*?-r\s+\S*?locks/([A-Za-z0-9_.-]+\.txt)")
_NO_INDEX = re.compile(r"\bpip3?\s+install\b[^&;|]*?--no-index\b[^&;|]*?-r\s+([^\s&;|]+)")
_TARGET = re.compile(r"^target:(.+)$")
CELL_VERSION = "0+cell"   # a built distribution whose version no bake variable gives
CELLS = "the cell's wheels"
Found = tuple[Finding, str]   # a finding and the image it was seen in ("": any image)


@dataclass(frozen=True)
class Dist:
    name: str
    version: str
    requires: tuple[str, ...]
    python: str = ""


@dataclass(frozen=True)
class Step:
    image: str          # the bake target whose stage runs it
    file: str           # its Dockerfile (relative)
    line: int
    lock: str           # dockerfiles/locks/<x>.txt (relative)
    cells: tuple[str, ...]
    # what the RUN then installs with --no-index: (file, its requirement lines)
    no_index: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass
class Installed:
    dist: Dist
    image: str
    origin: str         # the lock (or "the cell's wheels") it came from


@dataclass
class _Run:
    findings: list[Found] = field(default_factory=list)
    env: dict[str, Installed] = field(default_factory=dict)


def check(definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
          root: Path, metadata: Metadata) -> list[Finding]:
    found: list[Found] = []
    for run in _images(definition, bake_files, targets, root, metadata).values():
        found += run.findings
    anywhere = {f for f, image in found if not image}
    return sorted({*anywhere, *merge_cells((f, i) for f, i in found if i)})


def sizes(definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
          root: Path, metadata: Metadata) -> dict[str, int]:
    """Image (a target, or a build stage of it) -> how many distributions its environment
    holds once its installs are replayed (benchmarks/lint_resolution.py)."""
    return {image: len(run.env)
            for image, run in _images(definition, bake_files, targets, root, metadata).items()}


def _images(definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
            root: Path, metadata: Metadata) -> dict[str, _Run]:
    context = _Context.build(definition, bake_files, targets, root, metadata)
    if context is None:
        return {}
    out: dict[str, _Run] = {}
    with tempfile.TemporaryDirectory(prefix="rocm-bake-resolve-") as tmp:
        context.wheels = Path(tmp)
        for target in targets:
            if target.dockerfile is None or target.name not in context.cells:
                continue
            for stage in context.stages(target):
                steps = context.steps(target, stage)
                if steps:
                    out[steps[-1].image] = context.image(target, stage)
    return out


def built_dists(definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
                root: Path, metadata: Metadata, runtime_files: bool = True) -> dict[str, Dist]:
    """Every distribution the cells build, with its version and ``Requires-Dist`` read from
    upstream (``locks.built``; with ``runtime_files``, also vLLM's and LMCache's requirements
    files as the snapshot holds them): the stand-in wheels of this family and of the
    rehearsal (``rocm_bake_checks.rehearse``)."""
    variables = {v.name: v.value for v in definition.variables()}
    config = conformance.with_components(upstream.load_config(metadata.settings.config),
                                         definition)
    owner = {d: c for c, ds in conformance.context_dists(definition).items() for d in ds}
    versions = {dist: _version(str(variables.get(
        entry.version or f"{owner.get(dist, dist).upper().replace('-', '_')}_REF") or ""))
        for dist, entry in config.built.items()}
    runtime = (lockinputs.runtime_requires(definition, bake_files, targets, root, metadata,
                                           config, versions) if runtime_files else {})
    built = {}
    for dist in config.built:
        read = builtmeta.requires(dist, config, metadata, variables, root)
        built[dist] = Dist(dist, versions[dist],
                           tuple(dict.fromkeys((*read.requires, *runtime.get(dist, ())))))
    return built


@dataclass(frozen=True)
class WithoutKernels:
    """A built distribution's build without GPU kernels: the environment variable and value
    that switch its setup.py to it (upstream.toml [supported-archs] without-kernels) and what
    that build requires (read from upstream with [built]'s without-kernels conditions true)."""

    env: str
    value: str
    requires: tuple[str, ...]


def built_without_kernels(definition: Definition, root: Path,
                          metadata: Metadata) -> dict[str, WithoutKernels]:
    """Every built distribution that has a build without GPU kernels, with that build's
    switch and requirements (the rehearsal's stand-in of it)."""
    variables = {v.name: v.value for v in definition.variables()}
    config = conformance.with_components(upstream.load_config(metadata.settings.config),
                                         definition)
    out = {}
    for declared in supportedarchs.load(metadata.settings.config):
        dist = canonical(declared.component)
        if declared.switch is None:
            continue
        read = builtmeta.requires(dist, config, metadata, variables, root, without_kernels=True)
        out[dist] = WithoutKernels(declared.switch.env, declared.switch.value, read.requires)
    return out


@dataclass
class _Context:
    root: Path
    targets: dict[str, BakeTarget]
    cells: dict[str, str]                   # cell target -> component
    built: dict[str, Dist]
    locked: dict[str, lockmeta.Dist]
    python: str
    platform: str
    files: Dockerfiles = field(default_factory=Dockerfiles)
    dists: dict[str, tuple[str, ...]] = field(default_factory=dict)   # context -> its wheels
    copies: tuple[upstream.NearestCopy, ...] = ()
    wheels: Path = Path()
    memo: dict[tuple[Step, ...], _Run] = field(default_factory=dict)
    made: set[str] = field(default_factory=set)

    @classmethod
    def build(cls, definition: Definition, bake_files: list[Path], targets: list[BakeTarget],
              root: Path, metadata: Metadata) -> _Context | None:
        try:
            cells = graph.cells([str(f) for f in bake_files], env={})
        except RocmBakeError:
            return None
        variables = {v.name: v.value for v in definition.variables()}
        built = built_dists(definition, bake_files, targets, root, metadata)
        # The builds without GPU kernels (AITER Triton-only for gfx1201) must be readable too:
        # the rehearsal stands them in from the same upstream facts, so `inv lint --online
        # --record` records them with the rest.
        built_without_kernels(definition, root, metadata)
        return cls(root, {t.name: t for t in targets},
                   {c.target: c.component for c in cells if c.target}, built,
                   lockmeta.load(root / lockmeta.SNAPSHOT),
                   str(variables.get("PYTHON_VERSION") or "3.12"),
                   lockinputs.platform(variables), dists=conformance.context_dists(definition),
                   copies=upstream.load_config(metadata.settings.config).copies)

    # -- the install steps of an image ---------------------------------------------------
    def stages(self, target: BakeTarget) -> list[str]:
        """The target's stage and every stage it is built from that installs a lock (a build
        stage's environment is an image of its own, e.g. vLLM's ``deps``)."""
        assert target.dockerfile is not None
        parsed = self.files.get(target.dockerfile)
        stage = parsed.stage(target.stage) if target.stage else parsed.stages[-1]
        if stage is None:
            return []
        return [s.name or str(s.index) for s in parsed.reachable(stage)
                if s is stage or any(_LOCK.search(i.body.replace("\\\n", " "))
                                     for i in runs(s))]

    def steps(self, target: BakeTarget, name: str | None = None,
              seen: tuple[str, ...] = ()) -> list[Step]:
        if target.dockerfile is None or target.name in seen:
            return []
        parsed = self.files.get(target.dockerfile)
        own = parsed.stage(target.stage) if target.stage else parsed.stages[-1]
        stage = parsed.stage(name) if name else own
        if stage is None:
            return []
        image = target.name if stage is own else f"{target.name} (stage {stage.name})"
        stages = list(reversed(chain(parsed, stage)))
        out: list[Step] = []
        parent = _TARGET.match(target.contexts.get(stages[0].base.name, ""))
        if parent and parent.group(1) in self.targets:
            out += self.steps(self.targets[parent.group(1)], None, (*seen, target.name))
        component = self.cells.get(target.name, "")
        for current in stages:
            for instruction in runs(current):
                body = instruction.body.replace("\\\n", " ")
                match = _LOCK.search(body)
                if match:
                    lock = relative(target.dockerfile.parent / "locks" / match.group(1),
                                    self.root)
                    out.append(Step(image, relative(target.dockerfile, self.root),
                                    instruction.line, lock,
                                    self._mounted(target, parsed, instruction, component),
                                    self._no_index(target.dockerfile, parsed,
                                                   body[match.end():])))
        return out

    def _no_index(self, dockerfile: Path, parsed: Dockerfile, after: str
                  ) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The source files the RUN installs ``--no-index`` after its lock (torch's
        requirements.txt), with their requirement lines: those of the file's stored copy
        (upstream.toml ``[[nearest-copy]]``, the first for the file: the one the rehearsal's
        stand-in tree holds, rehearse/sources.py), less what the stage drops from it first
        (drop-requirement.py).  A file no copy stands for is not modelled."""
        name = relative(dockerfile, self.root)
        drops = conformance.stage_drops(parsed)
        out = []
        for file in _NO_INDEX.findall(after):
            copy = next((c for c in self.copies if c.dockerfile == name and c.file == file),
                        None)
            if copy is not None:
                dropped = drops.get(file, set())
                out.append((file, tuple(line for line in copy.requires
                                        if canonical(Requirement(line).name) not in dropped)))
        return tuple(out)

    def _mounted(self, target: BakeTarget, parsed: Dockerfile, instruction: Instruction,
                 component: str) -> tuple[str, ...]:
        out: list[str] = []
        for mount in instruction.flags.get("mount", []):
            source = csv_options(mount).get("from", "")
            if source:
                out += self._wheels(target, parsed, source, component, (target.name,))
        return tuple(dict.fromkeys(d for d in out if d in self.built))

    def _wheels(self, target: BakeTarget, parsed: Dockerfile, source: str, component: str,
                seen: tuple[str, ...]) -> list[str]:
        """The distributions in ``/wheels`` of ``source``, a stage of ``parsed`` (the file of
        ``target``, a cell of ``component``) or one of ``target``'s named contexts: a stage
        mapped to upstream's holds its wheels (vLLM's ``amdsmi``), another stage what
        ``_stage_wheels`` says; a context its component's wheels (the bake file's ``WHEELS``,
        for every cell alike, one that skips it too) and what its target's stage copies into
        ``/wheels`` (the vLLM image carries FlashAttention's and MoRI's wheels beside its own)."""
        stage = parsed.stage(source)
        if stage is not None:
            return list(self.dists.get(source, ())) or \
                self._stage_wheels(target, parsed, stage, component, seen)
        out = list(self.dists.get(source, ()))
        context = _TARGET.match(target.contexts.get(source, ""))
        other = self.targets.get(context.group(1)) if context else None
        if other is not None and other.dockerfile is not None and other.name not in seen:
            theirs = self.files.get(other.dockerfile)
            top = theirs.stage(other.stage) if other.stage else theirs.stages[-1]
            if top is not None:
                out += self._stage_wheels(other, theirs, top, self.cells.get(other.name, ""),
                                          (*seen, other.name))
        return out

    def _stage_wheels(self, target: BakeTarget, parsed: Dockerfile, stage: Stage,
                      component: str, seen: tuple[str, ...]) -> list[str]:
        """What a stage of the component's own file holds in /wheels: the component's own
        distributions, and what it has from the image it is built FROM and what it copies
        into /wheels (``COPY --from=X ... /wheels/``), X a stage or a named context."""
        out = list(self.dists.get(component, ()))
        for ref in stage.refs:
            if ref.how == "COPY --from" and not _into_wheels(stage, ref.line):
                continue
            if ref.how not in ("FROM", "COPY --from"):
                continue   # a RUN's mounts are read, never kept
            earlier = parsed.stage(ref.name)
            if earlier is not None and earlier.index >= stage.index:
                continue
            out += self._wheels(target, parsed, ref.name, component, seen)
        return out

    # -- replaying them ------------------------------------------------------------------
    def image(self, target: BakeTarget, stage: str) -> _Run:
        return self._replay(tuple(self.steps(target, stage)))

    def _replay(self, steps: tuple[Step, ...]) -> _Run:
        if steps in self.memo:
            return self.memo[steps]
        run = _Run()
        if steps:
            before = self._replay(steps[:-1])
            run.env = dict(before.env)
            run.findings = list(before.findings)
            run.findings += self._step(steps[-1], run.env)
            run.findings += self._unindexed(steps[-1], run.env)
            run.findings += self._pip_check(steps[-1], run.env)
        self.memo[steps] = run
        return run

    def _step(self, step: Step, env: dict[str, Installed]) -> list[Found]:
        path = self.root / step.lock
        if not path.is_file():
            return [self._finding(step, "resolve-unhashed", f"{step.lock} does not exist: "
                                  "run `inv lock`")]
        pins = lockmeta.lock_pins(path.read_text(encoding="utf-8"))
        out: list[Found] = []
        dists: dict[str, Dist] = {}
        for name, pin in pins.items():
            recorded = self.locked.get(lockmeta.key(name, pin.version))
            if recorded is None:
                out.append((Finding(step.lock, pin.line, "resolve-metadata",
                                    f"{name}=={pin.version}: not in {lockmeta.SNAPSHOT} (the "
                                    "locked distributions' recorded metadata): run `inv lock`"),
                            ""))
                dists[name] = Dist(name, pin.version, ())
            else:
                dists[name] = Dist(name, pin.version, recorded.requires, recorded.python)
            if not pin.hashes:
                out.append(self._finding(step, "resolve-unhashed",
                                         f"{name}=={pin.version} has no --hash in {step.lock}: "
                                         "pip --require-hashes refuses it; run `inv lock`"))
        cells = {d: self.built[d] for d in step.cells}
        step_dists = {**dists, **cells}
        missing = self._unhashed(step, step_dists, env)
        out += list(missing.values())
        out += self._resolve(step, step_dists, env, set(missing))
        out += self._install(step, step_dists, env, set(cells))
        return out

    def _unindexed(self, step: Step, env: Mapping[str, Installed]) -> list[Found]:
        """``pip install --no-index -r FILE`` after the lock: with no index, a requirement
        of FILE (and of the extras it names) that the environment does not meet stops it
        ("No matching distribution found")."""
        out = []
        for file, lines in step.no_index:
            for line in lines:
                requirement = Requirement(line)
                if requirement.marker and not requirement.marker.evaluate(
                        _environment(self.python)):
                    continue
                for needed in [requirement, *self._extras(requirement, env)]:
                    had = env.get(canonical(needed.name))
                    if had is not None and needed.specifier.contains(had.dist.version, True):
                        continue
                    asks = f"{needed.name}{needed.specifier}" + (
                        "" if needed is requirement else f" (for {requirement.name}"
                        f"[{','.join(sorted(requirement.extras))}])")
                    state = (f"{step.lock} does not pin" if had is None else
                             f"{had.dist.name} {had.dist.version} (from {had.origin}) does "
                             "not meet")
                    out.append(self._finding(
                        step, "resolve-unhashed",
                        f"{file} then installed --no-index asks {asks}, which {state}: pip "
                        f"finds no distribution for it; add it to the inputs of {step.lock} "
                        "(`inv lock`)"))
        return out

    def _extras(self, requirement: Requirement, env: Mapping[str, Installed]
                ) -> list[Requirement]:
        """What the extras ``requirement`` names add, from its installed distribution."""
        had = env.get(canonical(requirement.name))
        if had is None:
            return []
        out = []
        for extra in sorted(requirement.extras):
            for line in had.dist.requires:
                added = Requirement(line)
                if added.marker is not None and "extra" in str(added.marker) \
                        and added.marker.evaluate({**_environment(self.python), "extra": extra}):
                    out.append(added)
        return out

    def _unhashed(self, step: Step, dists: Mapping[str, Dist], env: Mapping[str, Installed]
                  ) -> dict[str, Found]:
        out: dict[str, Found] = {}
        for dist in dists.values():
            for requirement in _requirements(dist, self.python):
                name = canonical(requirement.name)
                if name in dists or name in env or name in out:
                    continue
                out[name] = self._finding(step, "resolve-unhashed", self._unhashed_why(
                    step, dist, requirement, name))
        return out

    def _unhashed_why(self, step: Step, dist: Dist, requirement: Requirement, name: str) -> str:
        said = f"{dist.name} {dist.version} requires {requirement}, which "
        if name not in self.built:
            return (f"{said}{step.lock} does not pin by sha256: pip --require-hashes refuses "
                    f"it; add it to the inputs of {step.lock} (`inv lock`)")
        contexts = [c for c, ds in self.dists.items() if name in ds] or ["its component"]
        return (f"{said}is the cell's own wheel, and this RUN does not mount it (no index has "
                f"it): mount it (RUN --mount=type=bind,from={contexts[-1]},...)")

    def _resolve(self, step: Step, dists: Mapping[str, Dist], env: Mapping[str, Installed],
                 missing: set[str]) -> list[Found]:
        if not dists:
            return []
        available = {**{n: i.dist for n, i in env.items()}, **dists}
        for dist in available.values():
            self._wheel(dist)
        work = Path(tempfile.mkdtemp(dir=self.wheels, prefix="step-"))
        (work / "in.txt").write_text("".join(f"{d.name}=={d.version}\n"
                                             for d in dists.values()), encoding="utf-8")
        (work / "overrides.txt").write_text(
            "".join(f"{n} ; sys_platform == 'never'\n" for n in sorted(missing)),
            encoding="utf-8")
        links = self.wheels / "links"
        command = [lockfile.uv_binary(), "pip", "compile", "--quiet", "--no-config",
                   "--no-header", "--offline", "--no-index", "--find-links", str(links),
                   "--python", sys.executable,   # builds nothing: spares uv a search
                   "--no-build", "--python-version", self.python, "--python-platform",
                   self.platform, "--override", "overrides.txt", "--output-file", "out.txt",
                   "in.txt"]
        result = subprocess.run(command, cwd=work, capture_output=True, text=True,
                                check=False, env={"UV_NO_PROGRESS": "1", "PATH": "/usr/bin:/bin",
                                                  "UV_CACHE_DIR": str(self.wheels / "cache")})
        if result.returncode == 0:
            return []
        lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        reason = " ".join(line.lstrip("╰─▶ ").strip().removeprefix("cause: ")
                          for line in lines
                          if not line.startswith(("error:", "hint:")) or "Because" in line)
        return [self._finding(step, "resolve-unsatisfiable",
                              f"{step.lock} with the cell's wheels "
                              f"({', '.join(step.cells) or 'none'}) has no solution: "
                              f"{reason or ' | '.join(lines[:4])}; change {step.lock}'s inputs "
                              "(`inv lock`)")]

    def _install(self, step: Step, dists: Mapping[str, Dist], env: dict[str, Installed],
                 cells: set[str]) -> list[Found]:
        out = []
        for name, dist in dists.items():
            had = env.get(name)
            if had is not None and had.image != step.image \
                    and _older(dist.version, had.dist.version):
                out.append(self._finding(
                    step, "resolve-downgrade",
                    f"{step.lock} downgrades {name} {had.dist.version} (installed by its parent "
                    f"image from {had.origin}) with {dist.version}: the lock must extend "
                    f"{had.origin}'s pins; change {step.lock} (`inv lock`)"))
            origin = CELLS if name in cells else step.lock
            env[name] = Installed(dist, step.image, origin)
        return out

    def _pip_check(self, step: Step, env: Mapping[str, Installed]) -> list[Found]:
        out = []
        for name, installed in sorted(env.items()):
            for requirement in _requirements(installed.dist, self.python):
                other = env.get(canonical(requirement.name))
                if other is None and canonical(requirement.name) in self.built:
                    continue   # the cell's wheel a RUN does not mount: resolve-unhashed says so
                if other is None:
                    problem = "which is not installed"
                elif requirement.specifier.contains(other.dist.version, prereleases=True):
                    continue
                else:
                    problem = (f"but {other.dist.name} {other.dist.version} is installed "
                               f"(from {other.origin})")
                if step.image not in (installed.image, other.image if other else ""):
                    continue   # the parent image's own problem, reported there
                change = (other.origin if other and other.image == step.image
                          and other.origin != CELLS else
                          installed.origin if installed.origin != CELLS else step.lock)
                out.append(self._finding(
                    step, "resolve-pip-check",
                    f"pip check: {name} {installed.dist.version} (from {installed.origin}) "
                    f"requires {requirement}, {problem}; change {change} (`inv lock`)"))
        return out

    def _finding(self, step: Step, rule: str, message: str) -> Found:
        """The finding, and the image (cells that differ only by it are merged)."""
        return Finding(step.file, step.line, rule, message), step.image

    def _wheel(self, dist: Dist) -> None:
        tag = f"{dist.name}=={dist.version}"
        if tag not in self.made:
            self.made.add(tag)
            stand_in(self.wheels / "links", dist)


def _into_wheels(stage: Stage, line: int) -> bool:
    """The COPY at ``line`` of ``stage`` copies into /wheels."""
    return any(i.line == line and i.keyword in ("COPY", "ADD") and i.body.split()
               and (i.body.split()[-1].rstrip("/") == "/wheels"
                    or i.body.split()[-1].startswith("/wheels/"))
               for i in stage.instructions)


def _environment(python: str) -> dict[str, str]:
    """The images' marker environment: their Python, Linux x86_64, no extra."""
    return {"python_version": python, "python_full_version": f"{python}.0",
            "sys_platform": "linux", "platform_system": "Linux",
            "platform_machine": "x86_64", "os_name": "posix",
            "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "extra": ""}


def _requirements(dist: Dist, python: str) -> list[Requirement]:
    """``dist``'s requirements that apply in the images (their Python, Linux x86_64)."""
    environment = _environment(python)
    out = []
    for line in dist.requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate(environment):
            out.append(requirement)
    return out


def _older(new: str, old: str) -> bool:
    try:
        return Version(new) < Version(old)
    except InvalidVersion:
        return False


def _version(text: str) -> str:
    try:
        return str(Version(text.removeprefix("v"))) if text else CELL_VERSION
    except InvalidVersion:
        return CELL_VERSION


def stand_in(directory: Path, dist: Dist) -> Path:
    """A wheel with nothing in it but ``dist``'s metadata, for the offline resolver."""
    module = re.sub(r"[-.]+", "_", dist.name).lower()
    info = f"{module}-{dist.version}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {dist.name}\nVersion: {dist.version}\n"
                + (f"Requires-Python: {dist.python}\n" if dist.python else "")
                + "".join(f"Requires-Dist: {r}\n" for r in dist.requires))
    files = {f"{info}/METADATA": metadata,
             f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{info}/RECORD": ""}
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{module}-{dist.version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


__all__ = ["RULES", "LintError", "check", "sizes", "stand_in"]
