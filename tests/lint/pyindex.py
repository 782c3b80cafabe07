"""Small real wheels and a PEP 503 "simple" package index of them on loopback, for the locks'
tests: uv resolves against it (``inv lock``), pip installs from it (``--require-hashes``)."""

from __future__ import annotations

import base64
import functools
import hashlib
import re
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.loopback import http_server


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_wheel(directory: Path, name: str, version: str, requires: Sequence[str] = ()) -> Path:
    """A pure-Python wheel of one module, with its Requires-Dist, valid for pip and uv."""
    module = re.sub(r"[-.]+", "_", name).lower()
    dist_info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f"VERSION = {version!r}\n",
        f"{dist_info}/METADATA": "Metadata-Version: 2.1\n"
                                 f"Name: {name}\nVersion: {version}\n"
                                 + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n",
    }
    record = []
    for member, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{member},sha256={digest.decode()},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(zipfile.ZipInfo(member, (2020, 1, 1, 0, 0, 0)), text)
    return path


def write_index(root: Path, wheels: Sequence[Path]) -> None:
    """``root/simple/<name>/index.html`` for every wheel under ``root/files``."""
    by_name: dict[str, list[Path]] = {}
    for wheel in wheels:
        name = re.sub(r"[-_.]+", "-", wheel.name.split("-")[0]).lower()
        by_name.setdefault(name, []).append(wheel)
    for name, found in by_name.items():
        page = root / "simple" / name / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        links = "".join(f'<a href="../../files/{w.name}#sha256={sha256(w)}">{w.name}</a>\n'
                        for w in found)
        page.write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")   # a release added later is seen
        super().end_headers()


@contextmanager
def serve(root: Path) -> Iterator[str]:
    """The index under ``root`` on loopback; yields its ``.../simple`` URL."""
    with http_server(functools.partial(_Quiet, directory=str(root))) as url:
        yield f"{url}/simple"
