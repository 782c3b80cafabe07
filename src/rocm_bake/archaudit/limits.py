"""How much the arch audit reads, at most, and how much of it it holds in memory.

Nothing an input holds is read whole into memory: an ELF file is parsed by seeking (its
section headers, then its ``.hip_fatbin`` bundle by bundle, of each code object only the ELF
header); what cannot be seeked (a wheel's compressed member, a file in an image layer, an
inflated ``CCOB`` bundle) is first copied to a spooled temporary file, in memory up to
``SPOOL_BYTES``, beyond that in a temporary file of ``TMPDIR`` (so an audit needs free space
there for its largest file; an image read by reference or from a registry is written there
whole first, as ``docker image save`` or ``skopeo copy`` gives it). An input that would take
more than a limit is one error line (exit status 2) before or as soon as the limit is passed,
never a machine out of memory:

* ``MAX_MEMBER_BYTES``: one file, inflated: an ELF, a wheel's member, a file of an image
  layer, a compressed offload bundle's inflated bundle (8 GiB; a PyTorch ROCm
  ``libtorch_hip.so`` for every arch is a few GiB);
* ``MAX_ARCHIVE_BYTES``: one archive, inflated: the members of a wheel together, the files of
  an image's layers together (64 GiB; a full vLLM ROCm image is well below).

Each is overridden by an environment variable of the same name with the prefix
``ROCM_BAKE_AUDIT_`` (a number of bytes), e.g. ``ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES=1000000``.
"""

from __future__ import annotations

import os
import tempfile
from typing import IO

from rocm_bake.core.errors import RocmBakeError, UsageError

MAX_MEMBER_BYTES = 8 << 30
MAX_ARCHIVE_BYTES = 64 << 30
SPOOL_BYTES = 8 << 20      # a spooled copy stays in memory up to this size
CHUNK_BYTES = 1 << 20      # the unit every copy and scan reads
ENV_PREFIX = "ROCM_BAKE_AUDIT_"


class LimitError(RocmBakeError):
    """An input past one of the limits: one line naming it, the size and the limit."""


def _limit(name: str, default: int) -> int:
    variable = ENV_PREFIX + name
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) == 0:
        raise UsageError(f"{variable}={raw!r}: expected a positive number of bytes")
    return int(raw)


def max_member() -> int:
    """The most bytes one file of an input may inflate to (``MAX_MEMBER_BYTES``)."""
    return _limit("MAX_MEMBER_BYTES", MAX_MEMBER_BYTES)


def max_archive() -> int:
    """The most bytes one archive's files may inflate to together (``MAX_ARCHIVE_BYTES``)."""
    return _limit("MAX_ARCHIVE_BYTES", MAX_ARCHIVE_BYTES)


def member_too_large(what: str, size: int | None, limit: int) -> LimitError:
    amount = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return LimitError(f"{what}: {amount}, over the audit's limit of {limit} bytes for one "
                      f"file ({ENV_PREFIX}MAX_MEMBER_BYTES)")


def archive_too_large(what: str, size: int, limit: int) -> LimitError:
    return LimitError(f"{what}: its files inflate to {size} bytes or more, over the audit's "
                      f"limit of {limit} bytes for one archive ({ENV_PREFIX}MAX_ARCHIVE_BYTES)")


def spool(source: IO[bytes], what: str, head: bytes = b"", limit: int | None = None
          ) -> IO[bytes]:
    """A seekable copy of ``head`` + the rest of ``source`` at position 0, in memory up to
    SPOOL_BYTES, then in a temporary file; the caller closes it. Past ``limit`` bytes (default
    ``max_member()``) a LimitError naming ``what``, the copy closed (and deleted)."""
    bound = max_member() if limit is None else limit
    copy: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES,  # noqa: SIM115
                                                    prefix="rocm-bake-audit-")
    try:
        copy.write(head)
        written = len(head)
        while chunk := source.read(CHUNK_BYTES):
            written += len(chunk)
            if written > bound:
                raise member_too_large(what, None, bound)
            copy.write(chunk)
        copy.seek(0)
    except BaseException:
        copy.close()
        raise
    return copy
