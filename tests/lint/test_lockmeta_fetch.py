"""``inv lock``'s metadata recording reads the index through rocm_bake.net: the PEP 503 page
(or its PEP 691 form), the PEP 658 file when there is one, else the wheel's METADATA by byte
ranges (a server that ignores ranges, as Python's file server does, is read only up to the
range's end), on a real loopback index (tests/lint/pyindex.py); a yanked wheel is read only
when every wheel the lock's sha256s name is yanked (PEP 592, as pip takes an exact pin)."""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.locks import metadata as lockmeta
from tests.lint import pyindex
from tests.loopback import http_server


def _lock(tmp_path: Path, wheel: Path, version: str = "1.0") -> Path:
    lock = tmp_path / "p.txt"
    lock.write_text(f"demo-pkg=={version} \\\n    --hash=sha256:{pyindex.sha256(wheel)}\n")
    return lock


def test_the_metadata_is_read_from_the_wheel_by_ranges(tmp_path: Path) -> None:
    root = tmp_path / "index"
    wheel = pyindex.make_wheel(root / "files", "demo-pkg", "1.0", ["numpy>=2"])
    pyindex.write_index(root, [wheel])
    snapshot = tmp_path / "metadata.json"
    with pyindex.serve(root) as index:
        assert lockmeta.record([_lock(tmp_path, wheel)], snapshot, index) == 1
    dist = lockmeta.load(snapshot)["demo-pkg==1.0"]
    assert dist.requires == ("numpy>=2",)
    assert dist.source.endswith(f"/files/{wheel.name}#METADATA")


def test_a_pep_658_file_is_read_when_there_is_one(tmp_path: Path) -> None:
    root = tmp_path / "index"
    wheel = pyindex.make_wheel(root / "files", "demo-pkg", "1.0")
    pyindex.write_index(root, [wheel])
    (root / "files" / f"{wheel.name}.metadata").write_text(
        "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\nRequires-Dist: six\n")
    snapshot = tmp_path / "metadata.json"
    with pyindex.serve(root) as index:
        lockmeta.record([_lock(tmp_path, wheel)], snapshot, index)
    assert lockmeta.load(snapshot)["demo-pkg==1.0"].requires == ("six",)


def test_a_project_the_index_lacks_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "index"
    wheel = pyindex.make_wheel(tmp_path / "elsewhere", "demo-pkg", "1.0")
    (root / "simple").mkdir(parents=True)
    with pyindex.serve(root) as index, \
            pytest.raises(LintError, match=r"^http://127\.0\.0\.1:\d+/simple/demo-pkg/: HTTP 404 "):
        lockmeta.record([_lock(tmp_path, wheel)], tmp_path / "metadata.json", index)


def _two_wheels(root: Path, yanked: dict[str, str]) -> list[Path]:
    """demo-pkg 1.0 as two wheels, each with a PEP 658 file naming it in its Requires-Dist;
    the page lists them with ``yanked`` (file name -> reason) marked ``data-yanked``, and
    ``index.json`` is its PEP 691 form."""
    pure = pyindex.make_wheel(root / "files", "demo-pkg", "1.0")
    other = pure.with_name("demo_pkg-1.0-py312-none-any.whl")   # other bytes: another sha256
    shutil.move(pyindex.make_wheel(root / "other", "demo-pkg", "1.0", ["six"]), other)
    wheels = [pure, other]
    for wheel in wheels:
        (root / "files" / f"{wheel.name}.metadata").write_text(
            f"Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\nRequires-Dist: {wheel.name}\n")
    page = root / "simple" / "demo-pkg"
    page.mkdir(parents=True)
    links = "".join(f'<a href="../../files/{w.name}#sha256={pyindex.sha256(w)}"'
                    + (f' data-yanked="{yanked[w.name]}"' if w.name in yanked else "")
                    + f">{w.name}</a>\n" for w in wheels)
    (page / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
    (page / "index.json").write_text(json.dumps({"meta": {"api-version": "1.0"}, "files": [
        {"filename": w.name, "url": f"../../files/{w.name}",
         "hashes": {"sha256": pyindex.sha256(w)}, "yanked": yanked.get(w.name, False)}
        for w in wheels]}))
    return wheels


class _Pep691(pyindex._Quiet):
    """The index's project pages in their PEP 691 JSON form (``index.json``)."""

    def do_GET(self) -> None:   # noqa: N802 (http.server names it)
        if not (self.path.startswith("/simple/") and self.path.endswith("/")):
            super().do_GET()
            return
        body = Path(self.translate_path(self.path), "index.json").read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def _serve(root: Path, form: str) -> Iterator[str]:
    if form == "PEP 503 HTML":
        with pyindex.serve(root) as index:
            yield index
        return
    with http_server(functools.partial(_Pep691, directory=str(root))) as url:
        yield f"{url}/simple"


def _lock_of(tmp_path: Path, wheels: list[Path]) -> Path:
    lock = tmp_path / "p.txt"
    lock.write_text("demo-pkg==1.0" + "".join(f" \\\n    --hash=sha256:{pyindex.sha256(w)}"
                                              for w in wheels) + "\n")
    return lock


@pytest.mark.parametrize("form", ["PEP 503 HTML", "PEP 691 JSON"])
def test_a_yanked_wheel_is_read_only_when_every_locked_wheel_is(tmp_path: Path,
                                                               form: str) -> None:
    root = tmp_path / "index"
    pure, other = _two_wheels(root, {"demo_pkg-1.0-py3-none-any.whl": "broken metadata"})
    snapshot = tmp_path / "metadata.json"
    with _serve(root, form) as index:
        lockmeta.record([_lock_of(tmp_path, [pure, other])], snapshot, index)
        assert lockmeta.load(snapshot)["demo-pkg==1.0"].requires == (other.name,)
        names = {f.filename: f.why_yanked for f in lockmeta.index_files(
            lockmeta.Pin("demo-pkg", "1.0", 0, ()), index)}
    assert names == {pure.name: "yanked (broken metadata)", other.name: ""}
    snapshot.unlink()   # only the yanked wheel is locked: an exact pin takes it
    with _serve(root, form) as index:
        lockmeta.record([_lock_of(tmp_path, [pure])], snapshot, index)
    assert lockmeta.load(snapshot)["demo-pkg==1.0"].requires == (pure.name,)
