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
import re
import struct
import zlib
from dataclasses import dataclass

import zstandard
from elftools.common.exceptions import ELFError
from elftools.construct.core import ConstructError
from elftools.elf.elffile import ELFFile

from rocm_bake.errors import RocmBakeError

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
_NOT_ZERO = re.compile(rb"[^\x00]")
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


def _u64(data: bytes, at: int, what: str) -> int:
    if at + 8 > len(data):
        raise BundleError(f"truncated offload bundle ({what} at byte {at})")
    value: int = struct.unpack_from("<Q", data, at)[0]
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


def read_code_object(data: bytes, where: str) -> str:
    """The target id of one AMDGPU code object (an ELF with e_machine EM_AMDGPU)."""
    try:
        elf = ELFFile(io.BytesIO(data))
        header = elf.header
        machine = header["e_machine"]
        flags = int(header["e_flags"])
        abiversion = int(header["e_ident"]["EI_ABIVERSION"])
    except (ELFError, ConstructError, struct.error, ValueError) as exc:
        raise BundleError(f"{where}: corrupt AMDGPU code object ({exc})") from None
    if machine not in ("EM_AMDGPU", EM_AMDGPU):
        raise BundleError(f"{where}: device entry is not an AMDGPU code object ({machine})")
    return target_id(flags, abiversion)


def _entries(data: bytes, start: int, kind: str) -> tuple[list[CodeObject], int]:
    """The device entries of the uncompressed bundle at ``start``, and where it ends."""
    count = _u64(data, start + len(BUNDLE_MAGIC), "entry count")
    at = start + len(BUNDLE_MAGIC) + 8
    end = at
    objects: list[CodeObject] = []
    if count > len(data):
        raise BundleError(f"corrupt offload bundle ({count} entries in {len(data)} bytes)")
    for _ in range(count):
        offset = _u64(data, at, "entry offset")
        size = _u64(data, at + 8, "entry size")
        id_len = _u64(data, at + 16, "entry id length")
        at += 24
        if at + id_len > len(data):
            raise BundleError(f"truncated offload bundle (entry id at byte {at})")
        bundle_id = data[at:at + id_len].decode("ascii", "replace")
        at += id_len
        if start + offset + size > len(data):
            raise BundleError(f"truncated offload bundle ({bundle_id}: {size} bytes at "
                              f"{offset}, {len(data) - start} in the bundle)")
        end = max(end, at, start + offset + size)
        if bundle_id.startswith("host-") or size == 0:
            continue
        payload = data[start + offset:start + offset + size]
        target = read_code_object(payload, bundle_id)
        objects.append(CodeObject(bundle_id, target, target.partition(":")[0], kind))
    return objects, max(end, at)


_COMPRESSED_HEADERS = {1: ("<I", None), 2: ("<II", 0), 3: ("<QQ", 0)}
_METHODS = {0: "zlib", 1: "zstd"}


def _decompress(method: int, payload: bytes) -> tuple[bytes, int]:
    """Decompress one stream at the start of ``payload``: its bytes and its length."""
    try:
        if method == 0:
            inflater = zlib.decompressobj()
            out = inflater.decompress(payload)
            if not inflater.eof:
                raise BundleError("truncated compressed offload bundle (zlib stream ends early)")
            return out, len(payload) - len(inflater.unused_data)
        zstd = zstandard.ZstdDecompressor().decompressobj()
        out = zstd.decompress(payload)
        if not zstd.eof:
            raise BundleError("truncated compressed offload bundle (zstd frame ends early)")
        return out, len(payload) - len(zstd.unused_data)
    except (zlib.error, zstandard.ZstdError) as exc:
        raise BundleError(f"corrupt compressed offload bundle ({exc})") from None


def _compressed(data: bytes, start: int) -> tuple[list[CodeObject], int]:
    """The entries of the ``CCOB`` bundle at ``start``, and where it ends."""
    if start + 8 > len(data):
        raise BundleError("truncated compressed offload bundle header")
    version, method = struct.unpack_from("<HH", data, start + 4)
    if version not in _COMPRESSED_HEADERS or method not in _METHODS:
        raise BundleError(f"unknown compressed offload bundle (version {version}, "
                          f"method {method})")
    layout, total_index = _COMPRESSED_HEADERS[version]
    fields_at = start + 8
    header_end = fields_at + struct.calcsize(layout) + 8  # + the u64 hash
    if header_end > len(data):
        raise BundleError("truncated compressed offload bundle header")
    fields = struct.unpack_from(layout, data, fields_at)
    uncompressed_size = fields[-1]
    limit = len(data)
    if total_index is not None:
        total = fields[total_index]
        if start + total > len(data):
            raise BundleError(f"truncated compressed offload bundle ({total} bytes announced, "
                              f"{len(data) - start} present)")
        limit = start + total
    inner, used = _decompress(method, data[header_end:limit])
    if len(inner) != uncompressed_size:
        raise BundleError(f"corrupt compressed offload bundle ({len(inner)} bytes "
                          f"uncompressed, {uncompressed_size} announced)")
    if not inner.startswith(BUNDLE_MAGIC):
        raise BundleError("corrupt compressed offload bundle (no bundle inside)")
    kind = f"CCOB v{version} {_METHODS[method]}"
    objects, _ = _entries(inner, 0, kind)
    end = limit if total_index is not None else header_end + used
    return objects, end


def read_fatbin(data: bytes) -> list[CodeObject]:
    """Every device code object of a ``.hip_fatbin`` section (one or more bundles)."""
    objects: list[CodeObject] = []
    at = 0
    while True:
        # Zero padding between the bundles of two translation units.
        found_at = _NOT_ZERO.search(data, at)
        if found_at is None:
            break
        at = found_at.start()
        if data.startswith(BUNDLE_MAGIC, at):
            found, at = _entries(data, at, "bundle")
        elif data.startswith(COMPRESSED_MAGIC, at):
            found, at = _compressed(data, at)
        else:
            raise BundleError(f"corrupt {FATBIN_SECTION}: no bundle magic at byte {at}")
        objects.extend(found)
    return objects


def read_elf(data: bytes, where: str) -> list[CodeObject] | None:
    """The code objects of one ELF file: its fatbin bundles, or itself when it is an AMDGPU
    code object; None when it carries no GPU code."""
    try:
        elf = ELFFile(io.BytesIO(data))
        machine = elf.header["e_machine"]
        if machine in ("EM_AMDGPU", EM_AMDGPU):
            target = read_code_object(data, where)
            return [CodeObject("", target, target.partition(":")[0], "code object")]
        section = elf.get_section_by_name(FATBIN_SECTION)
        if section is None:
            return None
        if section["sh_type"] == "SHT_NOBITS":
            return None
        if section["sh_offset"] + section["sh_size"] > len(data):
            raise BundleError(f"{where}: truncated ELF ({FATBIN_SECTION} runs past the end)")
        fatbin: bytes = section.data()
    except (ELFError, ConstructError, struct.error, ValueError, KeyError) as exc:
        raise BundleError(f"{where}: corrupt ELF ({exc})") from None
    try:
        return read_fatbin(fatbin)
    except BundleError as exc:
        raise BundleError(f"{where}: {exc}") from None
