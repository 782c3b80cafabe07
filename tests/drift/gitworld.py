"""Real git repositories with the real tag names of tests/fixtures/upstream, built with
``git fast-import`` (one commit per tag, in creation order; annotated tags where the fixture
says ``tag``), served by a real ``git daemon`` on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tests.conftest import FIXTURES

UPSTREAM = FIXTURES / "upstream"
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "LC_ALL": "C",
           "PATH": "/usr/local/bin:/usr/bin:/bin"}


def fixture_tags(slug: str) -> list[tuple[str, str, str]]:
    """(tag, date, object type) of ``owner__repo``, in creation order."""
    rows = []
    for line in (UPSTREAM / f"{slug}.dates.tsv").read_text().splitlines():
        name, date, kind = line.split("\t")
        rows.append((name, date, kind))
    return rows


@dataclass
class Repo:
    path: Path
    commits: dict[str, str] = field(default_factory=dict)   # tag -> peeled commit
    objects: dict[str, str] = field(default_factory=dict)   # tag -> ref target (tag object)
    heads: dict[str, str] = field(default_factory=dict)

    def rev(self, *args: str) -> str:
        return git(self.path, *args).strip()


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True,
                          text=True, check=True)
    return proc.stdout


@dataclass
class Spec:
    """A repository to build: tags in order, extra commits, branches, files."""

    tags: Sequence[tuple[str, str, str]]
    tail: int = 2                                         # commits on main after the last tag
    branches: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # name -> (tag, n)
    files: Mapping[str, str] = field(default_factory=dict)                 # in every commit


def _epoch(date: str, index: int) -> int:
    day = datetime.fromisoformat(date).replace(tzinfo=UTC)
    return int(day.timestamp()) + 43200 + index


def _data(text: str) -> str:
    raw = text.encode()
    return f"data {len(raw)}\n{text}"


def _commit(ref: str, mark: int, parent: int | None, when: int, message: str,
            files: Mapping[str, str]) -> str:
    out = [f"commit {ref}\n", f"mark :{mark}\n",
           f"committer Upstream <upstream@example.invalid> {when} +0000\n",
           _data(message) + "\n"]
    if parent is not None:
        out.append(f"from :{parent}\n")
    out.append(f"M 100644 inline VERSION\n{_data(message)}\n")
    out.extend(f"M 100644 inline {path}\n{_data(text)}\n" for path, text in files.items())
    return "".join(out) + "\n"


def stream(spec: Spec) -> str:
    """The fast-import stream for a spec (deterministic: same input, same commit ids)."""
    parts: list[str] = []
    marks: dict[str, int] = {}
    mark = 0
    when = _epoch("2020-01-01", 0)
    for index, (name, date, kind) in enumerate(spec.tags):
        mark += 1
        when = max(when + 1, _epoch(date, index))
        parts.append(_commit("refs/heads/main", mark, mark - 1 or None, when, name, spec.files))
        marks[name] = mark
        if kind == "tag":
            parts.append(f"tag {name}\nfrom :{mark}\n"
                         f"tagger Upstream <upstream@example.invalid> {when} +0000\n"
                         + _data(f"release {name}") + "\n")
        else:
            parts.append(f"reset refs/tags/{name}\nfrom :{mark}\n")
    last = mark
    for n in range(spec.tail):
        mark += 1
        when += 60
        parts.append(_commit("refs/heads/main", mark, mark - 1 or None, when, f"main {n}",
                             spec.files))
    for branch, (base, extra) in spec.branches.items():
        parent = marks[base]
        parts.append(f"reset refs/heads/{branch}\nfrom :{parent}\n")
        for n in range(extra):
            mark += 1
            when += 60
            parts.append(_commit(f"refs/heads/{branch}", mark, parent, when,
                                 f"{branch} {n}", spec.files))
            parent = mark
    del last
    return "".join(parts)


def build(path: Path, spec: Spec) -> Repo:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "--quiet", "--bare", "--initial-branch=main")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, env=GIT_ENV, check=True,
                   input=stream(spec), text=True)
    for name, value in (("uploadpack.allowFilter", "true"),
                        ("uploadpack.allowAnySHA1InWant", "true"),
                        ("daemon.uploadpack", "true")):
        git(path, "config", name, value)
    (path / "git-daemon-export-ok").touch()
    repo = Repo(path)
    for line in git(path, "show-ref").splitlines():
        sha, ref = line.split()
        if ref.startswith("refs/tags/"):
            name = ref.removeprefix("refs/tags/")
            repo.objects[name] = sha
            repo.commits[name] = repo.rev("rev-parse", f"{ref}^{{commit}}")
        elif ref.startswith("refs/heads/"):
            repo.heads[ref.removeprefix("refs/heads/")] = sha
    return repo


@contextlib.contextmanager
def daemon(base: Path) -> Iterator[str]:
    """``git daemon`` serving every repo under ``base``; yields git://127.0.0.1:PORT/.

    The port is a socket this process binds and listens on before it yields (so it is ours
    and a client can connect at once: no free port to pick, no waiting for a daemon to bind);
    each connection it accepts is served by ``git daemon --inetd`` on that connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    served: list[subprocess.Popen[bytes]] = []
    thread = threading.Thread(target=_serve, args=(listener, base, served),
                              name=f"git-daemon-{listener.getsockname()[1]}", daemon=True)
    thread.start()
    try:
        yield f"git://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        listener.shutdown(socket.SHUT_RDWR)   # wakes accept(): the thread ends
        thread.join()                         # before the descriptor is closed and reused
        listener.close()                      # (see tests/loopback.py: silent_server)
        for proc in served:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()


def _serve(listener: socket.socket, base: Path, served: list[subprocess.Popen[bytes]]) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            served.append(subprocess.Popen(
                ["git", "daemon", "--inetd", "--log-destination=none", "--export-all",
                 f"--base-path={base}", "--enable=upload-pack", str(base)],
                env=GIT_ENV, stdin=conn.fileno(), stdout=conn.fileno(),
                stderr=subprocess.DEVNULL))
