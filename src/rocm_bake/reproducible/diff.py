"""Where two builds of an image differ, and whether a build matches its recorded expectation.

An image in an OCI tarball (buildx's ``type=oci`` exporter) is read layer by layer: each
layer's files as ``path -> fingerprint`` (type, mode, owner, mtime and the content's sha256
or the link target), each layer's build step from the config's history. Two builds are
compared at their first differing layer, file by file.

What is compared is the image's *identity* (:func:`identity`): the sha256 of its config without
the history -- every layer's diff_id (its files), the runtime config (environment, entrypoint,
labels, ...), the platform and the clamped creation time. What it leaves out is each engine's
own rendering of the same image: the layers' compression (the manifest's blob digests) and the
history's step texts (the Dockerfile frontend built into the engine writes them: BuildKit 0.25
records ``ARG NAME=VALUE`` where 0.13 records ``ARG NAME``). So the manifest digest is *this
engine's encoding* of the image, reported beside the identity, never compared across engines
(docs/reproducibility.md: what was measured, and what gives the same manifest digest).

An *expectation* is what a reproducible build of a target gave (``inv verify-repro
--record``): the identity and the config it is the digest of, its inputs (each base image the
bake files name in a ``*_IMAGE`` build arg, by its layers' diff IDs: its content, not the
engine's id of it), every layer with its diff_id, its step and, for the layers the build made
(after the base image's), its files; and, per engine it was recorded on, that engine's encoding
(manifest and config digests). Checked against it (``--expect``) a build that differs is blamed
on an input when an input differs, else the first differing layer and its files are named, else
the config fields that differ.
"""

from __future__ import annotations

import hashlib
import json
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_bake.archaudit import inputs
from rocm_bake.core import atomic
from rocm_bake.core.errors import RocmBakeError, UsageError
from rocm_bake.docker.engineinfo import EngineVersion

# At most this many differing files are named per layer (then "... N more").
MAX_FILES = 20
FORMAT = 2
# The part of an image config that is each engine's own rendering, not the image's content.
RENDERING = ("history",)


@dataclass(frozen=True)
class Layer:
    digest: str      # the blob: this engine's encoding of the layer
    diff_id: str     # the layer's content
    step: str


@dataclass(frozen=True)
class Built:
    """An image read from an OCI tarball: its manifest and config digests (this engine's
    encoding), its config and its layers."""

    manifest: str
    config_digest: str
    config: dict[str, Any]
    layers: list[Layer]

    @property
    def identity(self) -> str:
        return identity(self.config)


def content(config: Mapping[str, Any]) -> dict[str, Any]:
    """An image config without what each engine renders its own way (the history)."""
    return {key: value for key, value in config.items() if key not in RENDERING}


def identity(config: Mapping[str, Any]) -> str:
    """The image's identity across engines: the sha256 of its config without the history, as
    canonical JSON (sorted keys, no spaces)."""
    body = json.dumps(content(config), sort_keys=True, separators=(",", ":")).encode()
    return "sha256:" + hashlib.sha256(body).hexdigest()


def read(tarball: Path) -> Built:
    """The image of an OCI tarball: manifest, config and layers (with their steps)."""
    try:
        with tarfile.open(tarball) as archive:
            descriptor, manifest = inputs.oci_manifest(archive)
            config_digest = str(manifest["config"]["digest"])
            config = inputs.oci_blob(archive, config_digest)
    except (OSError, tarfile.TarError, KeyError, TypeError, json.JSONDecodeError,
            inputs.InputError) as exc:
        raise RocmBakeError(f"cannot read OCI tarball {tarball}: {exc}") from None
    steps = [str(h.get("created_by", "")) for h in config.get("history", [])
             if not h.get("empty_layer")]
    diff_ids = list(config.get("rootfs", {}).get("diff_ids", []))
    digests = [str(layer["digest"]) for layer in manifest.get("layers", [])]
    if len(diff_ids) != len(digests):
        raise RocmBakeError(f"cannot read OCI tarball {tarball}: {len(digests)} layers but "
                            f"{len(diff_ids)} diff_ids")
    steps += [""] * (len(digests) - len(steps))
    layers = [Layer(d, i, _step(s)) for d, i, s in zip(digests, diff_ids, steps, strict=False)]
    return Built(str(descriptor["digest"]), config_digest, config, layers)


def _step(created_by: str) -> str:
    """A history entry as the Dockerfile said it (without BuildKit's ``|N ARG=..`` build-arg
    prefix and its ``# buildkit`` comment), shortened to one readable line."""
    words = created_by.removesuffix(" # buildkit").split()
    if len(words) > 1 and words[1].startswith("|") and words[1][1:].isdigit():
        words = [words[0], *words[2 + int(words[1][1:]):]]
    text = " ".join(words)
    return text if len(text) <= 120 else text[:117] + "..."


def _fingerprint(member: tarfile.TarInfo, tar: tarfile.TarFile) -> str:
    head = f"{oct(member.mode)[2:]:>04} {member.uid}:{member.gid} {int(member.mtime)}"
    if member.isfile():
        handle = tar.extractfile(member)
        digest = hashlib.sha256(handle.read() if handle is not None else b"").hexdigest()
        return f"file {head} sha256:{digest}"
    if member.issym():
        return f"symlink {head} -> {member.linkname}"
    if member.islnk():
        return f"hardlink {head} -> {member.linkname}"
    if member.isdir():
        return f"dir {head}"
    return f"special {head} {member.type!r}"


def layer_files(tarball: Path, digest: str) -> dict[str, str]:
    """Every entry of one layer of an OCI tarball: path -> fingerprint."""
    files: dict[str, str] = {}
    try:
        with tarfile.open(tarball) as archive:
            blob = archive.extractfile(inputs.oci_blob_name(digest))
            if blob is None:
                raise RocmBakeError(f"OCI tarball {tarball} has no layer {digest}")
            with inputs.open_layer(blob) as tar:
                for member in tar:
                    files["/" + member.name.lstrip("./")] = _fingerprint(member, tar)
    except (OSError, tarfile.TarError, inputs.InputError, KeyError) as exc:
        raise RocmBakeError(f"cannot read layer {digest} of {tarball}: {exc}") from None
    return files


def file_changes(here: Mapping[str, str], there: Mapping[str, str], here_name: str = "here",
                 there_name: str = "there") -> list[str]:
    """The paths whose entries differ between two versions of a layer, one line each."""
    lines = []
    for path in sorted(set(here) | set(there)):
        a, b = here.get(path), there.get(path)
        if a == b:
            continue
        if a is None:
            lines.append(f"  only {there_name}: {path}")
        elif b is None:
            lines.append(f"  only {here_name}: {path}")
        else:
            lines.append(f"  differs: {path} ({_what_differs(a, b)})")
    if len(lines) > MAX_FILES:
        lines = [*lines[:MAX_FILES], f"  ... {len(lines) - MAX_FILES} more"]
    return lines


def _what_differs(a: str, b: str) -> str:
    names = ("type", "mode", "owner", "mtime", "content")
    parts_a, parts_b = a.split(" ", 4), b.split(" ", 4)
    return ", ".join(n for n, x, y in zip(names, parts_a, parts_b, strict=False) if x != y)


def first_difference(first: Path, other: Path,
                     names: tuple[str, str] = ("in build 1", "in the other build")) -> list[str]:
    """Where two OCI tarballs' images differ ([] when their identities are the same, however
    each was encoded): the first layer whose content differs, its step and its differing
    files; else the config fields that differ. ``names`` say which image a file is only in."""
    a, b = read(first), read(other)
    if a.identity == b.identity:
        return []
    for number, (x, y) in enumerate(zip(a.layers, b.layers, strict=False), 1):
        if x.diff_id != y.diff_id:
            head = f"first differing layer: {number} ({x.step or 'no step'})"
            changes = file_changes(layer_files(first, x.digest), layer_files(other, y.digest),
                                   *names)
            return [head, *changes]
    if len(a.layers) != len(b.layers):
        return [f"{len(a.layers)} layers {names[0]}, {len(b.layers)} {names[1]}"]
    return ["every layer is the same: the image config differs",
            *config_changes(a.config, b.config)]


def config_changes(here: Mapping[str, Any], there: Mapping[str, Any]) -> list[str]:
    """The fields of two image configs (without their histories) that differ, one line each:
    ``config.Env``, ``architecture``, ..."""
    fields: list[str] = []
    a, b = content(here), content(there)
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        inner_a, inner_b = a.get(key), b.get(key)
        if isinstance(inner_a, dict) and isinstance(inner_b, dict):
            fields += [f"{key}.{k}" for k in sorted(set(inner_a) | set(inner_b))
                       if inner_a.get(k) != inner_b.get(k)]
        else:
            fields.append(key)
    return [f"  differs: {field}" for field in fields]


# --------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class Expectation:
    target: str
    identity: str
    config: dict[str, Any]                    # the image config without its history
    inputs: dict[str, list[str]]
    layers: list[dict[str, Any]]              # diff_id, step (and files: the built layers)
    # Per engine it was recorded on (str(EngineVersion)): that engine's encoding of the image,
    # {"manifest": ..., "config": ...} digests. Never compared: each engine writes its own.
    encodings: dict[str, dict[str, str]]

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "target": self.target, "identity": self.identity,
                           "config": self.config, "encodings": self.encodings,
                           "inputs": self.inputs, "layers": self.layers}, indent=1,
                          sort_keys=True) + "\n"


def record(target: str, tarball: Path, input_layers: Mapping[str, list[str]],
           engine: EngineVersion | None = None,
           previous: Expectation | None = None) -> Expectation:
    """The expectation of a build: its identity and config, inputs and layers (files for the
    layers the build made; a layer an input brought is known by its diff_id), and this
    engine's encoding -- beside the other engines' of ``previous`` when that is the same
    image."""
    built = read(tarball)
    from_inputs = base_layer_count(input_layers)
    entries: list[dict[str, Any]] = []
    for number, layer in enumerate(built.layers, 1):
        entry: dict[str, Any] = {"diff_id": layer.diff_id, "step": layer.step}
        if number > from_inputs:
            entry["files"] = layer_files(tarball, layer.digest)
        entries.append(entry)
    encodings = dict(previous.encodings) if previous is not None \
        and previous.identity == built.identity else {}
    encodings[str(engine or EngineVersion())] = {"manifest": built.manifest,
                                                 "config": built.config_digest}
    return Expectation(target, built.identity, content(built.config),
                       {k: list(v) for k, v in input_layers.items()}, entries, encodings)


def base_layer_count(input_layers: Mapping[str, list[str]]) -> int:
    """How many of the image's first layers its base image brought: the most layers of any
    input (the image starts with its FROM image's layers; the exporter may rewrite them, so
    they are counted, not matched by diff ID)."""
    return max((len(ids) for ids in input_layers.values()), default=0)


def save(expectation: Expectation, path: Path) -> None:
    atomic.write_text(path, expectation.to_json())


def load(path: Path) -> Expectation:
    """An expectation file; one clear error when it cannot be read."""
    try:
        data = json.loads(path.read_text())
        if data.get("format") == 1:
            raise ValueError("format 1 records one engine's manifest digest, this version "
                             f"compares the image's identity (format {FORMAT}): record it "
                             "again (inv verify-repro --record)")
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, this version reads {FORMAT}")
        expectation = Expectation(
            str(data["target"]), str(data["identity"]), dict(data["config"]),
            {str(k): [str(i) for i in v] for k, v in data["inputs"].items()},
            list(data["layers"]),
            {str(k): {str(a): str(b) for a, b in v.items()}
             for k, v in data["encodings"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"cannot read the expectation {path}: {exc}") from None
    if identity(expectation.config) != expectation.identity:
        raise UsageError(f"cannot read the expectation {path}: its identity is not the digest "
                         "of its config (edited by hand?): record it again")
    return expectation


def compare(expected: Expectation, tarball: Path,
            input_layers: Mapping[str, list[str]]) -> list[str]:
    """Why a build differs from its expectation ([] when its identity is the expected one,
    whatever its encoding): the inputs first (a differing input is not the build's fault),
    then the first differing layer and its files, else the config fields that differ."""
    built = read(tarball)
    if built.identity == expected.identity:
        return []
    lines = [f"expected {expected.identity}, built {built.identity}"]
    inputs_differ = _input_changes(expected.inputs, input_layers)
    if inputs_differ:
        return [*lines, *inputs_differ,
                "the inputs differ from the expectation's, so the build is not what "
                "differs: rebuild the inputs from their pins and compare again"]
    for number, layer in enumerate(built.layers, 1):
        if number > len(expected.layers):
            return [*lines, f"layer {number} ({layer.step}) is not in the expectation"]
        want = expected.layers[number - 1]
        if layer.diff_id == want.get("diff_id"):
            continue
        head = f"first differing layer: {number} ({layer.step or 'no step'})"
        if "files" not in want:
            return [*lines, head, "  a layer of the base image, which is the expected one: the "
                                  "engine wrote it differently"]
        return [*lines, head, *file_changes(layer_files(tarball, layer.digest), want["files"],
                                            "in this build", "in the expectation")]
    if len(expected.layers) > len(built.layers):
        return [*lines, f"the expectation has {len(expected.layers)} layers, this build "
                        f"{len(built.layers)}"]
    return [*lines, "every layer is the expected one: the image config differs",
            *config_changes(built.config, expected.config)]


def encoding_note(expected: Expectation | None, built: Built, engine: EngineVersion) -> str:
    """This engine's encoding of the image (its manifest digest), and what the expectation
    recorded for the same engine: the one line verify-repro prints about the encoding."""
    line = f"encoding: manifest {built.manifest} (this engine's: {engine})"
    if expected is None or built.identity != expected.identity:
        return line
    recorded = expected.encodings.get(str(engine))
    if recorded is None:
        others = ", ".join(sorted(expected.encodings)) or "none"
        return f"{line}; the expectation records no encoding of this engine (it has: {others})"
    if recorded.get("manifest") == built.manifest:
        return f"{line}; the expectation's for this engine"
    return (f"{line}; the expectation recorded {recorded.get('manifest')} for this engine "
            "(the same content, encoded otherwise: another build of this engine?)")


def _input_changes(expected: Mapping[str, list[str]],
                   actual: Mapping[str, list[str]]) -> list[str]:
    lines = []
    for name in sorted(set(expected) | set(actual)):
        want, have = expected.get(name), actual.get(name)
        if want == have:
            continue
        if want is None or have is None:
            where = "the expectation" if have is None else "this build"
            lines.append(f"input {name}: only {where} has it")
            continue
        lines.append(f"input {name} differs: layers {_short(have)} here, {_short(want)} "
                     "expected")
    return lines


def _short(diff_ids: Sequence[str]) -> str:
    return ", ".join(d.split(":", 1)[-1][:12] for d in diff_ids) or "none"
