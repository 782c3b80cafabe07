"""The locked distributions' own metadata (their ``Requires-Dist`` and ``Requires-Python``),
recorded once from PyPI and replayed offline by the resolution family (``lint.locks.resolution``).

Every ``name==version`` of ``dockerfiles/locks/*.txt`` has an entry in the committed snapshot
``dockerfiles/locks/metadata.json``, read from the PEP 658 core-metadata file PyPI serves
beside the locked wheel (``<wheel URL>.metadata``: the wheel's own ``METADATA``, not the whole
wheel), the wheel chosen by a sha256 the lock records.  ``inv lock`` refreshes it for the pins
it lacks (``record``); the lint never goes online and names a pin the snapshot lacks.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_bake.core import atomic
from rocm_bake.net import simpleindex
from rocm_bake.net.simpleindex import IndexFile
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.upstream import canonical

SNAPSHOT = Path("dockerfiles") / "locks" / "metadata.json"
FORMAT = "rocm-bake-locked-metadata/1"
SIMPLE = "https://pypi.org/simple"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)")
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")
TIMEOUT = 30.0   # one request, in all (rocm_bake.net: every read within it, every answer capped)

if TYPE_CHECKING:
    from rocm_bake.net.http import Response


@dataclass(frozen=True)
class Pin:
    name: str          # canonical
    version: str
    line: int
    hashes: tuple[str, ...]


@dataclass(frozen=True)
class Dist:
    name: str
    version: str
    requires: tuple[str, ...]
    python: str        # Requires-Python ("" = any)
    source: str        # where the metadata was read


def lock_pins(text: str) -> dict[str, Pin]:
    """Canonical name -> its pin (version, line, sha256s) of a uv hashed lock."""
    out: dict[str, Pin] = {}
    current: tuple[str, str, int] | None = None
    hashes: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _PIN.match(line)
        if match:
            if current:
                out[current[0]] = Pin(*current[:2], current[2], tuple(hashes))
            current, hashes = (canonical(match.group(1)), match.group(2), number), []
        if current:
            hashes += _HASH.findall(line)
    if current:
        out[current[0]] = Pin(*current[:2], current[2], tuple(hashes))
    return out


def key(name: str, version: str) -> str:
    return f"{canonical(name)}=={version}"


def load(path: Path) -> dict[str, Dist]:
    """The snapshot's distributions by ``name==version``; an empty map when it is absent."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise LintError(f"{path}: not a {FORMAT} snapshot")
        return {k: Dist(str(v["name"]), str(v["version"]), tuple(v["requires"]),
                        str(v.get("requires-python", "")), str(v["source"]))
                for k, v in data["dists"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise LintError(f"{path}: malformed locked-metadata snapshot ({exc})") from None


def save(path: Path, dists: Mapping[str, Dist]) -> None:
    data = {"format": FORMAT,
            "note": "Requires-Dist / Requires-Python of every distribution the locks pin, from "
                    "the PEP 658 core metadata PyPI serves beside the locked wheel (source); "
                    "written by `inv lock`, replayed offline by `inv lint` (family resolution)",
            "dists": {k: {"name": d.name, "version": d.version, "requires": list(d.requires),
                          "requires-python": d.python, "source": d.source}
                      for k, d in sorted(dists.items())}}
    atomic.write_text(path, json.dumps(data, indent=1, sort_keys=False) + "\n")


def record(locks: Iterable[Path], path: Path, index: str = SIMPLE,
           published: Iterable[str] = ()) -> int:
    """Add every pin of ``locks`` the snapshot lacks, and every ``published`` wheel (by file
    name, e.g. what ``upstream.toml`` ``[built]`` reads as ``pypi:<wheel>``), read from
    ``index``; drop the entries nothing names any more.  Returns how many were fetched."""
    pins: dict[str, Pin] = {}
    for lock in locks:
        for pin in lock_pins(lock.read_text(encoding="utf-8")).values():
            pins[key(pin.name, pin.version)] = pin
    wheels = set(published)
    known = {k: d for k, d in load(path).items() if k in pins or k in wheels}
    wanted = [p for k, p in sorted(pins.items()) if k not in known]
    missing = sorted(wheels - set(known))
    with ThreadPoolExecutor(max_workers=8) as pool:
        for dist in pool.map(lambda p: _fetch(p, index), wanted):
            known[key(dist.name, dist.version)] = dist
        for filename, dist in zip(missing, pool.map(lambda f: _published(f, index), missing),
                                  strict=True):
            known[filename] = dist
    save(path, known)
    return len(wanted) + len(missing)


def _published(filename: str, index: str) -> Dist:
    """The core metadata of one published wheel file (named exactly: yanked or not)."""
    name, version = filename.split("-")[:2]
    pin = Pin(canonical(name), version, 0, ())
    files = [f for f in index_files(pin, index) if f.filename == filename]
    if not files:
        raise LintError(f"{index}/{pin.name}/: no file {filename}")
    return _metadata(pin, files[0])


def index_files(pin: Pin, index: str = SIMPLE) -> list[IndexFile]:
    """The index's files of ``pin``'s project (``rocm_bake.net.simpleindex``: its PEP 691
    JSON page, else its PEP 503 HTML page; yanked ones marked): the files a lock's sha256s
    choose from (the rehearsal's wheel mirror downloads them)."""
    where = f"{index}/{pin.name}/"
    page = _get(where, {"Accept": simpleindex.ACCEPT})
    if page.status != 200:
        raise LintError(f"{where}: HTTP {page.status} {page.reason}")
    try:
        return simpleindex.parse(page.text, page.headers.get("Content-Type", ""), where)
    except simpleindex.PageError as exc:
        raise LintError(str(exc)) from None


def _fetch(pin: Pin, index: str) -> Dist:
    """The metadata of a wheel of the pin (``==``, by the lock's sha256s): a yanked one only
    when every such wheel is (PEP 592: an exact pin may take a yanked file, as pip does)."""
    files = simpleindex.installable([f for f in index_files(pin, index)
                                     if f.sha256 in pin.hashes and f.filename.endswith(".whl")],
                                    exact=True)
    if not files:
        raise LintError(f"{index}/{pin.name}/: no wheel of {pin.name}=={pin.version} has a "
                        "sha256 the lock records")
    chosen = sorted(files, key=lambda f: ("none-any" not in f.filename, f.filename))[0]
    return _metadata(pin, chosen)


def _metadata(pin: Pin, chosen: IndexFile) -> Dist:
    wheel = chosen.url
    url = f"{wheel}.metadata"
    answer = _get(url)
    if answer.status == 404:   # no PEP 658 file: the METADATA member, by byte ranges
        url = f"{wheel}#METADATA"
        text = _member(wheel, chosen.filename)
    elif answer.status != 200:
        raise LintError(f"{url}: HTTP {answer.status} {answer.reason}")
    else:
        text = answer.text
    headers = HeaderParser().parsestr(text)
    if canonical(str(headers.get("Name", ""))) != pin.name or headers.get("Version") is None:
        raise LintError(f"{url}: not the core metadata of {pin.name}=={pin.version}")
    return Dist(pin.name, pin.version, tuple(headers.get_all("Requires-Dist") or ()),
                str(headers.get("Requires-Python") or ""), url)


def _get(url: str, headers: dict[str, str] | None = None) -> Response:
    from rocm_bake.net import http  # noqa: PLC0415 (only inv lock records)

    return http.get(url, headers or {}, TIMEOUT)


class _Ranges:
    """A remote file read by HTTP byte ranges (what ``zipfile`` seeks to and reads); a server
    that ignores ranges is read only up to the end of the range asked, never whole."""

    def __init__(self, url: str) -> None:
        from rocm_bake.net import http  # noqa: PLC0415

        self.http = http
        self.url, self.pos = url, 0
        with http.open_url(url, {}, TIMEOUT, method="HEAD") as head:
            length = head.headers.get("Content-Length", "")
            if head.status != 200 or not length.isdigit():
                raise LintError(f"{url}: HTTP {head.status} {head.reason} (no length to read "
                                "its METADATA by ranges)")
        self.size = int(length)

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def tell(self) -> int:
        return self.pos

    def read(self, size: int = -1) -> bytes:
        end = self.size if size < 0 else min(self.size, self.pos + size)
        if end <= self.pos:
            return b""
        headers = {"Range": f"bytes={self.pos}-{end - 1}"}
        with self.http.open_url(self.url, headers, 2 * TIMEOUT,
                                max_bytes=end + 65536) as answer:   # read only to the end
            if answer.status not in (200, 206):
                raise LintError(f"{self.url}: HTTP {answer.status} {answer.reason}")
            start = self.pos if answer.status == 200 else 0   # 200: the file from its start
            data = bytearray()
            for chunk in answer.body.chunks():
                data += chunk
                if len(data) >= start + end - self.pos:
                    break
        content = bytes(data[start:start + end - self.pos])
        self.pos += len(content)
        return content


def _member(url: str, filename: str) -> str:
    """The wheel's ``*.dist-info/METADATA``, reading only the zip's directory and member."""
    with zipfile.ZipFile(_Ranges(url)) as archive:
        names = [n for n in archive.namelist()
                 if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
        if len(names) != 1:
            raise LintError(f"{url}: {filename} has {len(names)} METADATA files")
        return archive.read(names[0]).decode("utf-8")
