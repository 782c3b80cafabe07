"""The rehearsal's package index: the **real** locked distributions, served on loopback.

Every ``pip install --require-hashes`` of the real Dockerfiles runs against it as against PyPI:
for each pin of ``dockerfiles/locks/*.txt`` the one file pip would take on the real image
(CPython 3.12, manylinux_2_35 x86_64: what the locks are made for) among the files whose
sha256 the lock records (a yanked one only when every such file is: PEP 592, as pip takes an
exact pin), downloaded once from PyPI into a content-addressed cache
(``<cache>/files/<sha256>``, checked on download and on every use) and listed in a PEP 503
page per project.  A pin with no such file is an error naming it (the lock is then not what
the image can install).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html import escape
from http import HTTPStatus
from pathlib import Path
from typing import TypeVar

from packaging import tags
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

from rocm_bake.core import atomic
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.net import http, simpleindex
from rocm_bake.net.errors import ConnectionFailedError
from rocm_bake.net.simpleindex import IndexFile
from rocm_bake_checks.lint.locks import metadata as lockmeta

PYTHON = (3, 12)
GLIBC = (2, 35)   # Ubuntu 22.04, the real base image's release (the locks' header says so)
_CHUNK = 1 << 20
DOWNLOAD_SECONDS = 900.0   # one file, start to end (the largest locked wheel is 73 MB)
MAX_FILE_BYTES = 1 << 30
T = TypeVar("T")


@dataclass(frozen=True)
class File:
    """One distribution file of the mirror."""

    project: str      # canonical name
    version: str
    filename: str
    sha256: str
    url: str
    size: int = 0


@dataclass(frozen=True)
class Mirror:
    """What the mirror holds and how much of it this run downloaded."""

    files: tuple[File, ...]
    downloaded: int          # files fetched from the index in this run
    downloaded_bytes: int


def target_tags() -> list[tags.Tag]:
    """The tags pip accepts on the real image, most preferred first."""
    platforms = [f"manylinux_{GLIBC[0]}_{minor}_x86_64" for minor in range(GLIBC[1], 16, -1)]
    platforms += ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64",
                  "linux_x86_64"]
    abi = f"cp{PYTHON[0]}{PYTHON[1]}"
    return [*tags.cpython_tags(PYTHON, abis=[abi, "abi3", "none"], platforms=platforms),
            *tags.compatible_tags(PYTHON, interpreter=abi, platforms=platforms)]


def choose(files: Sequence[IndexFile], hashes: Iterable[str]) -> IndexFile | None:
    """The file pip would install among ``files`` whose sha256 is one of ``hashes``: a yanked
    one only when every such file is (PEP 592: the locks pin exactly, as pip takes them)."""
    allowed = set(hashes)
    rank = {tag: n for n, tag in enumerate(target_tags())}
    scored: list[tuple[int, IndexFile]] = []
    for file in files:
        if file.sha256 not in allowed or not file.filename.endswith(".whl"):
            continue
        try:
            _, _, _, wheel_tags = parse_wheel_filename(file.filename)
        except InvalidWheelFilename:
            continue
        score = min((rank[t] for t in wheel_tags if t in rank), default=None)
        if score is not None:
            scored.append((score, file))
    fit = simpleindex.installable([file for _, file in scored], exact=True)
    best = min((pair for pair in scored if pair[1] in fit), key=lambda pair: pair[0],
               default=None)
    return best[1] if best else None


def pins_of(locks: Iterable[Path]) -> list[lockmeta.Pin]:
    """Every ``name==version`` of the locks, once (the union of their sha256s)."""
    pins: dict[tuple[str, str], lockmeta.Pin] = {}
    for lock in locks:
        for pin in lockmeta.lock_pins(lock.read_text(encoding="utf-8")).values():
            key = (pin.name, pin.version)
            known = pins[key].hashes if key in pins else ()
            pins[key] = lockmeta.Pin(pin.name, pin.version, pin.line,
                                     tuple(dict.fromkeys(known + pin.hashes)))
    return [pins[k] for k in sorted(pins)]


Lister = Callable[[lockmeta.Pin], list[IndexFile]]


def resolve(pins: Sequence[lockmeta.Pin], lister: Lister | None = None) -> list[File]:
    """The file of each pin (an index look-up per project, through the one bounded fetch
    layer); a pin without one is an error."""
    listing: Lister = lister or lockmeta.index_files
    with ThreadPoolExecutor(max_workers=8) as pool:
        listed = list(pool.map(lambda pin: retried(lambda: listing(pin)), pins))
    out, missing = [], []
    for pin, files in zip(pins, listed, strict=True):
        chosen = choose(files, pin.hashes)
        if chosen is None:
            missing.append(f"{pin.name}=={pin.version}")
            continue
        out.append(File(pin.name, pin.version, chosen.filename, chosen.sha256, chosen.url))
    if missing:
        raise RocmBakeError("no file for CPython 3.12 manylinux_2_35 x86_64 among the sha256s "
                            f"the locks record: {', '.join(missing)} (re-lock: inv lock)")
    return out


def retried(call: Callable[[], T], attempts: int = 3,
            pause: Callable[[float], None] = time.sleep) -> T:
    """``call()``, again after a connection that failed (a name lookup that failed for a
    moment, a reset): PyPI's answers are idempotent.  A timeout or an over-size answer is not
    retried."""
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except ConnectionFailedError:
            if attempt == attempts:
                raise
            pause(2.0 * attempt)
    raise AssertionError("unreachable")


def resolve_cached(pins: Sequence[lockmeta.Pin], cache: Path) -> list[File]:
    """:func:`resolve`, remembered in the cache by the pins' content (name, version and
    sha256s): the same locks need no index look-up again."""
    key = hashlib.sha256(json.dumps([[p.name, p.version, sorted(p.hashes)] for p in pins])
                         .encode()).hexdigest()
    memo = cache / "resolved" / f"{key}.json"
    if memo.is_file():
        try:
            return [File(**entry) for entry in json.loads(memo.read_text(encoding="utf-8"))]
        except (ValueError, TypeError):
            pass   # a damaged memo is resolved again
    files = resolve(pins)
    atomic.write_text(memo, json.dumps([vars(f) for f in files], indent=0) + "\n")
    return files


def cached(cache: Path, sha256: str) -> Path:
    return cache / "files" / sha256


def fill(files: Sequence[File], cache: Path, timeout: float = DOWNLOAD_SECONDS) -> Mirror:
    """Every file in the cache, downloaded where it lacks it (each checked by sha256)."""
    todo = [f for f in files if not _valid(cached(cache, f.sha256), f.sha256)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        sizes = list(pool.map(lambda f: retried(lambda: _download(f, cache, timeout)), todo))
    done = tuple(File(f.project, f.version, f.filename, f.sha256, f.url,
                      cached(cache, f.sha256).stat().st_size) for f in files)
    return Mirror(done, len(todo), sum(sizes))


def _valid(path: Path, sha256: str) -> bool:
    return path.is_file() and _digest(path) == sha256


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def _download(file: File, cache: Path, timeout: float) -> int:
    """One file into the cache through the bounded fetch layer, streamed and hashed; only a
    file of the lock's sha256 takes its place (a partial one never does)."""
    target = cached(cache, file.sha256)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    h = hashlib.sha256()
    try:
        with http.open_url(file.url, {}, timeout, max_bytes=MAX_FILE_BYTES) as answer:
            if answer.status != HTTPStatus.OK:
                raise RocmBakeError(f"cannot download {file.filename}: HTTP {answer.status} "
                                    f"{answer.reason}")
            with part.open("wb") as out:
                for block in answer.body.chunks():
                    h.update(block)
                    out.write(block)
        if h.hexdigest() != file.sha256:
            raise RocmBakeError(f"{file.filename}: the index served sha256 {h.hexdigest()}, "
                                f"the lock records {file.sha256}")
        part.replace(target)
        return target.stat().st_size
    finally:
        part.unlink(missing_ok=True)


def write_index(mirror: Mirror, root: Path, extra: Iterable[tuple[str, str, Path]] = ()) -> None:
    """PEP 503 pages under ``root/simple/<project>/``; files are served from ``/files/<sha256>/
    <filename>``.  ``extra`` adds (project, filename, path) files (the stand-in wheels the
    rehearsal's wheel mirror must not hold are never here: only the locks' files are)."""
    pages: dict[str, list[tuple[str, str]]] = {}
    for file in mirror.files:
        pages.setdefault(file.project, []).append((file.filename, file.sha256))
    for project, filename, path in extra:
        pages.setdefault(canonicalize_name(project), []).append((filename, _digest(path)))
    for project, entries in pages.items():
        links = "\n".join(f'<a href="/files/{sha}/{escape(name)}#sha256={sha}">'
                          f"{escape(name)}</a><br>" for name, sha in sorted(entries))
        atomic.write_text(root / "simple" / project / "index.html",
                          f"<!DOCTYPE html>\n<html><body>\n{links}\n</body></html>\n")
    names = "\n".join(f'<a href="/simple/{p}/">{p}</a><br>' for p in sorted(pages))
    atomic.write_text(root / "simple" / "index.html",
                      f"<!DOCTYPE html>\n<html><body>\n{names}\n</body></html>\n")
