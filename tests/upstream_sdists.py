"""Upstream's files as the tests read them: from upstream's **real** release sdists on PyPI,
downloaded when the tests set up (by URL and sha256, through the project's bounded fetch layer,
into the rehearsal's content-addressed cache) and extracted beside it, never committed.

``raw(path)`` answers a raw.githubusercontent.com path (``owner/repo/ref/file``) of a release
the sdists below carry (vLLM v0.28.0 at commit 2cf0a69..., LMCache v0.5.3 at 140819c...,
CuPy v14.2.0); the files that exist only on GitHub (AITER's at tag v0.1.19, NIXL's
pyproject.toml at 231d567..., FlashAttention's setup.py at 0e60e39...) are in no sdist: ``raw``
answers them from what the recorder recorded (src/rocm_bake_checks/lint/upstream-metadata.json,
``inv lint --online --record``), never from a copy in the repository."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.rehearse import mirror
from tests.conftest import ROOT, missing

FILES = "https://files.pythonhosted.org/packages"
RAW = "https://raw.githubusercontent.com"
SNAPSHOT = ROOT / "src" / "rocm_bake_checks" / "lint" / "upstream-metadata.json"


@dataclass(frozen=True)
class Sdist:
    """One release's sdist on PyPI (https://pypi.org/simple/<project>/): where
    files.pythonhosted.org keeps it and its sha256, the content pin."""

    project: str
    version: str
    where: str
    sha256: str

    @property
    def filename(self) -> str:
        return f"{self.project}-{self.version}.tar.gz"

    @property
    def url(self) -> str:
        return f"{FILES}/{self.where}/{self.filename}"


VLLM = {
    "0.28.0": Sdist("vllm", "0.28.0", "22/39/096d88cfe34ee43a8b6e7c957d1ad6338fa5256474d6ff9a3200"
                    "8c6f8cd6", "ac96dd0ec5be9c13f2aa4bfb50498c4727110406f6e4980b58a4097e4d18634a"),
    "0.33.0": Sdist("vllm", "0.33.0", "f7/25/aa5684e9c59d6fc75f78926b7f15e8d9adc7de2d9e6e7575b807"
                    "76ad8169", "f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c74112"),
    "0.34.0": Sdist("vllm", "0.34.0", "92/21/6e0b077dc4a0b28f5a8ce8bb352a38d7196650d681fd4faa87f8"
                    "dc622eff", "fcad848b246a9d8652b47e6425af92334dc02492f9802720f54e27b823cf0113"),
}
LMCACHE = Sdist("lmcache", "0.5.3", "27/1f/1a3e5c8096c9e4460bc703c73f96a7fd8141c6aca68f2a4a0c0120"
                "dae291", "aa2e1313d6dcfa719638b3cd62cb42875469841dec6e62e32111856bc8d04d96")
CUPY = Sdist("cupy", "14.2.0", "dc/10/059a92d40b161ea24607c9e41a75098812ca7021f2b565524f87beba15c"
             "9", "cfed725e612178cfbdbf62f4a3a598b60edecbbca718c0d4580c21a16ae4a62c")
ALL = (*VLLM.values(), LMCACHE, CUPY)

# owner/repo/ref of raw.githubusercontent.com -> the sdist of that release (vLLM 0.28.0's
# vllm/_version.py names g2cf0a6915; LMCache 0.5.3 is tag v0.5.3, commit 140819c...)
RELEASES = {
    "vllm-project/vllm/2cf0a6915ce544dc493a0990f2ea38d81601128a": VLLM["0.28.0"],
    "LMCache/LMCache/140819c9d57a975dbc5678a6459a218e544cb58b": LMCACHE,
    "cupy/cupy/v14.2.0": CUPY,
}
# The files of those releases lint reads (lint/upstream.toml, upstream-dockerfiles.toml)
READ = {
    "vllm-project/vllm": ("docker/Dockerfile.rocm_base", "docker/Dockerfile.rocm", "setup.py",
                          "pyproject.toml", "requirements/common.txt", "requirements/rocm.txt",
                          "requirements/build/rocm.txt",
                          "tools/vllm-rocm/pin_rocm_dependencies.py"),
    "LMCache/LMCache": ("pyproject.toml", "requirements/common.txt",
                        "requirements/rocm_core.txt"),
    "cupy/cupy": ("pyproject.toml", "setup.py"),
}


def cache() -> Path:
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return home / "rocm-bake" / "rehearsal"


def archive(sdist: Sdist) -> Path:
    """The sdist in the cache, downloaded once and checked by sha256; PyPI unreachable is a
    one-line failure naming it (never a skip)."""
    file = mirror.File(sdist.project, sdist.version, sdist.filename, sdist.sha256, sdist.url)
    try:
        mirror.fill([file], cache())
    except RocmBakeError as exc:
        failure = str(exc)
    else:
        return mirror.cached(cache(), sdist.sha256)
    # outside the handler: the failure is its one line, no chained exception
    missing(f"{sdist.filename} from PyPI ({failure})", "a machine that reaches PyPI")


@functools.cache
def tree(sdist: Sdist) -> Path:
    """The sdist extracted (once: beside the cache's files, named by its sha256); its top
    directory (``<project>-<version>/``)."""
    done = cache() / "extracted" / sdist.sha256
    if not done.is_dir():
        done.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=done.parent) as tmp, \
                tarfile.open(archive(sdist)) as tar:
            tar.extractall(tmp, filter="data")
            try:
                os.rename(tmp, done)
            except OSError:     # another process extracted it first
                shutil.rmtree(tmp, ignore_errors=True)
            Path(tmp).mkdir(exist_ok=True)   # for TemporaryDirectory's own cleanup
    return done / f"{sdist.project}-{sdist.version}"


def member(sdist: Sdist, path: str) -> Path:
    return tree(sdist) / path


def members(sdist: Sdist) -> Iterator[Path]:
    """Every regular file of the sdist."""
    return (p for p in sorted(tree(sdist).rglob("*")) if p.is_file() and not p.is_symlink())


def recorded() -> dict[str, str]:
    """owner/repo/ref/file -> the body the recorder recorded, for what no sdist carries."""
    answers = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["answers"]
    out: dict[str, str] = {}
    for key, answer in answers.items():
        url = key.removeprefix("GET ").rsplit(" ", 1)[0]
        if url.startswith(f"{RAW}/") and "body" in answer["value"]:
            out[url.removeprefix(f"{RAW}/")] = answer["value"]["body"]
    return out


def raw(path: str) -> str | None:
    """raw.githubusercontent.com's answer for ``owner/repo/ref/file``: the sdist's member for a
    release above, else what the recorder recorded, else None (a 404)."""
    parts = path.split("/", 3)
    release = RELEASES.get("/".join(parts[:3])) if len(parts) == 4 else None
    if release is not None:
        if parts[3] not in READ["/".join(parts[:2])]:
            return None
        return member(release, parts[3]).read_text(encoding="utf-8")
    return recorded().get(path)


@functools.cache
def served() -> dict[str, str]:
    """Every path (``owner/repo/ref/file``) lint reads upstream, with its text: the sdists'
    files of READ and the recorded rest."""
    out = {path: text for path, text in recorded().items()
           if "/".join(path.split("/", 3)[:3]) not in RELEASES}
    for where, release in RELEASES.items():
        for file in READ["/".join(where.split("/")[:2])]:
            out[f"{where}/{file}"] = member(release, file).read_text(encoding="utf-8")
    return dict(sorted(out.items()))


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
