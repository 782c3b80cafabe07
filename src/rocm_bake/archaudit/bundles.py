"""The GPU code objects an ELF file carries: its ``.hip_fatbin`` clang offload bundles
(uncompressed ``__CLANG_OFFLOAD_BUNDLE__`` and compressed ``CCOB``) and, for each device
entry, the processor named by the AMDGPU code object's ELF header ``e_flags``.

Layouts (clang/lib/Driver/OffloadBundler.cpp):

* uncompressed: magic, u64 entry count, then per entry u64 offset (from the bundle start),
  u64 size, u64 id length, id (``hipv4-amdgcn-amd-amdhsa--gfx1201``, ``host-x86_64-...``);
* compressed: ``CCOB``, u16 version, u16 method (0 zlib, 1 zstd), then version 1: u32
  uncompressed size; version 2: u32 total size, u32 uncompressed size; version 3: u64 total
  size, u64 uncompressed size; then a u64 hash and the compressed uncompressed bundle.

A linked library holds one bundle per translation unit, one after the other (zero padding
between them), all in the one section.
"""

from __future__ import annotations

import io
import struct
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import zstandard
from elftools.common.exceptions import ELFError
from elftools.construct.core import ConstructError
from elftools.elf.elffile import ELFFile

from rocm_bake.archaudit.limits import CHUNK_BYTES, ENV_PREFIX, SPOOL_BYTES, max_member
from rocm_bake.core.errors import RocmBakeError

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_MAGIC = b"CCOB"
ELF_MAGIC = b"\x7fELF"
FATBIN_SECTION = ".hip_fatbin"
EM_AMDGPU = 224

EF_AMDGPU_MACH = 0x0FF
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
# EI_ABIVERSION of code object v4 and later (the v4 feature bits above apply from there on).
ABIVERSION_AMDGPU_HSA_V4 = 2
# Processor of each EF_AMDGPU_MACH value (llvm/include/llvm/BinaryFormat/ELF.h).
PROCESSORS: dict[int, str] = {
    0x020: "gfx600", 0x021: "gfx601", 0x022: "gfx700", 0x023: "gfx701", 0x024: "gfx702",
    0x025: "gfx703", 0x026: "gfx704", 0x028: "gfx801", 0x029: "gfx802", 0x02A: "gfx803",
    0x02B: "gfx810", 0x02C: "gfx900", 0x02D: "gfx902", 0x02E: "gfx904", 0x02F: "gfx906",
    0x030: "gfx908", 0x031: "gfx909", 0x032: "gfx90c", 0x033: "gfx1010", 0x034: "gfx1011",
    0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031", 0x038: "gfx1032", 0x039: "gfx1033",
    0x03A: "gfx602", 0x03B: "gfx705", 0x03C: "gfx805", 0x03D: "gfx1035", 0x03E: "gfx1034",
    0x03F: "gfx90a", 0x040: "gfx940", 0x041: "gfx1100", 0x042: "gfx1013", 0x043: "gfx1150",
    0x044: "gfx1103", 0x045: "gfx1036", 0x046: "gfx1101", 0x047: "gfx1102", 0x048: "gfx1200",
    0x049: "gfx1250", 0x04A: "gfx1151", 0x04B: "gfx941", 0x04C: "gfx942", 0x04E: "gfx1201",
    0x04F: "gfx950", 0x051: "gfx9-generic", 0x052: "gfx10-1-generic",
    0x053: "gfx10-3-generic", 0x054: "gfx11-generic", 0x055: "gfx1152", 0x058: "gfx1153",
    0x059: "gfx12-generic", 0x05A: "gfx1251", 0x05B: "gfx12-5-generic",
    0x05F: "gfx9-4-generic",
}
MAX_BUNDLE_ID = 4096   # bytes of an entry id (hipv4-amdgcn-amd-amdhsa--gfx950: 31)
_FEATURE_STATES = {1: "", 2: "-", 3: "+"}  # 0 unsupported, 1 any, 2 off, 3 on


class BundleError(RocmBakeError):
    """An offload bundle or code object that cannot be read (truncated, corrupt)."""


@dataclass(frozen=True)
class CodeObject:
    """One device entry of a bundle."""

    bundle_id: str        # hipv4-amdgcn-amd-amdhsa--gfx950
    target_id: str        # from e_flags: gfx950, gfx90a:sramecc+:xnack-
    processor: str        # gfx950
    kind: str             # "bundle" or "CCOB v3 zstd"

    @property
    def id_target(self) -> str:
        """The target id the bundle entry's id names (after the ``--``)."""
        return self.bundle_id.partition("--")[2]


class Region(io.RawIOBase):
    """A read-only, seekable view of bytes ``[start, start + size)`` of a seekable stream:
    what pyelftools parses, and what a bundle's entries are read from, without a copy."""

    def __init__(self, stream: IO[bytes], start: int, size: int) -> None:
        super().__init__()
        self._stream, self._start, self.size, self._at = stream, start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: self.size}[whence]
        self._at = max(0, base + offset)
        return self._at

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        count = max(0, min(len(view), self.size - self._at))
        if count == 0:
            return 0
        self._stream.seek(self._start + self._at)
        data = self._stream.read(count)
        view[:len(data)] = data
        self._at += len(data)
        return len(data)


def region(stream: IO[bytes], start: int, size: int) -> IO[bytes]:
    """Bytes ``[start, start + size)`` of ``stream`` as a seekable stream of their own."""
    return io.BufferedReader(Region(stream, start, size))


def _stream(data: bytes | IO[bytes]) -> tuple[IO[bytes], int]:
    """A seekable stream of ``data`` and its size."""
    stream = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    size = stream.seek(0, io.SEEK_END)
    stream.seek(0)
    return stream, size


def _read_at(stream: IO[bytes], at: int, count: int) -> bytes:
    stream.seek(at)
    return stream.read(count)


def _u64(stream: IO[bytes], at: int, what: str) -> int:
    raw = _read_at(stream, at, 8)
    if len(raw) < 8:
        raise BundleError(f"truncated offload bundle ({what} at byte {at})")
    value: int = struct.unpack("<Q", raw)[0]
    return value


def target_id(e_flags: int, abiversion: int) -> str:
    """The target id (processor plus feature suffixes) an AMDGPU ``e_flags`` names."""
    mach = e_flags & EF_AMDGPU_MACH
    processor = PROCESSORS.get(mach, f"unknown-mach-0x{mach:03x}")
    if abiversion < ABIVERSION_AMDGPU_HSA_V4:
        return processor
    suffix = ""
    sramecc = _FEATURE_STATES.get((e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10, "")
    xnack = _FEATURE_STATES.get((e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8, "")
    if sramecc:
        suffix += f":sramecc{sramecc}"
    if xnack:
        suffix += f":xnack{xnack}"
    return processor + suffix


def read_code_object(data: bytes | IO[bytes], where: str) -> str:
    """The target id of one AMDGPU code object (an ELF with e_machine EM_AMDGPU); only its
    ELF header is read."""
    stream, _ = _stream(data)
    try:
        elf = ELFFile(stream)
        header = elf.header
        machine = header["e_machine"]
        flags = int(header["e_flags"])
        abiversion = int(header["e_ident"]["EI_ABIVERSION"])
    except (ELFError, ConstructError, struct.error, ValueError) as exc:
        raise BundleError(f"{where}: corrupt AMDGPU code object ({exc})") from None
    if machine not in ("EM_AMDGPU", EM_AMDGPU):
        raise BundleError(f"{where}: device entry is not an AMDGPU code object ({machine})")
    return target_id(flags, abiversion)


def _entries(data: IO[bytes], size: int, start: int, kind: str
             ) -> tuple[list[CodeObject], int]:
    """The device entries of the uncompressed bundle at ``start``, and where it ends."""
    count = _u64(data, start + len(BUNDLE_MAGIC), "entry count")
    at = start + len(BUNDLE_MAGIC) + 8
    end = at
    objects: list[CodeObject] = []
    if count > size:
        raise BundleError(f"corrupt offload bundle ({count} entries in {size} bytes)")
    for _ in range(count):
        raw = _read_at(data, at, 24)
        if len(raw) < 24:
            raise BundleError(f"truncated offload bundle (entry at byte {at})")
        offset, length, id_len = struct.unpack("<QQQ", raw)
        at += 24
        if at + id_len > size:
            raise BundleError(f"truncated offload bundle (entry id at byte {at})")
        if id_len > MAX_BUNDLE_ID:
            raise BundleError(f"corrupt offload bundle (an entry id of {id_len} bytes)")
        bundle_id = _read_at(data, at, id_len).decode("ascii", "replace")
        at += id_len
        if start + offset + length > size:
            raise BundleError(f"truncated offload bundle ({bundle_id}: {length} bytes at "
                              f"{offset}, {size - start} in the bundle)")
        end = max(end, at, start + offset + length)
        if bundle_id.startswith("host-") or length == 0:
            continue
        target = read_code_object(region(data, start + offset, length), bundle_id)
        objects.append(CodeObject(bundle_id, target, target.partition(":")[0], kind))
    return objects, max(end, at)


_COMPRESSED_HEADERS = {1: ("<I", None), 2: ("<II", 0), 3: ("<QQ", 0)}
_METHODS = {0: "zlib", 1: "zstd"}
# zstd input fed per call: a zstd block inflates at most ~32768-fold, so one call's output
# stays a few MiB whatever the stream.
ZSTD_FEED = 256


class _Inflater:
    """One zlib or zstd stream, inflated with bounded output per call."""

    def __init__(self, method: int) -> None:
        self._zlib = zlib.decompressobj() if method == 0 else None
        self._zstd = zstandard.ZstdDecompressor().decompressobj() if method == 1 else None
        self._pending = b""

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        if self._zlib is not None:
            data = chunk
            while data and not self._zlib.eof:
                yield self._zlib.decompress(data, CHUNK_BYTES)
                data = self._zlib.unconsumed_tail
            return
        assert self._zstd is not None
        for at in range(0, len(chunk), ZSTD_FEED):
            if self._zstd.eof:
                self._pending += chunk[at:]
                return
            yield self._zstd.decompress(chunk[at:at + ZSTD_FEED])

    @property
    def eof(self) -> bool:
        return bool((self._zlib or self._zstd).eof)  # type: ignore[union-attr]

    @property
    def unused(self) -> int:
        """Bytes fed past the end of the stream."""
        if self._zlib is not None:
            return len(self._zlib.unused_data)
        assert self._zstd is not None
        return len(self._zstd.unused_data) + len(self._pending)


def _inflate(method: int, data: IO[bytes], start: int, stop: int, announced: int
             ) -> tuple[IO[bytes], int]:
    """Inflate the stream at ``start`` (ending by ``stop``) into a spooled copy: the copy and
    the length of the stream."""
    limit = max_member()
    if announced > limit:
        raise BundleError(f"a compressed offload bundle announces {announced} bytes, over the "
                          f"audit's limit of {limit} bytes for one file "
                          f"({ENV_PREFIX}MAX_MEMBER_BYTES)")
    inflater = _Inflater(method)
    out: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES,  # noqa: SIM115
                                                   prefix="rocm-bake-audit-")
    written = fed = 0
    try:
        at = start
        while at < stop and not inflater.eof:
            chunk = _read_at(data, at, min(CHUNK_BYTES, stop - at))
            if not chunk:
                break
            at += len(chunk)
            fed += len(chunk)
            for piece in inflater.feed(chunk):
                written += len(piece)
                if written > announced:
                    raise BundleError(f"corrupt compressed offload bundle (inflates past the "
                                      f"{announced} bytes announced)")
                out.write(piece)
        if not inflater.eof:
            raise BundleError(f"truncated compressed offload bundle ({_METHODS[method]} "
                              "stream ends early)")
    except (zlib.error, zstandard.ZstdError) as exc:
        out.close()
        raise BundleError(f"corrupt compressed offload bundle ({exc})") from None
    except BaseException:
        out.close()
        raise
    out.seek(0)
    return out, fed - inflater.unused


def _compressed(data: IO[bytes], size: int, start: int) -> tuple[list[CodeObject], int]:
    """The entries of the ``CCOB`` bundle at ``start``, and where it ends."""
    head = _read_at(data, start + 4, 4)
    if len(head) < 4:
        raise BundleError("truncated compressed offload bundle header")
    version, method = struct.unpack("<HH", head)
    if version not in _COMPRESSED_HEADERS or method not in _METHODS:
        raise BundleError(f"unknown compressed offload bundle (version {version}, "
                          f"method {method})")
    layout, total_index = _COMPRESSED_HEADERS[version]
    fields_at = start + 8
    header_end = fields_at + struct.calcsize(layout) + 8  # + the u64 hash
    if header_end > size:
        raise BundleError("truncated compressed offload bundle header")
    fields = struct.unpack(layout, _read_at(data, fields_at, struct.calcsize(layout)))
    uncompressed_size = fields[-1]
    limit = size
    if total_index is not None:
        total = fields[total_index]
        if start + total > size:
            raise BundleError(f"truncated compressed offload bundle ({total} bytes announced, "
                              f"{size - start} present)")
        limit = start + total
    inner, used = _inflate(method, data, header_end, limit, uncompressed_size)
    with inner:
        inner_size = inner.seek(0, io.SEEK_END)
        if inner_size != uncompressed_size:
            raise BundleError(f"corrupt compressed offload bundle ({inner_size} bytes "
                              f"uncompressed, {uncompressed_size} announced)")
        if _read_at(inner, 0, len(BUNDLE_MAGIC)) != BUNDLE_MAGIC:
            raise BundleError("corrupt compressed offload bundle (no bundle inside)")
        kind = f"CCOB v{version} {_METHODS[method]}"
        objects, _ = _entries(inner, inner_size, 0, kind)
    end = limit if total_index is not None else header_end + used
    return objects, end


def _next_bundle(data: IO[bytes], size: int, at: int) -> int | None:
    """Where the first non-zero byte at or after ``at`` is (zero padding separates the
    bundles of two translation units), read a chunk at a time; None: only zeros left."""
    while at < size:
        chunk = _read_at(data, at, min(CHUNK_BYTES, size - at))
        if not chunk:
            return None
        rest = chunk.lstrip(b"\0")
        if rest:
            return at + len(chunk) - len(rest)
        at += len(chunk)
    return None


def read_fatbin(data: bytes | IO[bytes]) -> list[CodeObject]:
    """Every device code object of a ``.hip_fatbin`` section (one or more bundles), read by
    seeking: of each code object only its ELF header."""
    stream, size = _stream(data)
    objects: list[CodeObject] = []
    at = 0
    while (found_at := _next_bundle(stream, size, at)) is not None:
        at = found_at
        head = _read_at(stream, at, len(BUNDLE_MAGIC))
        if head == BUNDLE_MAGIC:
            found, at = _entries(stream, size, at, "bundle")
        elif head.startswith(COMPRESSED_MAGIC):
            found, at = _compressed(stream, size, at)
        else:
            raise BundleError(f"corrupt {FATBIN_SECTION}: no bundle magic at byte {at}")
        objects.extend(found)
    return objects


def read_elf(data: bytes | IO[bytes], where: str) -> list[CodeObject] | None:
    """The code objects of one ELF file (bytes or a seekable stream, read by seeking): its
    fatbin bundles, or itself when it is an AMDGPU code object; None when it carries no GPU
    code."""
    stream, size = _stream(data)
    try:
        elf = ELFFile(stream)
        machine = elf.header["e_machine"]
        if machine in ("EM_AMDGPU", EM_AMDGPU):
            target = read_code_object(stream, where)
            return [CodeObject("", target, target.partition(":")[0], "code object")]
        section = elf.get_section_by_name(FATBIN_SECTION)
        if section is None:
            return None
        if section["sh_type"] == "SHT_NOBITS":
            return None
        offset, length = int(section["sh_offset"]), int(section["sh_size"])
        if offset + length > size:
            raise BundleError(f"{where}: truncated ELF ({FATBIN_SECTION} runs past the end)")
    except (ELFError, ConstructError, struct.error, ValueError, KeyError) as exc:
        raise BundleError(f"{where}: corrupt ELF ({exc})") from None
    try:
        return read_fatbin(region(stream, offset, length))
    except BundleError as exc:
        raise BundleError(f"{where}: {exc}") from None
