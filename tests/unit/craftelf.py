"""Crafted ELF files and wheels for the arch audit's unit tests and its memory benchmark
(benchmarks/archaudit_memory.py): an x86-64 shared object whose ``.hip_fatbin`` holds clang
offload bundles (layout: clang/lib/Driver/OffloadBundler.cpp) whose device entries are AMDGPU
ELF headers, optionally followed by zero padding of any size, written chunk by chunk so that
neither the writer nor the wheel's compressor holds it."""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import zstandard

from rocm_bake.archaudit.bundles import BUNDLE_MAGIC, EM_AMDGPU, PROCESSORS

EM_X86_64 = 62
SHT_PROGBITS, SHT_STRTAB = 1, 3
SHF_ALLOC = 2
MACH = {name: mach for mach, name in PROCESSORS.items()}
ABIVERSION_V5 = 3
CHUNK = 1 << 20


def _elf_header(machine: int, flags: int, abiversion: int, shoff: int, shnum: int,
                shstrndx: int) -> bytes:
    ident = b"\x7fELF" + bytes([2, 1, 1, 0, abiversion]) + bytes(7)
    return ident + struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, 0, shoff, flags, 64, 0, 0,
                               64 if shnum else 0, shnum, shstrndx)


def code_object(arch: str) -> bytes:
    """An AMDGPU code object's ELF header naming ``arch`` (xnack and sramecc: any)."""
    return _elf_header(EM_AMDGPU, MACH[arch] | 0x100 | 0x400, ABIVERSION_V5, 0, 0, 0)


def bundle(archs: Sequence[str]) -> bytes:
    """One uncompressed offload bundle: a host entry and one device entry per arch."""
    ids = [b"host-x86_64-unknown-linux-gnu-"] + [
        f"hipv4-amdgcn-amd-amdhsa--{arch}".encode() for arch in archs]
    payloads = [b""] + [code_object(arch) for arch in archs]
    header_size = len(BUNDLE_MAGIC) + 8 + sum(24 + len(i) for i in ids)
    entries, at = b"", header_size
    for entry_id, payload in zip(ids, payloads, strict=True):
        entries += struct.pack("<QQQ", at if payload else 0, len(payload), len(entry_id))
        entries += entry_id
        at += len(payload)
    return BUNDLE_MAGIC + struct.pack("<Q", len(ids)) + entries + b"".join(payloads)


def ccob(archs: Sequence[str], method: str = "zstd", padding: int = 0,
         announced: int | None = None) -> bytes:
    """A compressed offload bundle (CCOB version 3) of :func:`bundle` followed by ``padding``
    zero bytes; ``announced``: another uncompressed size in its header."""
    inner = bundle(archs) + bytes(padding)
    body = (zstandard.ZstdCompressor().compress(inner) if method == "zstd"
            else zlib.compress(inner, 9))
    header_size = 4 + 4 + 16 + 8
    return (b"CCOB" + struct.pack("<HH", 3, 1 if method == "zstd" else 0)
            + struct.pack("<QQ", header_size + len(body),
                          len(inner) if announced is None else announced)
            + bytes(8) + body)


def _section(name: int, kind: int, flags: int, offset: int, size: int) -> bytes:
    return struct.pack("<IIQQQQIIQQ", name, kind, flags, 0, offset, size, 0, 0, 1, 0)


def write_elf(out: IO[bytes], archs: Sequence[str] = (), padding: int = 0,
              fatbin: bytes | None = None) -> int:
    """An x86-64 shared object; with ``archs`` a ``.hip_fatbin`` of one bundle for them (or
    ``fatbin``) followed by ``padding`` zero bytes, without none (host code only). Its size."""
    names = b"\0.hip_fatbin\0.shstrtab\0"
    if fatbin is None:
        fatbin = bundle(archs) if archs else b""
    fatbin_size = len(fatbin) + padding if fatbin else 0
    shstrtab_at = 64 + fatbin_size
    shoff = shstrtab_at + len(names)
    sections = [bytes(64)]
    if fatbin:
        sections.append(_section(1, SHT_PROGBITS, SHF_ALLOC, 64, fatbin_size))
    sections.append(_section(len(b"\0.hip_fatbin\0"), SHT_STRTAB, 0, shstrtab_at, len(names)))
    out.write(_elf_header(EM_X86_64, 0, 0, shoff, len(sections), len(sections) - 1))
    out.write(fatbin)
    zeros, left = bytes(min(CHUNK, padding)), padding
    while left:
        out.write(zeros[:min(left, CHUNK)])
        left -= min(left, CHUNK)
    out.write(names)
    for section in sections:
        out.write(section)
    return shoff + 64 * len(sections)


def write_wheel(path: Path, members: dict[str, tuple[Sequence[str], int]]) -> Path:
    """A wheel whose members are crafted ELF files (member name -> archs, zero padding),
    deflated, written chunk by chunk."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as wheel:
        for name, (archs, padding) in members.items():
            with wheel.open(name, "w", force_zip64=True) as member:
                write_elf(member, archs, padding)
        wheel.writestr("rb_craft-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    return path
