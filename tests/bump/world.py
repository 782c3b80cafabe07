"""A local upstream world for ``inv bump``: git repositories per component (tags, branches,
the files versions are read from; deterministic ids, built with ``git fast-import``) served
by a real ``git daemon``, a loopback PyPI serving a vLLM sdist whose ``docker/`` files name the
new set (vLLM v0.28.0's recipe from its real sdist, its pin ARGs made placeholders: ``TEMPLATES``,
filled in with the world's commits), and a real ``docker-registry`` holding the base image."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import requests

from rocm_bake.oci.registry import Registry
from tests.conftest import FIXTURES, missing
from tests.drift.gitworld import GIT_ENV, daemon, git
from tests.e2e.isolated import held_port
from tests.loopback import http_server
from tests.upstream_sdists import VLLM, member, served

BUMP = FIXTURES / "bump"
VLLM_METADATA = ("pyproject.toml", "setup.py", "requirements/common.txt", "requirements/rocm.txt",
                 "requirements/build/rocm.txt", "tools/vllm-rocm/pin_rocm_dependencies.py")
BASE_IMAGE = ("rocm/dev-ubuntu-22.04", "7.2.3-complete")
RELEASE = "0.33.0"

# The world's v0.33.0 recipe: vLLM v0.28.0's docker/Dockerfile.rocm_base and docker/Dockerfile.rocm
# (read from its sdist) under v0.33.0's names, each ARG below set to the new set (``@@NAME@@``:
# a placeholder ``World.values`` fills with the world's commits), and an ``lmcache_source``
# stage with v0.33.0's LMCache ARGs appended.
TEMPLATES: dict[str, tuple[str, dict[str, str], str]] = {
    "Dockerfile.rocm_72_base": ("docker/Dockerfile.rocm_base", {
        "TRITON_BRANCH": '"@@TRITON_BRANCH@@" # release/internal/3.8.x as of 09/17',
        "PYTORCH_BRANCH": '"@@PYTORCH_BRANCH@@" # release/2.13 as of 09/17',
        "PYTORCH_VISION_BRANCH": '"v0.28.0"', "FA_BRANCH": '"@@FA_BRANCH@@"',
        "AITER_BRANCH": '"@@AITER_BRANCH@@"', "MORI_BRANCH": '"v1.2.3.post1"'}, ""),
    "Dockerfile.rocm_72": ("docker/Dockerfile.rocm", {
        "ROCM_TRITON_KERNELS_COMMIT": "@@TRITON_COMMIT@@", "NIXL_BRANCH": '"@@NIXL_COMMIT@@"',
        "UCX_BRANCH": '"@@UCX_COMMIT@@"'},
        '\nFROM base AS lmcache_source\nARG LMCACHE_REPO="https://github.com/LMCache/LMCache.git"\n'
        'ARG LMCACHE_REF="@@LMCACHE_COMMIT@@"\nARG LMCACHE_VERSION="0.5.6"\n'),
}


def _line(line: str, _: re.Match[str]) -> str:
    return line


@functools.cache
def template(name: str) -> str:
    """``name``'s template (``TEMPLATES``), made from vLLM v0.28.0's real sdist."""
    source, args, tail = TEMPLATES[name]
    text = member(VLLM["0.28.0"], source).read_text(encoding="utf-8")
    for arg, value in args.items():
        # the line as a function's result: a value's backslashes are not re's escapes
        text, count = re.subn(rf"^ARG {arg}=.*$", functools.partial(_line, f"ARG {arg}={value}"),
                              text, flags=re.MULTILINE)
        assert count == 1, f"vLLM 0.28.0's {source} sets ARG {arg} {count} times, not once"
    return text + tail


@dataclass(frozen=True)
class Commit:
    branch: str
    files: Mapping[str, str]
    tag: str = ""


def _data(text: str) -> str:
    return f"data {len(text.encode())}\n{text}"


def build(path: Path, commits: Sequence[Commit]) -> dict[str, str]:
    """A bare repository of ``commits`` (each on its branch, parented on the branch's last
    commit, else on main's); returns {tag or "branch#n": commit id}."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--bare", "--initial-branch=main")
    parts: list[str] = []
    last: dict[str, int] = {}
    when = 1767225600
    for mark, commit in enumerate(commits, start=1):
        when += 3600
        parent = last.get(commit.branch, last.get("main"))
        parts.append(f"commit refs/heads/{commit.branch}\nmark :{mark}\n"
                     f"committer Upstream <upstream@example.invalid> {when} +0000\n"
                     + _data(f"{commit.branch} {mark}") + "\n"
                     + (f"from :{parent}\n" if parent else ""))
        parts.extend(f"M 100644 inline {p}\n{_data(t)}\n" for p, t in commit.files.items())
        parts.append("\n")
        if commit.tag:
            parts.append(f"reset refs/tags/{commit.tag}\nfrom :{mark}\n\n")
        last[commit.branch] = mark
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, env=GIT_ENV, check=True,
                   input="".join(parts), text=True)
    for name, value in (("uploadpack.allowFilter", "true"),
                        ("uploadpack.allowAnySHA1InWant", "true")):
        git(path, "config", name, value)
    (path / "git-daemon-export-ok").touch()
    ids: dict[str, str] = {}
    for line in git(path, "show-ref").splitlines():
        sha, ref = line.split()
        ids[ref.removeprefix("refs/tags/").removeprefix("refs/heads/")] = sha
    return ids


def repositories() -> dict[str, list[Commit]]:
    """owner/repo -> its commits (the old set and the new one)."""
    # release/2.13 has enough commits for two to share an abbreviation (git's shortest: 4)
    many = [Commit("release/2.13", {"n": str(n)}) for n in range(400)]
    return {
        "ROCm/triton": [
            Commit("release/internal/3.7.x", {"python/triton/__init__.py":
                                              "__version__ = '3.7.1'\n"}),
            Commit("release/internal/3.8.x", {"python/triton/__init__.py":
                                              "__version__ = '3.8.0'\n"}),
            Commit("main", {"python/triton/__init__.py": "__version__ = '3.9.0'\n"})],
        "ROCm/pytorch": [
            Commit("release/2.12", {"version.txt": "2.12.0a0\n"}), *many,
            Commit("release/2.13", {"version.txt": "2.13.0a0\n"}),
            Commit("main", {"version.txt": "2.14.0a0\n"}, "v2.14.0-rc1")],
        "pytorch/vision": [Commit("main", {"v": "1"}, "v0.27.1"),
                           Commit("main", {"v": "2"}, "v0.28.0")],
        "pytorch/audio": [Commit("main", {"a": "1"}, "v2.11.0")],
        "ROCm/aiter": [Commit("main", {"a": "1"}, "v0.1.19"), Commit("main", {"a": "2"},
                                                                     "v0.1.26")],
        "openucx/ucx": [Commit("old", {"u": "1"}), Commit("main", {"u": "2"})],
        "ai-dynamo/nixl": [Commit("old", {"x": "1"}), Commit("main", {"x": "2"})],
        "Dao-AILab/flash-attention": [Commit("main", {"f": "1"}), Commit("main", {"f": "2"})],
        "ROCm/mori": [Commit("main", {"m": "1"}, "v1.1.0"),
                      Commit("main", {"m": "2"}, "v1.2.3.post1")],
        "LMCache/LMCache": [Commit("main", {"l": "1"}, "v0.5.3"),
                            Commit("main", {"l": "2"}, "v0.5.6")],
    }


@dataclass
class World:
    root: Path
    git_url: str
    pypi_url: str
    registry: str
    ids: dict[str, dict[str, str]]
    sdists: dict[str, bytes] = field(default_factory=dict)
    digest: str = ""

    raw_url: str = ""

    def rewrites(self) -> list[str]:
        return [f"https://github.com/={self.git_url}",
                f"https://files.pythonhosted.org/={self.pypi_url}/files/",
                f"https://pypi.org={self.pypi_url}",
                f"docker.io/={self.registry}/",
                f"https://raw.githubusercontent.com/={self.raw_url}/"]

    def head(self, repo: str, branch: str) -> str:
        return self.ids[repo][branch]

    def values(self, **overrides: str) -> dict[str, str]:
        """The placeholders of the recipe templates: the new set."""
        triton = self.head("ROCm/triton", "release/internal/3.8.x")
        torch = self.head("ROCm/pytorch", "release/2.13")
        out = {"TRITON_BRANCH": triton[:7], "PYTORCH_BRANCH": torch[:7],
               "AITER_BRANCH": "v0.1.26", "TRITON_COMMIT": triton,
               "NIXL_COMMIT": self.ids["ai-dynamo/nixl"]["main"],
               "UCX_COMMIT": self.ids["openucx/ucx"]["main"],
               "LMCACHE_COMMIT": self.ids["LMCache/LMCache"]["v0.5.6"],
               "FA_BRANCH": self.ids["Dao-AILab/flash-attention"]["main"][:8]}
        out.update(overrides)
        return out

    def files(self, edit: Any = None, **overrides: str) -> dict[str, str]:
        """The release's files: the recipe filled in (``edit``: a function changing the two
        Dockerfiles' texts), and vLLM's metadata files."""
        values = self.values(**overrides)
        texts = {}
        for name in ("Dockerfile.rocm_72_base", "Dockerfile.rocm_72"):
            text = template(name)
            for key, value in values.items():
                text = text.replace(f"@@{key}@@", value)
            texts[name] = text
        if edit is not None:
            texts = edit(texts)
        members = {f"docker/{n}": t for n, t in texts.items()}
        # lint's upstream-dockerfiles.toml names the pre-0.33 files: the same recipe there
        members["docker/Dockerfile.rocm_base"] = texts["Dockerfile.rocm_72_base"]
        members["docker/Dockerfile.rocm"] = texts["Dockerfile.rocm_72"]
        members.update({path: member(VLLM["0.28.0"], path).read_text(encoding="utf-8")
                        for path in VLLM_METADATA})
        members["requirements/rocm-build.txt"] = "torch==2.13.0\n"
        return members

    def recipe(self, edit: Any = None, **overrides: str) -> None:
        """Publish the vLLM sdist of RELEASE (see ``files``) on the loopback PyPI."""
        members = self.files(edit, **overrides)
        commit = self.ids["vllm-project/vllm"]["v0.33.0"]
        members["vllm/_version.py"] = f"__commit_id__ = commit_id = 'g{commit[:9]}'\n"
        self.sdists[RELEASE] = sdist(f"vllm-{RELEASE}", members)


def sdist(top: str, members: Mapping[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in sorted(members.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mtime = len(data), 1767225600
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _raw() -> type[BaseHTTPRequestHandler]:
    """raw.githubusercontent.com's stand-in: a component's metadata file at any ref is upstream's
    at the old set's ref (tests/upstream_sdists.py: read from its sdist, or as recorded)."""
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            owner, repo, _, path = [*self.path.lstrip("/").split("/", 3), "", "", "", ""][:4]
            found = [text for (o, r, _, p), text in
                     ((where.split("/", 3), text) for where, text in served().items())
                     if (o, r, p) == (owner, repo, path)]
            if not found:
                self.send_error(404)
                return
            body = found[0].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def sdist_url(version: str, body: bytes) -> str:
    """Where PyPI's JSON names a release's sdist (its form on files.pythonhosted.org: two
    levels of 2 hex, then 60: here from the file's sha256); the world's ``rewrites`` send it
    to the loopback PyPI."""
    digest = hashlib.sha256(body).hexdigest()
    return (f"https://files.pythonhosted.org/packages/{digest[:2]}/{digest[2:4]}/"
            f"{digest[4:]}/vllm-{version}.tar.gz")


def _pypi(world: World) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/pypi/vllm/json":
                releases = {v: [{"filename": f"vllm-{v}.tar.gz", "packagetype": "sdist",
                                 "url": sdist_url(v, b),
                                 "digests": {"sha256": hashlib.sha256(b).hexdigest()}}]
                            for v, b in world.sdists.items()}
                self._send(json.dumps({"info": {"version": max(world.sdists, default="")},
                                       "releases": releases}).encode(), "application/json")
            elif self.path.startswith("/files/packages/"):
                name = self.path.rsplit("/", 1)[-1]
                version = name.removeprefix("vllm-").removesuffix(".tar.gz")
                body = world.sdists.get(version)
                if body is None:
                    self.send_error(404)
                else:
                    self._send(body, "application/gzip")
            else:
                self.send_error(404)

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def registry(base: Path) -> Iterator[str]:
    """A real docker-registry on a held loopback port; yields HOST:PORT."""
    binary = shutil.which("docker-registry")
    if binary is None:
        missing("docker-registry", "bash scripts/engine.sh install")
    base.mkdir(parents=True, exist_ok=True)
    with held_port() as port:
        config = base / "registry.yml"
        config.write_text(f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {base}/data"
                          f"\nhttp:\n  addr: 127.0.0.1:{port}\nlog:\n  level: error\n")
        proc = subprocess.Popen([str(binary), "serve", str(config)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            _until_up(f"http://127.0.0.1:{port}/v2/", proc)
            yield f"127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait()


def _until_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    """Wait for the registry to answer (an event: its first answer), or for it to exit: no
    deadline, so a slow machine cannot fail it; between tries the wait is on the process."""
    while True:
        with contextlib.suppress(requests.ConnectionError):
            if requests.get(url, timeout=5).status_code == 200:
                return
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=0.05)
        if proc.poll() is not None:
            raise AssertionError(f"docker-registry exited with {proc.returncode}")


def push_base(host: str) -> str:
    """The base image pushed (a config and one layer); returns its manifest digest."""
    reg = Registry(host, credentials=None)
    repository = f"{BASE_IMAGE[0]}"
    config = json.dumps({"architecture": "amd64", "os": "linux"}).encode()
    layer = b"rocm base image of the bump world\n"
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                           "digest": reg.put_blob(repository, config), "size": len(config)},
                "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                            "digest": reg.put_blob(repository, layer), "size": len(layer)}]}
    return reg.put_manifest(repository, BASE_IMAGE[1], manifest)


@contextlib.contextmanager
def running(base: Path) -> Iterator[World]:
    ids = {name: build(base / "git" / f"{name}.git", commits)
           for name, commits in repositories().items()}
    with daemon(base / "git") as git_url, registry(base / "registry") as host:
        world = World(base, git_url, "", host, ids)
        # vLLM's repository last: its release commit holds the recipe naming the others'
        ids["vllm-project/vllm"] = build(base / "git" / "vllm-project/vllm.git", [
            Commit("main", {"requirements/rocm-build.txt": "torch==2.12.0\n"}, "v0.28.0"),
            Commit("main", world.files(), "v0.33.0")])
        with http_server(_pypi(world)) as pypi_url, http_server(_raw()) as raw_url:
            world.pypi_url, world.raw_url = pypi_url, raw_url
            world.recipe()
            world.digest = push_base(host)
            yield world
