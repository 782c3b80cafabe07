"""Upstream's files as the tests read them: from upstream's **real** release sdists on PyPI,
downloaded when the tests set up (by URL and sha256, through the project's bounded fetch layer,
into the rehearsal's content-addressed cache) and extracted beside it, never committed.

``raw(path)`` answers a raw.githubusercontent.com path (``owner/repo/ref/file``) of a release
the sdists below carry (vLLM v0.33.0 at its sdist's abbreviated commit 4ba787ec9, LMCache v0.5.3
at 140819c..., CuPy v14.2.0); the files that exist only on GitHub (AITER's and NIXL's at the
stand-in commits lint/upstream.toml names, FlashAttention's setup.py at 0e60e39...) are in no
sdist, and
the recorder kept only what lint reads of them (src/rocm_bake_checks/lint/upstream-metadata.json:
requirement lines, arch lists, switches, with the sha256 of the file read): ``raw`` answers
them with the tests' own small files of their shape saying exactly that (``written``), never
with a copy of upstream's."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

# owner/repo/ref of raw.githubusercontent.com -> the sdist of that release (vLLM 0.33.0's
# vllm/_version.py names g4ba787ec9, the bake file's VLLM_COMMIT; LMCache 0.5.3 is tag v0.5.3,
# commit 140819c...)
RELEASES = {
    "vllm-project/vllm/4ba787ec9": VLLM["0.33.0"],
    "LMCache/LMCache/140819c9d57a975dbc5678a6459a218e544cb58b": LMCACHE,
    "cupy/cupy/v14.2.0": CUPY,
}
# The files of those releases lint reads (lint/upstream.toml, upstream-dockerfiles.toml)
READ = {
    "vllm-project/vllm": ("docker/Dockerfile.rocm_72_base", "docker/Dockerfile.rocm_72", "setup.py",
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


def recorded() -> dict[str, dict[str, dict[str, Any]]]:
    """owner/repo/ref/file -> {label: {sha256, value}}: what the recorder read of each file
    (src/rocm_bake_checks/lint/upstream-metadata.json)."""
    answers = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["answers"]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for key, answer in answers.items():
        found = _KEY.fullmatch(key)
        if found is not None and "value" in answer:
            out.setdefault(found["path"], {})[found["label"]] = answer["value"]
    return out


_KEY = re.compile(rf"GET {re.escape(RAW)}/(?P<path>\S+) \[text/plain\] \[(?P<label>.+)\]")
_ARCHS = re.compile(r"archs of (?P<name>\w+)")
_SWITCH = re.compile(r"reads (?P<env>\w+) == '(?P<value>[^']*)'")
_REQUIRES = re.compile(r"requirements \(false: (?P<false>[^;]*); true: (?P<true>[^)]*)\)")


def written(path: str, facts: Mapping[str, Mapping[str, Any]]) -> str:
    """A file of the shape of upstream's ``path`` that says exactly ``facts`` (what the
    recorder read of it): the tests' own stand-in for a file that exists only on GitHub."""
    values = {label: fact["value"] for label, fact in facts.items()}
    if path.endswith(".txt"):
        return "".join(f"{line}\n" for line in values.get("requirement lines", []))
    if path.endswith(".toml"):
        out = f"[build-system]\nrequires = {json.dumps(values.get('build-system requires', []))}\n"
        dependencies = [v for label, v in values.items() if _REQUIRES.fullmatch(label)]
        if dependencies:
            out += f"\n[project]\nname = \"x\"\ndependencies = {json.dumps(dependencies[0])}\n"
        return out
    lines = ["import os", "from setuptools import setup", ""]
    requires: dict[tuple[str, str], Any] = {}
    for label, value in values.items():
        if (archs := _ARCHS.fullmatch(label)) is not None:
            lines.append(f"{archs['name']} = {json.dumps(value)}")
        elif (switch := _SWITCH.fullmatch(label)) is not None and value:
            lines.append(f"SWITCH = os.environ.get({switch['env']!r}, '') == {switch['value']!r}")
        elif (found := _REQUIRES.fullmatch(label)) is not None:
            requires[(found["false"], found["true"])] = value
    return "\n".join([*lines, *_setup_call(requires)]) + "\n"


def _setup_call(requires: Mapping[tuple[str, str], Any]) -> list[str]:
    """One ``setup()`` whose ``install_requires`` says each recorded reading: the requirements
    read with its switch off and (where recorded) on, e.g. AITER's AITER_TRITON_ONLY."""
    if not requires:
        return []
    flags = sorted({flag for pair in requires for flag in pair if flag})
    if not flags:
        lines = [f"install_requires = {json.dumps(next(iter(requires.values())))}"]
    else:
        flag = flags[0]          # one switch per file: what the recorder reads of AITER's
        on: Any = next((v for (_, true), v in requires.items() if true == flag), [])
        off: Any = next((v for (false, _), v in requires.items() if false == flag), [])
        lines = [f"{flag} = os.environ.get({flag!r}, '0') == '1'", f"if {flag}:",
                 f"    install_requires = {json.dumps(on)}", "else:",
                 f"    install_requires = {json.dumps(off)}"]
    return [*lines, "setup(name='x', install_requires=install_requires)"]


def raw(path: str) -> str | None:
    """raw.githubusercontent.com's answer for ``owner/repo/ref/file``: the sdist's member for a
    release above, else a file of its shape saying what the recorder read of it (``written``),
    else None (a 404)."""
    parts = path.split("/", 3)
    release = RELEASES.get("/".join(parts[:3])) if len(parts) == 4 else None
    if release is not None:
        if parts[3] not in READ["/".join(parts[:2])]:
            return None
        return member(release, parts[3]).read_text(encoding="utf-8")
    facts = recorded().get(path)
    return None if facts is None else written(path, facts)


@functools.cache
def served() -> dict[str, str]:
    """Every path (``owner/repo/ref/file``) lint reads upstream, with its text: the sdists'
    files of READ, and for the rest (on GitHub only) the tests' own files of their shape."""
    out = {path: written(path, facts) for path, facts in recorded().items()
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
