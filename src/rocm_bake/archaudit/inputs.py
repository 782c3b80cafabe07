"""Where the ELF files of an audit come from: a wheel, a directory (``dist/<arch>/``, any
wheels in it included), a single file, an image archive (a ``docker save`` tarball or an OCI
layout tarball such as buildx's ``type=oci`` output) or an image by reference (``docker
save``): the image's final file system, whiteouts applied, wheels in it included.

Every file yields ``(display path, bytes)``; only files that start with the ELF magic or are
wheels are read whole.
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import zstandard

from rocm_bake import buildx, preflight
from rocm_bake.archaudit.bundles import ELF_MAGIC
from rocm_bake.errors import RocmBakeError

WHEEL_SUFFIX = ".whl"
IMAGE_ARCHIVE_SUFFIX = ".tar"
NESTING = "!"  # wheel.whl!pkg/lib.so
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"


class InputError(RocmBakeError):
    """An input that cannot be read: missing, not a wheel, not an image."""


def _wheel(data: bytes | Path, name: str) -> Iterator[tuple[str, bytes]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as wheel:
            for info in wheel.infolist():
                if info.is_dir():
                    continue
                with wheel.open(info) as member:
                    head = member.read(4)
                    if head == ELF_MAGIC:
                        yield f"{name}{NESTING}{info.filename}", head + member.read()
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise InputError(f"{name}: not a readable wheel ({exc})") from None


def _file(path: Path, name: str, leave_out: Sequence[str] = ()) -> Iterator[tuple[str, bytes]]:
    if path.name.endswith(WHEEL_SUFFIX):
        yield from _wheel(path, name)
        return
    if path.name.endswith(IMAGE_ARCHIVE_SUFFIX):  # `docker image save`, an OCI layout
        yield from _image_archive(path, name, leave_out)
        return
    with path.open("rb") as handle:
        head = handle.read(4)
        if head == ELF_MAGIC:
            yield name, head + handle.read()


def _directory(root: Path) -> Iterator[tuple[str, bytes]]:
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for file_name in sorted(files):
            path = Path(folder) / file_name
            if path.is_symlink() or not path.is_file():
                continue
            yield from _file(path, str(path))


def open_layer(blob: IO[bytes]) -> tarfile.TarFile:
    head = blob.read(4)
    blob.seek(0)
    if head[:2] == b"\x1f\x8b":
        return tarfile.open(fileobj=blob, mode="r|gz")
    if head == b"\x28\xb5\x2f\xfd":
        return tarfile.open(fileobj=zstandard.ZstdDecompressor().stream_reader(blob), mode="r|")
    return tarfile.open(fileobj=blob, mode="r|")


def _json_member(archive: tarfile.TarFile, name: str) -> Any:
    member = archive.extractfile(name)
    if member is None:
        raise InputError(f"image archive has no {name}")
    return json.loads(member.read())


def oci_blob(archive: tarfile.TarFile, digest: str) -> Any:
    """The JSON blob ``digest`` of an OCI layout."""
    return _json_member(archive, oci_blob_name(digest))


def oci_blob_name(digest: str) -> str:
    algorithm, _, encoded = digest.partition(":")
    if not encoded or "/" in encoded or "/" in algorithm:
        raise InputError(f"OCI layout: bad digest {digest!r}")
    return f"blobs/{algorithm}/{encoded}"


def oci_manifest(archive: tarfile.TarFile, index: Any | None = None
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The image manifest of an OCI layout (through nested indexes, skipping attestation
    manifests): its descriptor and the manifest itself."""
    if index is None:
        index = _json_member(archive, "index.json")
    for descriptor in index.get("manifests", []) if isinstance(index, dict) else []:
        if descriptor.get("platform", {}).get("architecture") == "unknown":
            continue  # an attestation manifest
        if descriptor.get("mediaType") in (OCI_INDEX, DOCKER_LIST):
            return oci_manifest(archive, oci_blob(archive, descriptor["digest"]))
        manifest = oci_blob(archive, descriptor["digest"])
        if not isinstance(manifest, dict):
            raise InputError(f"OCI layout: manifest {descriptor['digest']} is not an object")
        return dict(descriptor), manifest
    raise InputError("OCI layout holds no image manifest")


def _layers(archive: tarfile.TarFile) -> list[str]:
    """The layer blobs of the (single-platform) image in a ``docker save`` archive, or else
    in an OCI layout (``index.json``)."""
    names = set(archive.getnames())
    if "manifest.json" not in names and "index.json" in names:
        _, manifest = oci_manifest(archive)
        return [oci_blob_name(str(layer["digest"])) for layer in manifest.get("layers", [])]
    manifest = _json_member(archive, "manifest.json")
    if not isinstance(manifest, list) or len(manifest) != 1:
        raise InputError("image archive: manifest.json does not name exactly one image")
    layers = manifest[0].get("Layers")
    if not isinstance(layers, list):
        raise InputError("image archive: manifest.json has no Layers")
    return [str(layer) for layer in layers]


def _final_files(archive: tarfile.TarFile, layers: list[str]) -> dict[str, tuple[int, str]]:
    """Path -> (layer index, member name) of every regular file of the image's final file
    system: later layers win, ``.wh.`` files delete, ``.wh..wh..opq`` empties a directory."""
    files: dict[str, tuple[int, str]] = {}
    for index, layer in enumerate(layers):
        blob = archive.extractfile(layer)
        if blob is None:
            raise InputError(f"image archive: layer {layer} missing")
        with open_layer(blob) as tar:
            for member in tar:
                path = posixpath.normpath("/" + member.name)
                folder, base = posixpath.split(path)
                if base == ".wh..wh..opq":
                    prefix = folder.rstrip("/") + "/"
                    files = {p: v for p, v in files.items() if not p.startswith(prefix)}
                elif base.startswith(".wh."):
                    gone = posixpath.join(folder, base[len(".wh."):])
                    files = {p: v for p, v in files.items()
                             if p != gone and not p.startswith(gone + "/")}
                elif member.isfile():
                    files[path] = (index, member.name)
                else:
                    files.pop(path, None)
    return files


def _left_out(path: str, prefixes: Sequence[str]) -> bool:
    return any(path.startswith(prefix) for prefix in prefixes)


def _image_archive(tarball: Path, reference: str, leave_out: Sequence[str] = ()
                   ) -> Iterator[tuple[str, bytes]]:
    try:
        with tarfile.open(tarball) as archive:
            layers = _layers(archive)
            final = _final_files(archive, layers)
            wanted: dict[int, dict[str, str]] = {}
            for path, (index, member) in final.items():
                if _left_out(path, leave_out):
                    continue
                wanted.setdefault(index, {})[member] = path
            for index, layer in enumerate(layers):
                blob = archive.extractfile(layer)
                if blob is None or index not in wanted:
                    continue
                with open_layer(blob) as tar:
                    for item in tar:
                        found = wanted[index].get(item.name)
                        if found is None or not item.isfile():
                            continue
                        path = found
                        handle = tar.extractfile(item)
                        if handle is None:
                            continue
                        data = handle.read()
                        name = f"{reference}:{path}"
                        if path.endswith(WHEEL_SUFFIX):
                            yield from _wheel(data, name)
                        elif data.startswith(ELF_MAGIC):
                            yield name, data
    except InputError as exc:
        raise InputError(f"{reference}: {exc}") from None
    except (tarfile.TarError, zstandard.ZstdError, OSError, EOFError, json.JSONDecodeError,
            KeyError, AttributeError, TypeError) as exc:
        raise InputError(f"{reference}: not a readable image archive ({exc})") from None


def _image(reference: str, env: Mapping[str, str] | None, leave_out: Sequence[str] = ()
           ) -> Iterator[tuple[str, bytes]]:
    """The image ``reference`` in the engine ``env`` reaches (a build's, found already), or
    with no ``env`` the engine found here as ``inv build`` finds it."""
    engine_env = dict(os.environ) if env is None else dict(env)
    if env is None:
        engine_env.update(preflight.ensure_builder(engine_env))
    with tempfile.TemporaryDirectory(prefix="rocm-bake-audit-") as scratch:
        tarball = Path(scratch) / "image.tar"
        try:
            buildx.image_save(reference, tarball, engine_env)
        except buildx.ImageError as exc:
            raise InputError(str(exc)) from None
        yield from _image_archive(tarball, reference, leave_out)


def elf_files(source: str, env: Mapping[str, str] | None = None, leave_out: Sequence[str] = ()
              ) -> Iterator[tuple[str, bytes]]:
    """Every ELF file of SOURCE: a path (file, wheel, directory) if it exists, else an image
    reference (``docker image save``; the image must be in the engine). In an image, files
    under the ``leave_out`` path prefixes are not read."""
    path = Path(source)
    try:
        if path.is_dir():
            yield from _directory(path)
            return
        if path.is_file():
            yield from _file(path, source, leave_out)
            return
    except OSError as exc:
        raise InputError(f"{source}: {exc.strerror or exc}") from None
    if os.sep in source and not _looks_like_reference(source):
        raise InputError(f"{source}: no such file or directory")
    yield from _image(source, env, leave_out)


def _looks_like_reference(source: str) -> bool:
    """``registry:5000/name:tag`` or ``name@sha256:...``, not ``dist/gfx950``."""
    return ":" in source or "@" in source
