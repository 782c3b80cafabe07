"""Where two builds of an image differ, and whether a build matches its recorded expectation.

An image in an OCI tarball (buildx's ``type=oci`` exporter) is read layer by layer: each
layer's files as ``path -> fingerprint`` (type, mode, owner, mtime and the content's sha256
or the link target), each layer's build step from the config's history. Two builds are
compared at their first differing layer, file by file.

An *expectation* is what a reproducible build of a target gave (``inv verify-repro
--record``): the image digest, its inputs (each base image the bake files name in a
``*_IMAGE`` build arg, by its layers' diff IDs: its content, not the engine's id of it) and
every layer with its step and, for the layers the build made (after the base image's), its
files. Checked against it
(``--expect``) a build that differs is blamed on an input when an input differs, else the
first differing layer and its files are named.
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

# At most this many differing files are named per layer (then "... N more").
MAX_FILES = 20
FORMAT = 1


@dataclass(frozen=True)
class Layer:
    digest: str
    diff_id: str
    step: str


def _read(tarball: Path) -> tuple[str, dict[str, Any], list[Layer]]:
    """The manifest digest, config and layers (with their steps) of an OCI tarball."""
    try:
        with tarfile.open(tarball) as archive:
            descriptor, manifest = inputs.oci_manifest(archive)
            config = inputs.oci_blob(archive, manifest["config"]["digest"])
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
    return str(descriptor["digest"]), config, layers


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
    """The first layer in which two OCI tarballs differ, its step and its differing files
    ([] when the layers are the same); ``names`` say which image a file is only in."""
    _, _, layers_a = _read(first)
    _, _, layers_b = _read(other)
    for number, (a, b) in enumerate(zip(layers_a, layers_b, strict=False), 1):
        if a.digest != b.digest:
            head = f"first differing layer: {number} ({a.step or 'no step'})"
            if a.diff_id == b.diff_id:
                return [head, "  same files, compressed differently"]
            changes = file_changes(layer_files(first, a.digest), layer_files(other, b.digest),
                                   *names)
            return [head, *changes]
    return []


# --------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class Expectation:
    target: str
    digest: str
    inputs: dict[str, list[str]]
    layers: list[dict[str, Any]]

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "target": self.target, "digest": self.digest,
                           "inputs": self.inputs, "layers": self.layers}, indent=1,
                          sort_keys=True) + "\n"


def record(target: str, tarball: Path, input_layers: Mapping[str, list[str]]) -> Expectation:
    """The expectation of a build: its digest, inputs and layers (files for the layers the
    build made; a layer an input brought is known by its digest)."""
    digest, _, layers = _read(tarball)
    from_inputs = base_layer_count(input_layers)
    entries: list[dict[str, Any]] = []
    for number, layer in enumerate(layers, 1):
        entry: dict[str, Any] = {"digest": layer.digest, "diff_id": layer.diff_id,
                                 "step": layer.step}
        if number > from_inputs:
            entry["files"] = layer_files(tarball, layer.digest)
        entries.append(entry)
    return Expectation(target, digest, {k: list(v) for k, v in input_layers.items()}, entries)


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
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, this version reads {FORMAT}")
        return Expectation(str(data["target"]), str(data["digest"]),
                           {str(k): [str(i) for i in v] for k, v in data["inputs"].items()},
                           list(data["layers"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"cannot read the expectation {path}: {exc}") from None


def compare(expected: Expectation, tarball: Path,
            input_layers: Mapping[str, list[str]]) -> list[str]:
    """Why a build differs from its expectation ([] when its digest is the expected one):
    the inputs first (a differing input is not the build's fault), then the first differing
    layer and its files."""
    digest, _, layers = _read(tarball)
    if digest == expected.digest:
        return []
    lines = [f"expected {expected.digest}, built {digest}"]
    inputs_differ = _input_changes(expected.inputs, input_layers)
    if inputs_differ:
        return [*lines, *inputs_differ,
                "the inputs differ from the expectation's, so the build is not what "
                "differs: rebuild the inputs from their pins and compare again"]
    for number, layer in enumerate(layers, 1):
        if number > len(expected.layers):
            return [*lines, f"layer {number} ({layer.step}) is not in the expectation"]
        want = expected.layers[number - 1]
        if layer.digest == want["digest"]:
            continue
        head = f"first differing layer: {number} ({layer.step or 'no step'})"
        if layer.diff_id == want.get("diff_id"):
            return [*lines, head, "  same files, compressed differently"]
        if "files" not in want:
            return [*lines, head, "  a layer of the base image, which is the expected one: the "
                                  "engine wrote it differently (another BuildKit?)"]
        return [*lines, head, *file_changes(layer_files(tarball, layer.digest), want["files"],
                                            "in this build", "in the expectation")]
    if len(expected.layers) > len(layers):
        return [*lines, f"the expectation has {len(expected.layers)} layers, this build "
                        f"{len(layers)}"]
    return [*lines, "every layer is the expected one: the image config differs"]


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
