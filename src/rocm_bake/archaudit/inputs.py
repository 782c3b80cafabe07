"""Where the ELF files of an audit come from: a wheel, a directory (``dist/<arch>/``, any
wheels in it included), a single file, an image archive (a ``docker save`` tarball or an OCI
layout tarball such as buildx's ``type=oci`` output) or an image by reference (``docker
save``), or by reference from its registry (``docker://REGISTRY/NAME:TAG``: skopeo, no
pull): the image's final file system, whiteouts applied, wheels in it included.

Every ELF file yields ``(display path, seekable stream)``, the stream valid until the next
one: a file on disk as it is, anything else (a wheel's member, a file of an image layer, a
wheel in an image) through a spooled temporary copy. Nothing is held whole in memory, and
what is larger than the limits of ``archaudit.limits`` is one error (see there).
"""

from __future__ import annotations

import json
import os
import posixpath
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import zstandard

from rocm_bake.archaudit.bundles import ELF_MAGIC
from rocm_bake.archaudit.limits import (
    archive_too_large,
    max_archive,
    max_member,
    member_too_large,
    spool,
)
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker import images, preflight, skopeo

WHEEL_SUFFIX = ".whl"
IMAGE_ARCHIVE_SUFFIX = ".tar"
NESTING = "!"  # wheel.whl!pkg/lib.so
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
REGISTRY_SCHEME = "docker://"   # docker://127.0.0.1:5000/name:tag: read from the registry
MAX_JSON_BYTES = 16 << 20       # an image archive's manifest, index or config

ElfFile = tuple[str, IO[bytes]]  # display path, a seekable stream of the ELF


class InputError(RocmBakeError):
    """An input that cannot be read: missing, not a wheel, not an image."""


def _wheel(source: Path | IO[bytes], name: str) -> Iterator[ElfFile]:
    """The ELF members of a wheel (a path or a seekable stream), each spooled."""
    try:
        with zipfile.ZipFile(source) as wheel:
            members = [info for info in wheel.infolist() if not info.is_dir()]
            total, limit = sum(info.file_size for info in members), max_archive()
            if total > limit:
                raise archive_too_large(name, total, limit)
            limit = max_member()
            for info in members:
                where = f"{name}{NESTING}{info.filename}"
                if info.file_size > limit:
                    raise member_too_large(where, info.file_size, limit)
                with wheel.open(info) as member:
                    head = member.read(4)
                    if head != ELF_MAGIC:
                        continue
                    with spool(member, where, head, limit) as copy:
                        yield where, copy
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError, OSError) as exc:
        raise InputError(f"{name}: not a readable wheel ({exc})") from None


def _file(path: Path, name: str, leave_out: Sequence[str] = ()) -> Iterator[ElfFile]:
    if path.name.endswith(WHEEL_SUFFIX):
        yield from _wheel(path, name)
        return
    if path.name.endswith(IMAGE_ARCHIVE_SUFFIX):  # `docker image save`, an OCI layout
        yield from _image_archive(path, name, leave_out)
        return
    with path.open("rb") as handle:
        if handle.read(4) == ELF_MAGIC:
            size, limit = path.stat().st_size, max_member()
            if size > limit:
                raise member_too_large(name, size, limit)
            yield name, handle


def _directory(root: Path) -> Iterator[ElfFile]:
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
    if archive.getmember(name).size > MAX_JSON_BYTES:
        raise InputError(f"image archive: {name} is over {MAX_JSON_BYTES} bytes")
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


def _final_files(archive: tarfile.TarFile, layers: list[str], reference: str
                 ) -> dict[str, tuple[int, str]]:
    """Path -> (layer index, member name) of every regular file of the image's final file
    system: later layers win, ``.wh.`` files delete, ``.wh..wh..opq`` empties a directory."""
    files: dict[str, tuple[int, str]] = {}
    total, limit = 0, max_archive()
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
                    total += member.size
                    if total > limit:
                        raise archive_too_large(reference, total, limit)
                else:
                    files.pop(path, None)
    return files


def _left_out(path: str, prefixes: Sequence[str]) -> bool:
    return any(path.startswith(prefix) for prefix in prefixes)


def _image_archive(tarball: Path, reference: str, leave_out: Sequence[str] = ()
                   ) -> Iterator[ElfFile]:
    try:
        with tarfile.open(tarball) as archive:
            layers = _layers(archive)
            wanted: dict[int, dict[str, str]] = {}
            for path, (index, member) in _final_files(archive, layers, reference).items():
                if not _left_out(path, leave_out):
                    wanted.setdefault(index, {})[member] = path
            for index, layer in enumerate(layers):
                blob = archive.extractfile(layer)
                if blob is None or index not in wanted:
                    continue
                with open_layer(blob) as tar:
                    yield from _layer_files(tar, wanted[index], reference)
    except InputError as exc:
        raise InputError(f"{reference}: {exc}") from None
    except (tarfile.TarError, zstandard.ZstdError, OSError, EOFError, json.JSONDecodeError,
            KeyError, AttributeError, TypeError) as exc:
        raise InputError(f"{reference}: not a readable image archive ({exc})") from None


def _layer_files(tar: tarfile.TarFile, wanted: Mapping[str, str], reference: str
                 ) -> Iterator[ElfFile]:
    """The ELF files (and the ELF members of the wheels) among ``wanted`` (member name ->
    path in the image) of one layer, each spooled."""
    limit = max_member()
    for item in tar:
        path = wanted.get(item.name)
        if path is None or not item.isfile():
            continue
        name = f"{reference}:{path}"
        if item.size > limit:
            raise member_too_large(name, item.size, limit)
        handle = tar.extractfile(item)
        if handle is None:
            continue
        if path.endswith(WHEEL_SUFFIX):
            with spool(handle, name, limit=limit) as wheel:
                yield from _wheel(wheel, name)
            continue
        head = handle.read(4)
        if head == ELF_MAGIC:
            with spool(handle, name, head, limit) as copy:
                yield name, copy


def _image(reference: str, env: Mapping[str, str] | None, leave_out: Sequence[str] = ()
           ) -> Iterator[ElfFile]:
    """The image ``reference`` in the engine ``env`` reaches (a build's, found already), or
    with no ``env`` the engine found here as ``inv build`` finds it."""
    engine_env = dict(os.environ) if env is None else dict(env)
    if env is None:
        engine_env.update(preflight.ensure_builder(engine_env))
    with tempfile.TemporaryDirectory(prefix="rocm-bake-audit-") as scratch:
        tarball = Path(scratch) / "image.tar"
        try:
            images.image_save(reference, tarball, engine_env)
        except images.ImageError as exc:
            raise InputError(str(exc)) from None
        yield from _image_archive(tarball, reference, leave_out)


def _registry_image(source: str, leave_out: Sequence[str] = ()) -> Iterator[ElfFile]:
    """``docker://REGISTRY/NAME:TAG``: the image's layers read from its registry (skopeo
    copy to a temporary OCI layout tarball; nothing is pulled into an engine)."""
    reference = source.removeprefix(REGISTRY_SCHEME)
    with tempfile.TemporaryDirectory(prefix="rocm-bake-audit-") as scratch:
        tarball = Path(scratch) / "image.tar"
        try:
            skopeo.copy_to_archive(reference, tarball)
        except skopeo.RegistryImageError as exc:
            raise InputError(str(exc)) from None
        yield from _image_archive(tarball, source, leave_out)


def elf_files(source: str, env: Mapping[str, str] | None = None, leave_out: Sequence[str] = ()
              ) -> Iterator[ElfFile]:
    """Every ELF file of SOURCE, as a seekable stream valid until the next one: a path (file,
    wheel, directory) if it exists, ``docker://REGISTRY/NAME:TAG`` an image read from its
    registry, else an image reference (``docker image save``; the image must be in the
    engine). In an image, files under the ``leave_out`` path prefixes are not read."""
    if source.startswith(REGISTRY_SCHEME):
        yield from _registry_image(source, leave_out)
        return
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
