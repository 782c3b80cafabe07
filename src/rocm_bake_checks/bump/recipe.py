"""vLLM's ROCm recipe at a release: its files, from the release's sdist on PyPI (the sdist
carries ``docker/``) or from git at the tag, and the ARGs they declare."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field
from typing import IO, Any, Protocol
from urllib.parse import urljoin

from rocm_bake.core import redact
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.net import archive
from rocm_bake.net.body import Window
from rocm_bake.net.credentials import Address
from rocm_bake.net.errors import NetError, megabytes
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources.git import GitSource
from rocm_bake_checks.drift.web import JSON_ACCEPT, USER_AGENT, Web

# ARG NAME=value, ARG NAME="value", ARG NAME='value', optionally followed by "# comment"
# (BuildKit reads the comment as more ARG names; upstream writes the branch there).
_ARG = re.compile(r"""^\s*ARG\s+([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|'([^']*)'|(\S*))"""
                  r"""(?:\s+#\s*(.*))?\s*$""")
_BRANCH_NOTE = re.compile(r"^(\S+)\s+as of\b")
_SDIST_COMMIT = re.compile(r"""commit_id\s*=\s*['"]g?([0-9a-f]{7,40})['"]""")
SDIST_BYTES = 256 * 1024 * 1024   # the sdist as downloaded
# What a bump reads of the sdist (its recipe, and the build files lint reads at the pin): the
# rest (csrc/, vllm/, tests/, ...) is not kept (v0.34.0's sdist keeps over 128 MB otherwise).
KEPT_DIRS = ("docker/", "tools/", "requirements/", "cmake/")
KEPT_FILES = ("vllm/_version.py",)
SDIST_LIMITS = archive.Limits()   # what it expands to, each file kept, all of them


class RecipeError(RocmBakeError):
    """The release or its files could not be had (one line: what, and the address asked)."""


@dataclass(frozen=True)
class Arg:
    name: str
    value: str
    comment: str
    line: int

    @property
    def branch_note(self) -> str:
        """The branch upstream names in the ARG's comment ("# release/2.13 as of 09/17")."""
        found = _BRANCH_NOTE.match(self.comment)
        return found.group(1) if found else ""


def args(text: str) -> dict[str, Arg]:
    """Every ARG with a value, by name: its first declaration (a redeclaration with another
    value is an error: which one upstream builds with would depend on the stage)."""
    out: dict[str, Arg] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        found = _ARG.match(line)
        if found is None:
            continue
        name = found.group(1)
        value = next(g for g in (found.group(3), found.group(4), found.group(5)) if g is not None)
        arg = Arg(name, value, (found.group(6) or "").strip(), number)
        if name in out and out[name].value != value:
            raise RecipeError(f"ARG {name} is declared with {out[name].value!r} (line "
                              f"{out[name].line}) and {value!r} (line {number})")
        out.setdefault(name, arg)
    return out


class Files(Protocol):
    where: str

    def text(self, path: str) -> str | None: ...

    def paths(self) -> tuple[str, ...]:
        """Every file's path, where they can be listed (else ``()``)."""
        ...


@dataclass
class Sdist:
    """The files of a release's sdist (``vllm-X.Y.Z.tar.gz``), checked against PyPI's sha256."""

    where: str
    members: dict[str, bytes] = field(default_factory=dict)
    commit_hint: str = ""
    oversized: dict[str, int] = field(default_factory=dict)   # not kept: path -> size
    url: str = ""      # where the bake file names it (before any --rewrite)
    sha256: str = ""   # PyPI's, which it was checked against

    def text(self, path: str) -> str | None:
        if path in self.oversized:
            raise RecipeError(f"{path} in {self.where}: {self.oversized[path]} bytes, over the "
                              f"{megabytes(SDIST_LIMITS.member_bytes)} a file may have here")
        data = self.members.get(path)
        return data.decode("utf-8") if data is not None else None

    def paths(self) -> tuple[str, ...]:
        return tuple(sorted({*self.members, *self.oversized}))


@dataclass
class GitFiles:
    """The files of VLLM_REPO at the release's commit (git, blobs fetched on demand)."""

    git: GitSource
    url: str
    commit: str
    where: str = ""

    def text(self, path: str) -> str | None:
        try:
            return self.git.show(self.url, self.commit, path, Explanation())
        except UnavailableError as exc:
            raise RecipeError(f"{path} at {self.commit[:12]}: {exc}") from None

    def paths(self) -> tuple[str, ...]:
        return ()   # read blob by blob: a tree is not listed


def newest(web: Web, project: str) -> str:
    """The newest release of ``project`` on PyPI (its JSON's info.version)."""
    info = _json(web, f"{web.settings.pypi}/pypi/{project}/json").get("info")
    version = info.get("version") if isinstance(info, dict) else None
    if not isinstance(version, str) or not version:
        raise RecipeError(f"{web.where(web.settings.pypi + '/pypi/' + project + '/json')}: "
                          "no info.version")
    return version


def sdist(web: Web, project: str, version: str) -> Sdist:
    """Download and open ``project``'s sdist of ``version`` (sha256 checked against PyPI)."""
    url = f"{web.settings.pypi}/pypi/{project}/json"
    data = _json(web, url)
    releases = data.get("releases")
    files = releases.get(version) if isinstance(releases, dict) else None
    if not isinstance(files, list):
        raise RecipeError(f"{web.where(url)}: {project} has no release {version}")
    name = f"{project}-{version}.tar.gz"
    entry = next((f for f in files if isinstance(f, dict) and f.get("filename") == name), None)
    if entry is None:
        raise RecipeError(f"{web.where(url)}: release {version} has no sdist {name}")
    digests = entry.get("digests")
    sha256 = digests.get("sha256") if isinstance(digests, dict) else None
    if not isinstance(sha256, str):
        raise RecipeError(f"{web.where(url)}: {name} has no sha256")
    address = web.settings.fetched(url)
    link = web.settings.rewrite(urljoin(address.url, str(entry.get("url", ""))))
    public = web.settings.unrewrite(link)
    shown = redact.text(link)   # an answer may name a link with user-info: never printed
    window = Window(max(0.05, min(web.settings.timeout, web.deadline.remaining())), web.clock)
    top = f"{project}-{version}"
    try:
        with tempfile.TemporaryFile() as body:
            digest, size = _download(link, address, window, body)
            if digest != sha256:
                raise RecipeError(f"{shown}: sha256 is not PyPI's {sha256}")
            body.seek(0)
            found = archive.read(body, size, f"{name} ({shown})",
                                 lambda member: _kept(member, top), SDIST_LIMITS, window)
    except NetError as exc:
        raise RecipeError(str(exc)) from None
    return dataclasses.replace(_sdist(found, top, f"{name} ({shown})"), url=public,
                               sha256=sha256)


def _kept(member: str, top: str) -> bool:
    if not member.startswith(top + "/"):
        return False
    path = member[len(top) + 1:]
    return "/" not in path or path.startswith(KEPT_DIRS) or path in KEPT_FILES


def _json(web: Web, url: str) -> dict[str, Any]:
    try:
        response = web.get(url, JSON_ACCEPT, Explanation())
    except UnavailableError as exc:
        raise RecipeError(f"{web.where(url)}: {exc}") from None
    try:
        body = json.loads(str(response.get("body", "")))
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise RecipeError(f"{web.where(url)}: not a PyPI JSON answer")
    return body


def _download(url: str, address: Address, window: Window, into: IO[bytes]) -> tuple[str, int]:
    """``url`` streamed into ``into`` within ``window`` and ``SDIST_BYTES``: (its sha256, its
    size). ``address``'s credentials go only to its own origin (PyPI's JSON may name a file
    anywhere)."""
    from rocm_bake.net import http  # noqa: PLC0415 (only a bump that downloads)

    headers = {"User-Agent": USER_AGENT}
    if address.authorization_for(url):
        headers["Authorization"] = address.authorization_for(url)
    digest = hashlib.sha256()
    size = 0
    with http.open_url(url, headers, window.left(), window.clock, SDIST_BYTES) as answer:
        if answer.status != 200:
            raise RecipeError(f"{redact.text(url)}: HTTP {answer.status}")
        for chunk in answer.body.chunks():
            digest.update(chunk)
            into.write(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _sdist(found: archive.Members, top: str, where: str) -> Sdist:
    prefix = top + "/"
    members = {name.removeprefix(prefix): data for name, data in found.kept.items()}
    oversized = {name.removeprefix(prefix): size for name, size in found.oversized.items()}
    version_py = members.get("vllm/_version.py", b"").decode("utf-8", "replace")
    match = _SDIST_COMMIT.search(version_py)
    return Sdist(where, members, match.group(1) if match else "", oversized)
