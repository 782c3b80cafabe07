"""``inv version-check --locks``: the locks' pins against a real package index on loopback
(PyPI's JSON API shape, yanked flags included), from small locks the test writes into the
lint tests' two-component project."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.drift.settings import DriftSettings
from tasks import versions
from tests.conftest import run_cli
from tests.drift.conftest import Run
from tests.lint.test_locks import PROJECT
from tests.lint.test_rules import write
from tests.loopback import http_server

# project -> releases: version -> yanked (None: a release with no file)
RELEASES: dict[str, dict[str, bool | None]] = {
    "alpha": {"1.0": False, "2.0": False},
    "beta": {"1.0": False, "3.0": True},             # the newer one is yanked
    "gamma": {"1.0": False, "1.1b1": False, "1.2": None},   # a pre-release, a file-less one
    "delta": {"2.0rc1": False, "2.0rc2": False},     # the lock pins a pre-release
    "epsilon": {"7.9": False, "7.10": False},
}
LOCKS = {
    "base": {"alpha": "1.0"},
    "app": {"alpha": "1.0", "beta": "1.0", "gamma": "1.0", "delta": "2.0rc1", "epsilon": "7.9"},
}


class Index:
    """PyPI's ``/pypi/<project>/json`` for RELEASES, counting the requests per project."""

    def __init__(self, releases: dict[str, dict[str, bool | None]]) -> None:
        self.releases = releases
        self.asked: dict[str, int] = {}
        self.lock = threading.Lock()

    def body(self, project: str) -> bytes:
        files = {version: [] if yanked is None else
                 [{"filename": f"{project}-{version}-py3-none-any.whl", "yanked": yanked}]
                 for version, yanked in self.releases[project].items()}
        return json.dumps({"info": {"name": project}, "releases": files}).encode()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = self.path.strip("/").split("/")
                if len(parts) != 3 or parts[0] != "pypi" or parts[2] != "json" \
                        or parts[1] not in index.releases:
                    self.send_error(404)
                    return
                with index.lock:
                    index.asked[parts[1]] = index.asked.get(parts[1], 0) + 1
                body = index.body(parts[1])
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


@contextlib.contextmanager
def serving(releases: dict[str, dict[str, bool | None]]) -> Iterator[tuple[str, Index]]:
    index = Index(releases)
    with http_server(index.handler()) as url:
        yield url, index


def project(tmp_path: Path, locks: dict[str, dict[str, str]]) -> Path:
    """The lint tests' project (base: alpha==1.0; app: FROM base, beta>=1.0), its app
    requirements widened to epsilon<8, and the locks as given."""
    root = tmp_path / "project"
    write(root, {**PROJECT, "dockerfiles/requirements/app.txt": "beta>=1.0\nepsilon<8\ntorch\n"})
    for component, pins in locks.items():
        lines = [f"# the lock of {component}, written by the test\n"]
        lines += [f"{name}=={version} \\\n    --hash=sha256:{'0' * 64}\n"
                  for name, version in pins.items()]
        (root / "dockerfiles/locks").mkdir(parents=True, exist_ok=True)
        (root / f"dockerfiles/locks/{component}.txt").write_text("".join(lines))
    return root


def run(root: Path, pypi: str, **options: Any) -> Run:
    settings: dict[str, Any] = {"files": [str(root / "docker-bake.hcl")], "locks": True,
                                "pypi": pypi, "cache_dir": str(root.parent / "cache"),
                                "output": "json", "retries": 0, **options}
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = versions.check(DriftSettings(**settings), {})
        except RocmBakeError as exc:
            print(f"error: {exc}", file=err)
            code = exc.exit_code
    return Run(code, out.getvalue(), err.getvalue())


def test_newer_releases_are_listed_as_pip_would_pick_them(tmp_path: Path) -> None:
    root = project(tmp_path, LOCKS)
    with serving(RELEASES) as (url, index):
        result = run(root, url)
    assert result.code == 0, result.err
    data = result.json()
    assert data["newer"] == [
        {"component": "base", "distribution": "alpha", "locked": "1.0", "newest": "2.0",
         "inputs": "excludes: alpha==1.0"},
        {"component": "app", "distribution": "alpha", "locked": "1.0", "newest": "2.0",
         "inputs": "excludes: alpha==1.0"},
        # a pinned pre-release lets pre-releases count; no input names delta
        {"component": "app", "distribution": "delta", "locked": "2.0rc1", "newest": "2.0rc2",
         "inputs": "indirect"},
        # printed as the index writes it: 7.10, never 7.1
        {"component": "app", "distribution": "epsilon", "locked": "7.9", "newest": "7.10",
         "inputs": "allows"},
    ]   # beta's newer 3.0 is yanked, gamma's 1.1b1 a pre-release and 1.2 has no file
    assert data["locks"] == {"base": 1, "app": 5}
    assert data["distributions"] == 5 and data["unchecked"] == [] and data["exit_code"] == 0
    assert index.asked == dict.fromkeys(RELEASES, 1)   # alpha, in both locks, asked once


def test_the_table_and_the_explanation(tmp_path: Path) -> None:
    root = project(tmp_path, LOCKS)
    with serving(RELEASES) as (url, _):
        table = run(root, url, output="table")
        explained = run(root, url, explain="beta")
    assert table.code == 0
    lines = table.out.splitlines()
    assert lines[0].split() == ["component", "distribution", "locked", "newest", "inputs"]
    assert lines[2].split() == ["base", "alpha", "1.0", "2.0", "excludes:", "alpha==1.0"]
    assert lines[5].split() == ["app", "epsilon", "7.9", "7.10", "allows"]
    assert "4 of 6 pins in 2 locks have a newer release (3 of 5 distributions asked); " \
           "report only (exit 0)" in lines[-1]
    assert explained.code == 0
    assert "    3.0  [dropped: yanked (every file)]" in explained.out
    assert "winner: 1.0: the highest release pip would take" in explained.out
    assert "locked by: app 1.0" in explained.out


def test_nothing_newer_lists_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, {"base": {"alpha": "2.0"}, "app": {"alpha": "2.0", "beta": "1.0"}})
    with serving(RELEASES) as (url, _):
        result = run(root, url, output="table")
    assert result.code == 0, result.err
    assert len(result.out.splitlines()) == 1   # no table: the summary alone
    assert "0 of 3 pins in 2 locks have a newer release (0 of 2 distributions asked); " \
           "report only (exit 0)" in result.out


def test_an_index_that_cannot_be_asked_is_exit_2_in_one_line(tmp_path: Path) -> None:
    root = project(tmp_path, LOCKS)
    with serving(RELEASES) as (url, _):
        pass   # the server is gone: its port refuses
    result = run(root, url)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1, result.err
    assert result.err.startswith("error: the index could not be asked about any of the 5 locked "
                                 "distributions: connection failed")


def test_one_distribution_the_index_lacks_is_exit_2_with_the_rest_reported(
        tmp_path: Path) -> None:
    root = project(tmp_path, LOCKS)
    with serving({k: v for k, v in RELEASES.items() if k != "gamma"}) as (url, _):
        result = run(root, url)
    assert result.code == 2
    data = result.json()
    assert [u["distribution"] for u in data["unchecked"]] == ["gamma"]
    assert "HTTP 404" in data["unchecked"][0]["reason"]
    assert len(data["newer"]) == 4


def test_a_recording_replays_without_the_index(tmp_path: Path) -> None:
    root = project(tmp_path, LOCKS)
    snapshot = tmp_path / "snap.json"
    with serving(RELEASES) as (url, _):
        recorded = run(root, url, record=str(snapshot))
    replayed = run(root, url, offline=str(snapshot))
    recording = json.loads(snapshot.read_text())["answers"]
    # what each release is, not the index's body (PyPI's can be megabytes per project)
    assert recording["GET https://pypi.org/pypi/beta/json [releases]"] == {"value": {"1.0": "",
                                                                          "3.0": "yanked"}}
    assert "filename" not in snapshot.read_text()
    assert replayed.code == 0, replayed.err
    assert replayed.json()["newer"] == recorded.json()["newer"]
    assert replayed.json()["mode"] == "offline"


@pytest.mark.parametrize("option", [{"pr": "main"}, {"only": ["X"]}, {"output": "markdown"},
                                    {"docs": True}])
def test_locks_goes_with_no_pin_option(tmp_path: Path, option: dict[str, Any]) -> None:
    result = run(project(tmp_path, LOCKS), "http://127.0.0.1:9", **option)
    assert result.code == 2
    assert "--locks asks the package index" in result.err


def test_a_component_without_its_lock_names_inv_lock(tmp_path: Path) -> None:
    result = run(project(tmp_path, {"base": {"alpha": "1.0"}}), "http://127.0.0.1:9")
    assert result.code == 2
    assert result.err == "error: dockerfiles/locks/app.txt: component app has no lock: run " \
                         "`inv lock`\n"


def test_inv_version_check_locks_as_a_user_runs_it(tmp_path: Path) -> None:
    root = project(tmp_path, LOCKS)
    with serving(RELEASES) as (url, _):
        result = run_cli(["inv", "version-check", "--locks", "--file",
                          str(root / "docker-bake.hcl"), "--pypi", url, "--cache-dir", "off"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[5].split() == ["app", "epsilon", "7.9", "7.10", "allows"]
    assert "report only (exit 0)" in result.stdout
