"""The one atomic write (rocm_bake.core.atomic): the old text or the new, never a torn file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from rocm_bake.core import atomic


def test_atomic_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "page.md"
    atomic.write_text(target, "one\n")
    atomic.write_text(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["page.md"]


def test_the_file_is_readable_as_a_plain_write_would_leave_it(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    atomic.write_text(target, "x")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    atomic.write_bytes(target, b"y", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_bytes() == b"y"


def test_a_failed_replace_keeps_the_old_and_removes_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "inside").write_text("old")
    with pytest.raises(OSError):
        atomic.write_text(target, "new")       # os.replace cannot put a file over a directory
    assert (target / "inside").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]
