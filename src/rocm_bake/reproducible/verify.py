"""Reproducibility check: build one target twice from empty caches and compare the images.

Each build runs ``docker buildx bake --no-cache`` with the target's output replaced by
``type=oci,dest=FILE`` with the attributes every build exports its images with
(``rocm_bake.docker.exporters.reproducible``: ``rewrite-timestamp=true``, OCI media types), default
attestations off (their build
timestamps would differ by design). The target must pass a ``SOURCE_DATE_EPOCH`` build arg --
in rocm-bake's bake files, a variable holding the pins' commit date. The first build's tarball
is then arch-audited against the target's cell arch (archaudit.cells).

What is compared is each image's identity (reprodiff.identity: its config without the history,
so every layer's diff_id and the runtime config); its manifest digest is the engine's encoding
of it (the layers' compression, the history's texts), reported with the engine's version
(engineinfo), the same on one engine, another on another engine. When the builds differ, the
first differing layer and its files are named (reprodiff). With an expectation (``--expect
FILE``, written by ``--record FILE`` from a reproducible run: the identity on any machine and
any engine) the first build is also compared with it, and a differing input (a base image
named by a ``*_IMAGE`` build arg) is named as the cause rather than the build.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.archaudit import cells, inputs
from rocm_bake.builds import request as build
from rocm_bake.compilercache import health as cache_health
from rocm_bake.core.errors import EXIT_FAILED, RocmBakeError, UsageError
from rocm_bake.docker import bakecommand, exporters, preflight, skopeo
from rocm_bake.docker import progress as buildx_progress
from rocm_bake.docker.engineinfo import EngineVersion, engine_version
from rocm_bake.docker.images import image_layers
from rocm_bake.model import entitlements
from rocm_bake.oci import provenance
from rocm_bake.oci.registry import Reference, Registry
from rocm_bake.reproducible import diff as reprodiff

EPOCH_ARG = "SOURCE_DATE_EPOCH"
# The trust tier of every verify-repro build: it reads and writes no shared cache.
RELEASE_TIER = "release"
# A build arg whose name ends so names a base image: an input of the build.
IMAGE_ARG_SUFFIX = "_IMAGE"


@dataclass(frozen=True)
class Image:
    """What one build produced: its OCI tarball, the image's identity (reprodiff.identity) and
    this engine's encoding of it: the manifest digest, the config digest and the layers'
    blob digests."""

    tarball: Path
    digest: str                    # the manifest: this engine's encoding
    config: str
    layers: tuple[str, ...]
    identity: str = ""
    diff_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    target: str
    source_date_epoch: str
    images: tuple[Image, ...]
    # The arch audit of the first build's OCI tarball against the target's cell arch.
    arch_audit: cells.CellAudit | None = None
    # The first differing layer of the builds and its files (empty when reproducible).
    layer_changes: tuple[str, ...] = ()
    # How the first build differs from the expectation: None when none was given, () when
    # it matches.
    unexpected: tuple[str, ...] | None = None
    engine: EngineVersion = field(default_factory=EngineVersion)
    # The encoding line (reprodiff.encoding_note): the manifest digest, this engine's.
    encoding: str = ""

    @property
    def reproducible(self) -> bool:
        return len({image.identity for image in self.images}) == 1

    @property
    def one_encoding(self) -> bool:
        """The builds' manifests are the same too (one engine encodes one image one way)."""
        return len({image.digest for image in self.images}) == 1

    @property
    def as_expected(self) -> bool:
        return not self.unexpected

    @property
    def exit_code(self) -> int:
        """0 reproducible (and as expected) with the right archs, 1 digests differ, not the
        expected one or a wrong arch, 2 the audit could not read the image."""
        audit_code = self.arch_audit.exit_code if self.arch_audit is not None else 0
        if audit_code == EXIT_FAILED:
            return EXIT_FAILED
        return 1 if audit_code or not self.reproducible or not self.as_expected else 0

    def differences(self) -> list[str]:
        """What differs between the first build and each later one (the layers by content)."""
        first, out = self.images[0], []
        for number, other in enumerate(self.images[1:], 2):
            if other.identity == first.identity:
                continue
            if len(other.diff_ids) != len(first.diff_ids):
                out.append(f"build {number}: {len(other.diff_ids)} layers, build 1 has "
                           f"{len(first.diff_ids)}")
            differing = [f"build {number}: layer {i} differs ({a} vs {b})"
                         for i, (a, b) in enumerate(zip(first.diff_ids, other.diff_ids,
                                                        strict=False), 1) if a != b]
            out += differing or [f"build {number}: image config differs"]
        return out


def read_image(tarball: Path) -> Image:
    """The image in an OCI layout tarball written by buildx's ``type=oci`` exporter."""
    try:
        with tarfile.open(tarball) as archive:
            descriptor, manifest = inputs.oci_manifest(archive)
            config = inputs.oci_blob(archive, manifest["config"]["digest"])
    except (OSError, tarfile.TarError, KeyError, TypeError, AttributeError,
            json.JSONDecodeError, inputs.InputError) as exc:
        raise RocmBakeError(f"cannot read OCI tarball {tarball}: {exc}") from None
    try:
        return Image(tarball, descriptor["digest"], manifest["config"]["digest"],
                     tuple(layer["digest"] for layer in manifest.get("layers", [])),
                     reprodiff.identity(config),
                     tuple(str(d) for d in config.get("rootfs", {}).get("diff_ids", [])))
    except (KeyError, TypeError, AttributeError) as exc:
        raise RocmBakeError(f"cannot read OCI tarball {tarball}: no {exc} in its manifest"
                            ) from None


def _epoch(prepared: build.PreparedBuild, target: str) -> str:
    args = prepared.plan.targets[target].get("args") or {}
    value = args.get(EPOCH_ARG)
    if not value:
        raise RocmBakeError(f"target {target} passes no {EPOCH_ARG} build arg: give the bake "
                            f"file a {EPOCH_ARG} variable (the pins' commit date) and pass it")
    if not str(value).isdigit():
        raise RocmBakeError(f"{EPOCH_ARG}={value!r} of target {target} is not a Unix time")
    return str(value)


def prepare(target: str, files: Sequence[str], sets: Sequence[str] = (),
            env: Mapping[str, str] | None = None) -> tuple[build.PreparedBuild, str]:
    """Check the request against the bake model; returns the prepared build and the epoch.
    Every build of verify-repro is of the release tier (compilercache.tiers): no shared cache
    is read or written, so what it compares was made from no cache it did not make itself."""
    request = build.BuildRequest(targets=[target], files=list(files), sets=list(sets),
                                 tier=RELEASE_TIER)
    prepared = build.prepare(request, env)
    if target not in prepared.definition.target_names:
        raise UsageError(f"verify-repro needs one target (e.g. vllm-gfx950), {target!r} is a "
                         "group")
    return prepared, _epoch(prepared, target)


def fs_entitlements(prepared: build.PreparedBuild, writes: Sequence[Path],
                    cwd: Path | None = None) -> list[str]:
    """The grants for one repro build: the plan's, plus writing the OCI tarball's directory."""
    return entitlements.for_plan(prepared.plan, cwd, writes)


def build_once(prepared: build.PreparedBuild, target: str, epoch: str, tarball: Path,
               env: Mapping[str, str], extra: Sequence[str] = (), no_cache: bool = True
               ) -> Image:
    """One build of the target into an OCI tarball: ``--no-cache`` unless told otherwise,
    ``extra`` more ``--set`` overrides."""
    request = prepared.request
    output = f"{target}.output={exporters.oci_archive(tarball)}"
    argv = bakecommand.bake_argv(request.files, [target],
                                 [*prepared.target_overrides, output, *extra],
                                 progress="plain", no_cache=no_cache,
                            allow=fs_entitlements(prepared, [tarball.parent]))
    full_env = {**env, **prepared.invocation.env, EPOCH_ARG: epoch,
                "BUILDX_NO_DEFAULT_ATTESTATIONS": "1"}
    log = tarball.with_suffix(".log")
    with log.open("w") as handle:
        result = subprocess.run(argv, env=full_env, stdout=handle, stderr=subprocess.STDOUT,
                                check=False)
    if result.returncode != 0:
        lines = log.read_text(errors="replace").strip().splitlines() or ["no output"]
        raise RocmBakeError(f"build of {target} failed (exit {result.returncode}): "
                            f"{lines[-1][:200]} (log: {log})")
    return read_image(tarball)


def input_images(prepared: build.PreparedBuild) -> list[str]:
    """The base images of a build: every ``*_IMAGE`` build arg of its targets."""
    return sorted({str(value) for spec in prepared.plan.targets.values()
                   for name, value in (spec.get("args") or {}).items()
                   if name.endswith(IMAGE_ARG_SUFFIX) and value})


def input_layers(images: Sequence[str], env: Mapping[str, str]) -> dict[str, list[str]]:
    """Each input image's content: its layers' diff IDs in the engine (a reference pinned
    by digest is its own identity)."""
    out = {}
    for image in images:
        layers = image_layers(image, env)
        if layers is None:
            if "@sha256:" not in image:
                raise RocmBakeError(f"input image {image} is neither in the engine nor pinned "
                                    "by digest: cannot say what the build was made from")
            layers = [image.rsplit("@", 1)[1]]
        out[image] = layers
    return out


def verify(target: str, files: Sequence[str], workdir: Path, sets: Sequence[str] = (),
           runs: int = 2, env: Mapping[str, str] | None = None,
           expect: Path | None = None, record: Path | None = None) -> Verdict:
    """Build ``target`` ``runs`` times into ``workdir`` and compare what came out (with each
    other, and with the expectation ``expect``); a reproducible result is written to
    ``record``."""
    if runs < 2:
        raise UsageError("verify-repro needs at least 2 runs")
    expected = reprodiff.load(expect) if expect is not None else None
    if expected is not None and expected.target != target:
        raise UsageError(f"{expect} is the expectation of {expected.target}, not {target}")
    base_env = dict(os.environ if env is None else env)
    prepared, epoch = prepare(target, files, sets, base_env)
    base_env.update(preflight.ensure_builder({**base_env, **prepared.invocation.env}))
    workdir.mkdir(parents=True, exist_ok=True)
    images = tuple(build_once(prepared, target, epoch, workdir / f"build-{n}.tar", base_env)
                   for n in range(1, runs + 1))
    engine = engine_version(base_env)
    changes: list[str] = []
    for other in images[1:]:
        if other.identity != images[0].identity:
            changes = reprodiff.first_difference(images[0].tarball, other.tarball)
            break
    layers = input_layers(input_images(prepared), base_env) if expect or record else {}
    unexpected = None
    if expected is not None:
        unexpected = tuple(reprodiff.compare(expected, images[0].tarball, layers))
    encoding = reprodiff.encoding_note(expected, reprodiff.read(images[0].tarball), engine)
    verdict = Verdict(target, epoch, images, audit_image(prepared, target, images[0], base_env),
                      tuple(changes), unexpected, engine, encoding)
    if record is not None and verdict.reproducible:
        write_record(target, images[0].tarball, layers, engine, record)
    return verdict


def write_record(target: str, tarball: Path, layers: Mapping[str, list[str]],
                 engine: EngineVersion, path: Path) -> None:
    """--record: the expectation of this build, keeping the other engines' encodings a file
    already there records for the same image."""
    previous = None
    if path.is_file():
        try:
            previous = reprodiff.load(path)
        except UsageError:
            previous = None                # another format or target: written anew
    if previous is not None and previous.target != target:
        previous = None
    reprodiff.save(reprodiff.record(target, tarball, layers, engine, previous), path)


def audit_image(prepared: build.PreparedBuild, target: str, image: Image,
                env: Mapping[str, str]) -> cells.CellAudit | None:
    """The arch audit of a built image's OCI tarball against the target's cell arch (None
    when the bake files have no cells: no GPU_ARCHS)."""
    archs = build.cell_archs(prepared.definition)
    if not archs:
        return None
    arch = cells.cell_arch(target, archs)
    tarball = str(image.tarball)
    return cells.audit_artifacts(target, arch, cells.Artifacts((tarball,), (tarball,)), env,
                                 cells.no_gpu_code(prepared.plan.targets[target]))


# --------------------------------------------------------------------------- published images

PLATFORM = "linux/amd64"


@dataclass(frozen=True)
class Published:
    """A published image rebuilt from its provenance: the registry's image identity against
    the rebuild's, and where they differ (the first differing layer and its files). The
    manifest digests are each engine's encoding: the same only on the same engine."""

    reference: str
    cell: str
    digest: str                    # the platform image manifest in the registry
    identity: str                  # the published image's (reprodiff.identity of its config)
    rebuilt: Image
    pins: dict[str, str]
    changes: tuple[str, ...] = ()
    engine: EngineVersion | None = None       # the pushing engine (its versions statement)
    rebuilt_engine: EngineVersion = field(default_factory=EngineVersion)

    @property
    def agrees(self) -> bool:
        return self.identity == self.rebuilt.identity


def verify_published(image: str, files: Sequence[str], workdir: Path,
                     env: Mapping[str, str] | None = None) -> Published:
    """Rebuild the published ``image`` from what its provenance says made it (the cell of its
    versions statement, built with its pins as the bake variables, ``--no-cache``, exported
    as every build exports) and compare the digests; when they differ, the published image is
    read from its registry (skopeo) and the first differing layer named."""
    reference = Reference.parse(image)
    registry = Registry(reference.host)
    made = _platform_record(image, provenance.read(registry, reference))
    if not made.cell:
        raise provenance.ProvenanceError(f"{image}: its versions statement names no cell (an "
                                         "image pushed by inv push or inv fleet.build has one)")
    base_env = dict(os.environ if env is None else env)
    sets = [f"{name}={value}" for name, value in sorted(made.pins.items())]
    prepared, epoch = prepare(made.cell, files, sets, base_env)
    base_env.update(preflight.ensure_builder({**base_env, **prepared.invocation.env}))
    workdir.mkdir(parents=True, exist_ok=True)
    rebuilt = build_once(prepared, made.cell, epoch, workdir / "rebuilt.tar", base_env)
    published = published_identity(registry, reference.repository, made.digest)
    changes: list[str] = []
    if rebuilt.identity != published:
        archive = workdir / "published.tar"
        skopeo.copy_to_archive(f"{reference.host}/{reference.repository}@{made.digest}",
                               archive, base_env)
        changes = reprodiff.first_difference(archive, rebuilt.tarball,
                                             ("in the published image", "in the rebuild"))
    return Published(image, made.cell, made.digest, published, rebuilt, dict(made.pins),
                     tuple(changes), EngineVersion.from_json(made.engine),
                     engine_version(base_env))


def published_identity(registry: Registry, repository: str, digest: str) -> str:
    """The identity of a platform image in a registry (its config, read by the registry API)."""
    manifest, _ = registry.manifest(repository, digest)
    try:
        config = json.loads(registry.blob(repository, str(manifest["config"]["digest"])))
        return reprodiff.identity(config)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise RocmBakeError(f"{repository}@{digest}: cannot read its image config: {exc}"
                            ) from None


def _platform_record(image: str, made: Sequence[provenance.Made]) -> provenance.Made:
    for record in made:
        if record.platform == PLATFORM:
            return record
    raise provenance.ProvenanceError(f"{image} has no {PLATFORM} image (it has: "
                                     f"{', '.join(m.platform for m in made) or 'none'})")


# --------------------------------------------------------------------------- cache invariance

CACHE_VARIABLE = "CACHE_TYPE"
# Dockerfile frontend build args, given to every target of a cell's build. The cache mounts'
# namespace: a cold cell's is new (every RUN --mount=type=cache starts empty), its warm cell
# reuses it, and no other build's cache mounts are touched. The RUN steps' hostname: part of
# each RUN step's cache key and of nothing the step writes, so a new one per cell makes every
# RUN step run again, on its cell's cache mounts. (--no-cache would do the second but not the
# first: a --no-cache build gets new, empty cache mounts, so a warm cell could never hit.)
MOUNT_NAMESPACE_ARG = "BUILDKIT_CACHE_MOUNT_NS"
HOSTNAME_ARG = "BUILDKIT_SANDBOX_HOSTNAME"


@dataclass(frozen=True)
class CacheCell:
    """One build of the cache-invariance check: its cache, cold (new cache mounts) or warm
    (right after the cold one, on its cache mounts)."""

    name: str                      # "none", "ccache cold", "ccache warm", ...
    cache_type: str
    cold: bool


CACHE_CELLS = (CacheCell("none", "none", True),
               CacheCell("ccache cold", "ccache", True), CacheCell("ccache warm", "ccache", False),
               CacheCell("sccache cold", "sccache", True),
               CacheCell("sccache warm", "sccache", False))


@dataclass(frozen=True)
class CacheBuild:
    cell: CacheCell
    image: Image
    stats: tuple[cache_health.CacheStats, ...]

    @property
    def hits(self) -> int:
        return sum(s.hits for s in self.stats)

    @property
    def misses(self) -> int:
        return sum(s.misses for s in self.stats)

    def line(self) -> str:
        counted = (f"{self.hits} hits / {self.misses} misses" if self.stats
                   else "no compiler cache called")
        return f"{self.cell.name}: {self.image.identity} ({counted})"


@dataclass(frozen=True)
class CacheVerdict:
    target: str
    builds: tuple[CacheBuild, ...]
    # Where a build differs from the first: "<cell>: " + the first differing layer and files.
    changes: tuple[str, ...] = ()
    # How the first build differs from the expectation (None: none given, (): as expected).
    unexpected: tuple[str, ...] | None = None

    @property
    def invariant(self) -> bool:
        return len({b.image.identity for b in self.builds}) == 1

    @property
    def warm_misses(self) -> list[str]:
        """The warm cells that compiled anything (a warm build is all hits)."""
        return [b.cell.name for b in self.builds if not b.cell.cold and (b.misses or not b.hits)]


def verify_cache_invariant(target: str, files: Sequence[str], workdir: Path,
                           sets: Sequence[str] = (), env: Mapping[str, str] | None = None,
                           expect: Path | None = None, record: Path | None = None,
                           cells: Sequence[CacheCell] = CACHE_CELLS) -> CacheVerdict:
    """Build ``target`` once per cache cell (every RUN step runs again: the layer cache never
    serves them; the compiler cache on the cell's cache mounts does), each exported as
    verify-repro exports, and compare every image with the first (and with the expectation):
    the compiler cache must never change the output."""
    expected = reprodiff.load(expect) if expect is not None else None
    if expected is not None and expected.target != target:
        raise UsageError(f"{expect} is the expectation of {expected.target}, not {target}")
    base_env = dict(os.environ if env is None else env)
    probe, _ = prepare(target, files, sets, base_env)
    if CACHE_VARIABLE not in {v.name for v in probe.definition.variables()}:
        raise UsageError(f"--cache-invariant needs a bake file with a {CACHE_VARIABLE} "
                         "variable (ccache, sccache or none)")
    base_env.update(preflight.ensure_builder({**base_env, **probe.invocation.env}))
    workdir.mkdir(parents=True, exist_ok=True)
    run = uuid.uuid4().hex[:8]
    builds = []
    for index, cell in enumerate(cells):
        prepared, epoch = prepare(target, files, [*sets, f"{CACHE_VARIABLE}={cell.cache_type}"],
                                  base_env)
        frontend = [f"*.args.{MOUNT_NAMESPACE_ARG}=rocm-bake-{run}-{cell.cache_type}",
                    f"*.args.{HOSTNAME_ARG}=rocm-bake-{run}-{index}"]
        tarball = workdir / f"{cell.name.replace(' ', '-')}.tar"
        image = build_once(prepared, target, epoch, tarball, base_env, frontend,
                           no_cache=False)
        log = tarball.with_suffix(".log").read_text(errors="replace").splitlines()
        stats = cache_health.stats_from_steps(buildx_progress.parse_plain(log))
        builds.append(CacheBuild(cell, image, tuple(stats)))
    changes = cache_changes(builds)
    unexpected = None
    layers = input_layers(input_images(probe), base_env) if expect or record else {}
    if expected is not None:
        unexpected = tuple(reprodiff.compare(expected, builds[0].image.tarball, layers))
    verdict = CacheVerdict(target, tuple(builds), tuple(changes), unexpected)
    if record is not None and verdict.invariant:
        write_record(target, builds[0].image.tarball, layers, engine_version(base_env), record)
    return verdict


def cache_changes(builds: Sequence[CacheBuild]) -> list[str]:
    """Where each build that differs from the first does: its cell, the first differing layer
    and its files (the object file or library a cache hit changed)."""
    changes: list[str] = []
    for other in builds[1:]:
        if other.image.identity != builds[0].image.identity:
            changes += [f"{other.cell.name}: {line}" for line in reprodiff.first_difference(
                builds[0].image.tarball, other.image.tarball,
                (f"in {builds[0].cell.name}", f"in {other.cell.name}"))]
    return changes
