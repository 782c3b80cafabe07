"""The one atomic write (rocm_bake.core.atomic): the old text or the new, never a torn file."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from rocm_bake.core import atomic
from tests.conftest import device


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


def test_a_write_that_cannot_be_done_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("old")
    with pytest.raises(atomic.OutputError, match=r"^cannot write .*file/page\.md: "):
        atomic.write_text(tmp_path / "file" / "page.md", "new")   # its directory is a file
    assert (tmp_path / "file").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


# -- whatever is at the path stays what it is ----------------------------------------------------
def test_a_symlink_is_followed_and_its_target_replaced(tmp_path: Path) -> None:
    (tmp_path / "target.json").write_text("old")
    (tmp_path / "middle").symlink_to("target.json")
    (tmp_path / "link.json").symlink_to("middle")
    atomic.write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "middle").is_symlink()
    assert (tmp_path / "target.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "middle", "target.json"]


def test_a_dangling_symlink_gets_its_target_made(tmp_path: Path) -> None:
    (tmp_path / "link.json").symlink_to("sub/made.json")
    atomic.write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "sub" / "made.json").read_text() == "new"


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader waits: no writer blocks
    try:
        atomic.write_text(fifo, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_character_device_is_written_in_place_and_a_full_one_is_one_line(
        tmp_path: Path) -> None:
    null, full = device(tmp_path, "null", 3), device(tmp_path, "full", 7)
    atomic.write_text(null, "gone")
    with pytest.raises(atomic.OutputError) as failed:
        atomic.write_text(full, "x")
    assert str(failed.value) == f"cannot write {full}: No space left on device"
    assert stat.S_ISCHR(null.stat().st_mode) and stat.S_ISCHR(full.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]


@pytest.mark.parametrize("kind", ["directory", "socket"])
def test_a_directory_or_a_socket_is_refused_and_left_as_it_is(tmp_path: Path,
                                                              kind: str) -> None:
    target = tmp_path / "taken"
    if kind == "directory":
        target.mkdir()
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(target))
        server.close()
    with pytest.raises(atomic.OutputError) as refused:
        atomic.write_text(target, "new")
    assert str(refused.value) == f"cannot write {target}: it is a {kind}, not a file (left as " \
        "it is)"
    assert target.exists() and not target.is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_a_descriptor_of_this_process_is_written_through_it(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w") as handle:
        handle.write("before\n")
        handle.flush()
        atomic.write_text(Path(f"/proc/self/fd/{handle.fileno()}"), "snapshot\n")
        handle.write("after\n")
    assert out.read_text() == "before\nsnapshot\nafter\n"   # neither replaced nor cut
