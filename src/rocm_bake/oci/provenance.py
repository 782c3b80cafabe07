"""What made a published image, attached to it in the registry and read back from there.

Every push asks buildx for SLSA provenance (``--attest type=provenance,mode=max``: the build
args, every material with its digest, the Dockerfile, the checkout's commit), which buildx
stores as a layer of the image's attestation manifest. After the push, :func:`attach` adds a
second in-toto statement to that attestation manifest, the *versions statement*
(:data:`VERSIONS_PREDICATE`): the pins and wheel versions the image's own
``/opt/rocm-bake/versions.json`` (``write-manifest.py``) records, or, for an image without one
(a wheels stage), the bake file's ``PINS``; the cell it was built as; the commit of this
repository; the engine that built it (its Docker and BuildKit versions: the image's manifest
digest is that engine's encoding, docs/reproducibility.md). It is written through the
registry API (the engine runs no scanner image), and the
tag is moved to the index that lists the new attestation manifest (the image manifests, and so
the image's layers and platform digests, stay as buildx pushed them).

:func:`read` reads both back from the registry alone: it works after the engine forgot the image.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import tarfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import IO, Any, cast
from urllib.parse import unquote

import zstandard

from rocm_bake.core.errors import HCLError, RocmBakeError, UsageError
from rocm_bake.model.bakefile import Definition
from rocm_bake.oci.registry import (
    INDEX_TYPES,
    Reference,
    Registry,
    canonical,
    platform_images,
)

ATTEST = "type=provenance,mode=max"
BAKE_OVERRIDE = f"*.attest={ATTEST}"         # buildx bake --set, for every target
VERSIONS_PREDICATE = "urn:rocm-bake:versions:v1"
SLSA_PREDICATES = ("https://slsa.dev/provenance/v0.2", "https://slsa.dev/provenance/v1")
STATEMENT_TYPE = "https://in-toto.io/Statement/v0.1"
IN_TOTO_TYPE = "application/vnd.in-toto+json"
PREDICATE_ANNOTATION = "in-toto.io/predicate-type"
MANIFEST_PATH = "opt/rocm-bake/versions.json"
_WRITES_MANIFEST = re.compile(r"write-manifest\.py\s+/" + re.escape(MANIFEST_PATH) + r"\b")
_BUILDKIT_METADATA = "https://mobyproject.org/buildkit@v1#metadata"
NOT_AUDITED = "not audited"


class ProvenanceError(RocmBakeError):
    """An image has no provenance, or its attestations cannot be read."""


# --------------------------------------------------------------------------- attaching


def attach(registry: Registry, reference: Reference, cell: str, pins: Mapping[str, str],
           commit: str, audit: Sequence[str] = (),
           engine: Mapping[str, str] | None = None) -> str:
    """Add the versions statement to every platform image of the index ``reference`` names
    (a tag that buildx just pushed with provenance) and move the tag to the new index; its
    digest. ``engine``: the Docker and BuildKit versions that built it
    (``EngineVersion.to_json``). Attaching again replaces the statement."""
    index, _ = registry.manifest(reference.repository, reference.ref)
    entries = _index_entries(index, reference)
    for image in platform_images(index):
        position = _attestation_position(entries, image["digest"], reference)
        manifest, _ = registry.manifest(reference.repository, entries[position]["digest"])
        predicate = {**versions_predicate(registry, reference.repository, image["digest"],
                                          cell, pins, commit), "audit": list(audit),
                     **({"engine": dict(engine)} if engine else {})}
        statement = {"_type": STATEMENT_TYPE, "predicateType": VERSIONS_PREDICATE,
                     "subject": [{"name": str(reference),
                                  "digest": {"sha256": image["digest"].removeprefix("sha256:")}}],
                     "predicate": predicate}
        data = canonical(statement)
        layer = {"mediaType": IN_TOTO_TYPE, "size": len(data),
                 "digest": registry.put_blob(reference.repository, data),
                 "annotations": {PREDICATE_ANNOTATION: VERSIONS_PREDICATE}}
        manifest["layers"] = [*(entry for entry in manifest.get("layers") or []
                                if _predicate(entry) != VERSIONS_PREDICATE), layer]
        body = canonical(manifest)
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        registry.put_manifest(reference.repository, digest, manifest)
        entries[position] = {**entries[position], "digest": digest, "size": len(body)}
    return registry.put_manifest(reference.repository, reference.tag, index)


def versions_predicate(registry: Registry, repository: str, image_digest: str, cell: str,
                       pins: Mapping[str, str], commit: str) -> dict[str, Any]:
    """The versions statement's predicate for one platform image."""
    manifest = image_versions(registry, repository, image_digest)
    if manifest is None:
        return {"cell": cell, "commit": commit, "pins": dict(pins), "pins_from": "bake file",
                "wheels": []}
    return {"cell": cell, "commit": commit, "pins": manifest.get("pins") or {},
            "pins_from": "/" + MANIFEST_PATH, "wheels": manifest.get("wheels") or [],
            "python": manifest.get("python"), "rocm": manifest.get("rocm"),
            **({"resolved": manifest["resolved"]} if manifest.get("resolved") else {})}


def image_versions(registry: Registry, repository: str, image_digest: str
                   ) -> dict[str, Any] | None:
    """The image's ``/opt/rocm-bake/versions.json``, read from the one layer that wrote it last
    (found by the image config's history: the step that ran write-manifest.py), streamed only
    up to that file; None when no step of the image wrote it."""
    manifest, _ = registry.manifest(repository, image_digest)
    config = json.loads(registry.blob(repository, manifest["config"]["digest"]))
    layer = writing_layer(config.get("history") or [])
    layers = manifest.get("layers") or []
    if layer is None:
        return None
    if layer >= len(layers):
        raise ProvenanceError(f"{repository}@{image_digest}: its history names layer {layer}, "
                              f"the image has {len(layers)}")
    descriptor = layers[layer]
    response = registry.open_blob(repository, descriptor["digest"])
    try:
        found = _file_in_layer(cast("IO[bytes]", response.raw),
                               str(descriptor.get("mediaType", "")))
    finally:
        response.close()
    if found is None:
        raise ProvenanceError(f"{repository}@{image_digest}: the layer that ran "
                              f"write-manifest.py holds no /{MANIFEST_PATH}")
    document: dict[str, Any] = json.loads(found)
    return document


def writing_layer(history: list[dict[str, Any]]) -> int | None:
    """The index (among the layers) of the last step that ran ``write-manifest.py
    /opt/rocm-bake/versions.json``, or None."""
    found, position = None, 0
    for step in history:
        if step.get("empty_layer"):
            continue
        if _WRITES_MANIFEST.search(str(step.get("created_by", ""))):
            found = position
        position += 1
    return found


def _file_in_layer(stream: IO[bytes], media_type: str) -> bytes | None:
    """MANIFEST_PATH from a layer tarball read as a stream (gzip, zstd or plain), stopping at it."""
    source: IO[bytes] = stream
    if media_type.endswith("+zstd") or media_type.endswith(".zstd"):
        source = zstandard.ZstdDecompressor().stream_reader(stream)
        mode = "r|"
    else:
        mode = "r|gz" if "gzip" in media_type or media_type.endswith("tar.gzip") else "r|"
    with tarfile.open(fileobj=source, mode=mode) as archive:  # type: ignore[call-overload]
        for member in archive:
            if member.isfile() and member.name.removeprefix("./").lstrip("/") == MANIFEST_PATH:
                extracted = archive.extractfile(member)
                return extracted.read() if extracted is not None else None
    return None


# --------------------------------------------------------------------------- reading back


@dataclass
class Made:
    """What made one platform image, from its provenance and versions statement."""

    reference: str
    platform: str
    digest: str                                   # the platform image manifest
    cell: str = ""
    pins: dict[str, str] = field(default_factory=dict)
    pins_from: str = ""
    wheels: list[dict[str, str]] = field(default_factory=list)
    base: list[str] = field(default_factory=list)          # image materials, NAME@DIGEST
    args: dict[str, str] = field(default_factory=dict)     # build args
    target: str = ""
    dockerfile: str = ""                                   # NAME sha256:...
    context_dockerfiles: list[str] = field(default_factory=list)   # of its target: contexts
    commit: str = ""
    audit: list[str] = field(default_factory=list)         # the push's arch audit lines
    engine: dict[str, str] = field(default_factory=dict)   # docker, buildkit: who built it
    provenance: bool = False
    versions: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def read(registry: Registry, reference: Reference) -> list[Made]:
    """What made each platform image of ``reference``, read from the registry."""
    index, _ = registry.manifest(reference.repository, reference.ref)
    entries = _index_entries(index, reference)
    made = []
    for image in platform_images(index):
        platform = image.get("platform") or {}
        record = Made(str(reference), "/".join(str(platform[k]) for k in ("os", "architecture")
                                               if k in platform), image["digest"])
        position = _attestation_position(entries, image["digest"], reference)
        manifest, _ = registry.manifest(reference.repository, entries[position]["digest"])
        for layer in manifest.get("layers") or []:
            kind = _predicate(layer)
            if kind in SLSA_PREDICATES or kind == VERSIONS_PREDICATE:
                statement = json.loads(registry.blob(reference.repository, layer["digest"]))
                _fill(record, kind, statement.get("predicate") or {})
        if not record.provenance:
            raise ProvenanceError(f"{reference} ({record.platform}) has no SLSA provenance")
        made.append(record)
    return made


def _fill(record: Made, kind: str, predicate: dict[str, Any]) -> None:
    if kind == VERSIONS_PREDICATE:
        record.versions = True
        record.cell = str(predicate.get("cell") or "")
        record.pins = {str(k): str(v) for k, v in (predicate.get("pins") or {}).items()}
        record.pins_from = str(predicate.get("pins_from") or "")
        record.wheels = list(predicate.get("wheels") or [])
        record.commit = record.commit or str(predicate.get("commit") or "")
        record.audit = [str(line) for line in predicate.get("audit") or []]
        engine = predicate.get("engine")
        record.engine = ({str(k): str(v) for k, v in engine.items()}
                         if isinstance(engine, dict) else {})
        return
    record.provenance = True
    if "buildDefinition" in predicate:                     # SLSA v1
        request = predicate["buildDefinition"].get("externalParameters", {}).get("request", {})
        args = request.get("args") or {}
        materials = predicate["buildDefinition"].get("resolvedDependencies") or []
        metadata = (predicate.get("runDetails", {}).get("metadata") or {})
    else:                                                  # SLSA v0.2
        args = (predicate.get("invocation", {}).get("parameters") or {}).get("args") or {}
        materials = predicate.get("materials") or []
        metadata = predicate.get("metadata") or {}
    record.args = {k.removeprefix("build-arg:"): str(v) for k, v in sorted(args.items())
                   if k.startswith("build-arg:")}
    record.target = str(args.get("target", ""))
    record.base = [f"{_image_name(m['uri'])}@sha256:{m['digest']['sha256']}"
                   for m in materials if str(m.get("uri", "")).startswith("pkg:docker/")
                   and "sha256" in (m.get("digest") or {})]
    buildkit = metadata.get(_BUILDKIT_METADATA) or {}
    revision = str((buildkit.get("vcs") or {}).get("revision") or "")
    record.commit = revision or record.commit
    entry = str((predicate.get("invocation", {}).get("configSource") or {}).get("entryPoint")
                or args.get("filename") or "Dockerfile")
    for name, digest in _dockerfiles(buildkit):
        if name == entry and not record.dockerfile:
            record.dockerfile = f"{name} {digest}"
        else:
            record.context_dockerfiles.append(f"{name} {digest}")
    if not record.pins and "ROCM_BAKE_PINS" in record.args:
        record.pins = {str(k): str(v) for k, v in json.loads(record.args["ROCM_BAKE_PINS"]).items()}
        record.pins_from = "build arg ROCM_BAKE_PINS"


def _dockerfiles(buildkit: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(file name, sha256 digest) of every Dockerfile the build read (mode=max)."""
    for info in (buildkit.get("source") or {}).get("infos") or []:
        if info.get("language") == "Dockerfile" and info.get("data"):
            data = base64.b64decode(info["data"])
            yield str(info.get("filename", "Dockerfile")), \
                "sha256:" + hashlib.sha256(data).hexdigest()


def _image_name(uri: str) -> str:
    """``pkg:docker/rocm-bake/hip@test?platform=linux%2Famd64`` -> ``rocm-bake/hip:test``."""
    path = unquote(uri.removeprefix("pkg:docker/").split("?", 1)[0])
    name, _, version = path.rpartition("@")
    return f"{name}:{version}" if name and not version.startswith("sha256") else path


def _index_entries(index: dict[str, Any], reference: Reference) -> list[dict[str, Any]]:
    if index.get("mediaType") not in INDEX_TYPES or "manifests" not in index:
        raise ProvenanceError(f"{reference} is a single image manifest, no index: it was pushed "
                              f"without attestations (buildx --attest {ATTEST})")
    entries: list[dict[str, Any]] = index["manifests"]
    return entries


def _attestation_position(entries: list[dict[str, Any]], digest: str,
                          reference: Reference) -> int:
    for position, entry in enumerate(entries):
        annotations = entry.get("annotations") or {}
        if (annotations.get("vnd.docker.reference.type") == "attestation-manifest"
                and annotations.get("vnd.docker.reference.digest") == digest):
            return position
    raise ProvenanceError(f"{reference}: image {digest} has no attestation manifest (pushed "
                          f"without --attest {ATTEST})")


def _predicate(layer: Mapping[str, Any]) -> str:
    return str((layer.get("annotations") or {}).get(PREDICATE_ANNOTATION, ""))


# --------------------------------------------------------------------------- after a push


def bake_pins(definition: Definition) -> dict[str, str]:
    """The bake file's ``PINS`` map (empty when it declares none)."""
    try:
        value = definition.value("PINS")
    except HCLError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def pushed_images(metadata: Mapping[str, Any]) -> dict[str, list[str]]:
    """``docker buildx bake --metadata-file``'s record: target -> the image names it pushed."""
    out: dict[str, list[str]] = {}
    for target, record in sorted(metadata.items()):
        if isinstance(record, dict) and record.get("containerimage.digest"):
            names = [n for n in str(record.get("image.name", "")).split(",") if n]
            if names:
                out[target] = names
    return out


def attach_pushed(metadata: Mapping[str, Any], pins: Mapping[str, str], commit: str,
                  audits: Mapping[str, list[str]] | None = None,
                  engine: Mapping[str, str] | None = None) -> list[str]:
    """The versions statement on every image a bake pushed (its metadata file), with the arch
    audit of its cell (``audits``: cell -> its lines) and the engine that built it; one line
    per image."""
    lines = []
    clients: dict[str, Registry] = {}
    for target, names in pushed_images(metadata).items():
        for name in names:
            reference = Reference.parse(name)
            registry = clients.setdefault(reference.host, Registry(reference.host))
            digest = attach(registry, reference, target, pins, commit,
                            (audits or {}).get(target, []), engine)
            lines.append(f"{name}: provenance (mode=max) and versions attested ({digest})")
    return lines


# --------------------------------------------------------------------------- inspect


def reference_for(image: str, tag: str = "", registry_host: str = "",
                  prefix: str = "") -> Reference:
    """IMAGE as a reference (``HOST/REPOSITORY:TAG``), or a cell published the way
    ``inv fleet.build`` publishes it: ``REGISTRY/PREFIX/CELL:TAG``."""
    if "/" in image:
        if tag:
            raise UsageError(f"--tag is for a cell; {image!r} is a reference: give its tag in it")
        return Reference.parse(image)
    if not tag:
        raise UsageError(f"{image!r} is a cell: give the tag it was published with (--tag)")
    if not registry_host:
        raise UsageError(f"{image!r} is a cell: name the registry (--registry or fleet.toml)")
    return Reference.parse(f"{registry_host}/{prefix.strip('/')}/{image}:{tag}")


def describe(made: Made) -> list[str]:
    """What made one platform image, as text lines."""
    lines = [f"image:      {made.reference} ({made.platform or 'no platform'}) {made.digest}",
             f"cell:       {made.cell or '-'}" + (f" (target stage {made.target})"
                                                   if made.target else ""),
             f"commit:     {made.commit or 'unknown (not built from a git checkout)'}",
             "engine:     " + (f"Docker {made.engine.get('docker', '?')}, BuildKit "
                               f"{made.engine.get('buildkit', '?')} (the manifest digest is "
                               "its encoding)" if made.engine else "not recorded")]
    if not made.versions:
        lines.append("versions:   no versions statement (pushed without rocm-bake's attach)")
    lines.append(f"pins:       ({made.pins_from or 'none recorded'})")
    lines += [f"  {name} = {value}" for name, value in sorted(made.pins.items())]
    if made.wheels:
        lines.append("wheels:")
        lines += [f"  {w.get('name')} {w.get('version')} sha256:{w.get('sha256', '')[:12]}"
                  for w in made.wheels]
    lines.append("base:       " + (", ".join(made.base) or "none (FROM scratch)"))
    lines.append(f"dockerfile: {made.dockerfile or 'unknown'}")
    lines += [f"            (a target: context) {d}" for d in made.context_dockerfiles]
    lines.append("args:")
    lines += [f"  {name} = {value}" for name, value in made.args.items()
              if name != "ROCM_BAKE_PINS"]
    lines.append("arch audit:" + ("" if made.audit else f" {NOT_AUDITED}"))
    lines += [f"  {line}" for line in made.audit]
    return lines
