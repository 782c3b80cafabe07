"""Issue 25: the drift output is exact to the character, whatever the output path."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.drift import gitweb, gitworld, webworld
from tests.drift.conftest import Checker, pin
from tests.drift.upstream import CUPY_TAGS
from tests.drift.webworld import Route, World
from tests.manualclock import ManualClock


@pytest.mark.parametrize("output", ["table", "markdown", "json"])
def test_number_like_pins_print_as_spelled(checker: Checker, output: str) -> None:
    """A column holding only number-like text (``--only``) is still text: 7.10 stays 7.10."""
    checker.world.web.pypi("exact-a", World.sdists("exact-a", "7.9", "7.10"))
    checker.world.web.pypi("exact-b", World.sdists("exact-b", "0.9", "1.0"))
    text = pin("ALPHA_VERSION", "7.10", pypi="exact-a") + pin("BETA_VERSION", "1.0",
                                                                pypi="exact-b")
    result = checker.run(text, only=["ALPHA_VERSION", "BETA_VERSION"], output=output)
    assert result.code == 0, result
    if output == "json":
        pins = {p["name"]: p for p in json.loads(result.out)["pins"]}
        assert (pins["ALPHA_VERSION"]["value"], pins["ALPHA_VERSION"]["newest"]) == ("7.10",
                                                                                 "7.10")
        assert (pins["BETA_VERSION"]["value"], pins["BETA_VERSION"]["newest"]) == ("1.0", "1.0")
        return
    for name, value in (("ALPHA_VERSION", "7.10"), ("BETA_VERSION", "1.0")):
        row = rf"ok\s*\|?\s*{name}\s*\|?\s*{re.escape(value)}\s*\|?\s*up to date\s*\|?\s*" \
              rf"{re.escape(value)}\s*\|?\s*newest release is {re.escape(value)}\s"
        assert re.search(row, result.out), result.out


# -- password-protected mirrors ------------------------------------------------------------
CANARY = "CANARY-mirror-pw-3b9f"
WHL = "cp312-cp312-manylinux_2_28_x86_64.whl"


def _private_world(checker: Checker, host: str) -> tuple[str, list[str]]:
    """A bake file whose pins live behind Basic authorization, and the rewrites to reach
    them: an index and a listing with user-info in the bake file, PyPI through ``--pypi``,
    git through a ``--rewrite`` (commit and tag pins: history and refs)."""
    web = checker.world.web
    secret = f"ci:{CANARY}"
    web.simple("/private-simple", "private-pkg",
               [f"private_pkg-{v}-{WHL}" for v in ("1.0.0", "1.1.0")]).basic = secret
    web.listing("/private-files/", [f"listed-{v}-{WHL}" for v in ("2.0", "2.1")]).basic = secret
    web.pypi("private-pypi-pkg", World.sdists("private-pypi-pkg", "3.1", "3.2")).basic = secret
    http = checker.world.http_url.replace("://", f"://{secret}@")
    cupy = checker.world.repos["cupy/cupy"]
    text = (pin("PRIVATE_VERSION", "1.1.0", index=[f"{http}/private-simple"],
                package="private-pkg")
            + pin("LISTED_VERSION", "2.1", listing=[f"{http}/private-files/"], package="listed")
            + pin("SECRET_VERSION", "3.2", pypi="private-pypi-pkg")
            + pin("CUPY_COMMIT", cupy.commits["v14.2.0"], git="https://github.com/cupy/cupy.git")
            + pin("CUPY_REF", "v14.2.0", git="https://github.com/cupy/cupy.git"))
    rewrites = [f"https://github.com/cupy/=http://{secret}@{host}/cupy/",
                *(r for r in checker.world.rewrites() if not r.startswith("https://pypi.org="))]
    return text, rewrites


def test_password_protected_index_and_git_mirror_work_and_the_password_stays_in_memory(
        checker: Checker) -> None:
    seen: list[str] = []
    root = checker.world.repos["cupy/cupy"].path.parent.parent
    with gitweb.smart(root, f"ci:{CANARY}", seen) as host:
        text, rewrites = _private_world(checker, host)
        pypi = checker.world.http_url.replace("://", f"://ci:{CANARY}@")
        record = checker.tmp / "record.json"
        runs = [checker.run(text, rewrites=rewrites, pypi=pypi, output=kind,
                            record=str(record) if kind == "json" else "")
                for kind in ("json", "table", "markdown", "json")]   # cold, then warm
        runs += [checker.run(text, rewrites=rewrites, pypi=pypi, output="table", explain=name)
                 for name in ("PRIVATE_VERSION", "LISTED_VERSION", "SECRET_VERSION",
                              "CUPY_COMMIT")]
    for result in (runs[0], runs[3]):
        statuses = {p["name"]: p["status"] for p in result.json()["pins"]}
        assert set(statuses.values()) == {"up to date"}, result.out
        assert result.code == 0, result
    assert any(seen) and all(r.code == 0 for r in runs), runs
    assert "https://****@github.com" not in "".join(r.out for r in runs)
    assert "****@127.0.0.1" in runs[5].out          # the address asked, masked
    outputs = "".join(r.out + r.err for r in runs) + record.read_text()
    assert CANARY not in outputs
    stored = [p for p in checker.cache.rglob("*") if p.is_file()]
    assert any(p.name == "config" for p in stored) and any(p.parent.name == "plan"
                                                           for p in stored)
    for path in stored:
        assert CANARY.encode() not in path.read_bytes(), path
    assert "ci:" not in "".join(p.read_text() for p in stored if p.name == "config")


def test_a_git_mirrors_password_is_in_no_file_of_the_cache(checker: Checker) -> None:
    """git itself takes user-info in a URL; what it must not do is keep it: not in the cache
    repository's config (origin), nor in its directory name, nor in the plan."""
    seen: list[str] = []
    cupy = checker.world.repos["cupy/cupy"]
    with gitweb.smart(cupy.path.parent.parent, f"ci:{CANARY}", seen) as host:
        rewrites = [f"https://github.com/cupy/=http://ci:{CANARY}@{host}/cupy/",
                    *checker.world.rewrites()]
        text = pin("CUPY_COMMIT", cupy.commits["v14.1.0"], git="https://github.com/cupy/cupy.git")
        results = [checker.run(text, rewrites=rewrites) for _ in ["cold", "warm"]]
    assert [r.pin("CUPY_COMMIT")["status"] for r in results] == ["behind", "behind"], results
    stored = [p for p in checker.cache.rglob("*") if p.is_file()]
    assert any(p.name == "config" for p in stored)
    assert not [p for p in stored if CANARY.encode() in p.read_bytes()]


# -- --timeout bounds a whole source -------------------------------------------------------
def test_a_silent_http_source_is_given_timeout_once_not_per_attempt(checker: Checker) -> None:
    route = checker.world.web.add("/pypi/silent-project/json", Route("{}", fault="hang"))
    try:
        result = checker.run(pin("SILENT_VERSION", "1.0", pypi="silent-project"),
                             timeout=0.5, retries=2)
    finally:
        route.release.set()
    # The attempt had the whole budget: no retry ("after 1 attempt" is the client's own count;
    # the server may count the request only after the client gave up, so at most one hit).
    assert route.hits <= 1, route.hits
    assert result.pin("SILENT_VERSION")["detail"] == (
        f"timed out after 0.5 s at {checker.world.http_url}/pypi/silent-project/json after 1 "
        "attempt (--timeout 0.5 s bounds this URL, every attempt and back-off included)")


def test_a_trickling_http_source_is_bounded_by_timeout_too(checker: Checker) -> None:
    """Every read gets a byte in time; the whole answer never comes: --timeout still ends it."""
    route = checker.world.web.add("/pypi/trickle-project/json", Route("{}", fault="trickle"))
    try:
        result = checker.run(pin("TRICKLE_VERSION", "1.0", pypi="trickle-project"),
                             timeout=0.5, retries=2)
    finally:
        route.release.set()
    assert route.hits <= 1, route.hits
    assert result.pin("TRICKLE_VERSION")["detail"] == (
        f"timed out after 0.5 s at {checker.world.http_url}/pypi/trickle-project/json after 1 "
        "attempt (--timeout 0.5 s bounds this URL, every attempt and back-off included)")


def test_a_timeout_names_the_pypi_mirror_asked_not_pypi_org(checker: Checker) -> None:
    route = checker.world.web.add("/mirror/pypi/quiet-project/json", Route("{}", fault="hang"))
    try:
        result = checker.run(pin("QUIET_VERSION", "1.0", pypi="quiet-project"), timeout=0.5,
                             pypi=f"{checker.world.http_url}/mirror",
                             rewrites=[r for r in checker.world.rewrites()
                                       if not r.startswith("https://pypi.org=")])
    finally:
        route.release.set()
    detail = result.pin("QUIET_VERSION")["detail"]
    assert detail.startswith(f"timed out after 0.5 s at {checker.world.http_url}/mirror/pypi/"
                             "quiet-project/json "), detail


def test_retries_and_their_back_off_stay_within_timeout(checker: Checker) -> None:
    clock = ManualClock()
    route = checker.world.web.add("/pypi/failing-project/json", Route("oops", status=503))
    result = checker.run(pin("FAILING_VERSION", "1.0", pypi="failing-project"), timeout=1.0,
                         retries=5, clock=clock)
    assert clock.sleeps == [0.4] and route.hits == 2, (clock.sleeps, route.hits)
    assert result.pin("FAILING_VERSION")["detail"] == (
        f"HTTP 503 Service Unavailable at {checker.world.http_url}/pypi/failing-project/json "
        "after 2 attempts (no time left for another within --timeout 1 s)")


# -- a commit pin past every release is ahead ----------------------------------------------
def test_a_commit_past_the_newest_release_is_ahead_and_says_of_what(checker: Checker) -> None:
    repo = checker.world.repos["cupy/cupy"]        # main: two commits past v14.2.0
    result = checker.run(pin("CUPY_COMMIT", repo.rev("rev-parse", "main~1"),
                             git="https://github.com/cupy/cupy.git"))
    finding = result.pin("CUPY_COMMIT")
    assert (finding["status"], finding["newest"]) == ("ahead", "v14.2.0"), finding
    assert finding["detail"] == ("1 commit ahead of v14.2.0; based on v14.2.0; in no release "
                                 "yet"), finding
    assert result.code == 0


def test_a_commit_past_the_releases_on_a_branch_that_moved_names_both(checker: Checker) -> None:
    """The declared branch is what the pin follows, so behind its head is drift; the newest
    is that head, and the detail says the pin is past every release."""
    repo = checker.world.repos["cupy/cupy"]
    result = checker.run(pin("CUPY_COMMIT", repo.rev("rev-parse", "main~1"),
                             git="https://github.com/cupy/cupy.git", branch="main"))
    finding = result.pin("CUPY_COMMIT")
    assert (finding["status"], finding["newest"]) == ("behind", repo.heads["main"]), finding
    assert finding["detail"] == ("main head moved: 1 commit since the pin; 1 commit ahead of "
                                 "v14.2.0; based on v14.2.0; in no release yet"), finding


# -- --explain: only what the name needs, and its status -----------------------------------
def test_explain_checks_only_its_pin_and_exits_with_its_status(checker: Checker) -> None:
    down = checker.world.web.add("/pypi/down-project/json", Route("oops", status=500))
    text = (pin("TRITON_VERSION", "3.9.0", pypi="triton")
            + pin("DOWN_VERSION", "1.0", pypi="down-project")
            + 'variable "ROCM_VERSION" {\n  default = "7.2"\n}\n')
    assert checker.run(text).code == 2 and down.hits == 2     # the whole run: exit 2
    result = checker.run(text, explain="TRITON_VERSION", output="table")
    assert result.code == 0 and down.hits == 2, result         # the server down: not asked
    assert result.out.startswith("TRITON_VERSION = 3.9.0\n  upstream: pypi: triton\n"
                                 "  verdict:  up to date"), result.out
    rule = checker.run(text, explain="rocm-labels", output="table")
    assert rule.code == 0 and rule.out.startswith("rocm-labels = 7.2\n") and down.hits == 2
    unknown = checker.run(text, explain="vllm-torch", output="table")
    assert unknown.code == 2 and unknown.err == (   # vllm-torch does not apply: not valid
        "error: --explain vllm-torch: no such pin or rule (valid: DOWN_VERSION, "
        "TRITON_VERSION, rocm-labels)\n")


# -- --cache-dir off -----------------------------------------------------------------------
@pytest.mark.parametrize("how", ["option", "environment"])
def test_cache_off_means_off_and_commit_pins_still_work(checker: Checker, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        how: str) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    repo = checker.world.repos["cupy/cupy"]
    text = pin("CUPY_COMMIT", repo.commits["v14.2.0"], git="https://github.com/cupy/cupy.git")
    options: dict[str, Any] = {"cache_dir": "off"} if how == "option" else {
        "cache_dir": "", "env": {"ROCM_BAKE_DRIFT_CACHE": "off"}}
    result = checker.run(text, **options)
    assert result.pin("CUPY_COMMIT")["status"] == "up to date", result.out
    assert result.code == 0
    assert not (tmp_path / "off").exists() and not checker.cache.exists()
    assert list(scratch.iterdir()) == []        # the temporary git directory is gone


# -- git's dumb HTTP protocol ---------------------------------------------------------------
def test_a_dumb_http_git_server_is_refused_in_one_line_not_looped(checker: Checker,
                                                                  tmp_path: Path) -> None:
    """A static file server of a bare repository (``update-server-info`` done): its refs
    are listed correctly, and commit history, which would never end, is refused at once."""
    repo = gitworld.build(tmp_path / "dumb" / "cupy" / "cupy.git",
                          gitworld.Spec([(t, "2025-06-01", "commit") for t in CUPY_TAGS]))
    gitworld.git(repo.path, "update-server-info")
    with gitweb.dumb(tmp_path / "dumb") as host:
        rewrites = [f"https://github.com/cupy/=http://{host}/cupy/", *checker.world.rewrites()]
        git = "https://github.com/cupy/cupy.git"
        tag = checker.run(pin("CUPY_REF", "v14.2.0", git=git), rewrites=rewrites)
        commit = checker.run(pin("CUPY_COMMIT", repo.commits["v14.1.0"], git=git),
                             rewrites=rewrites, timeout=5.0)
    assert tag.code == 0 and tag.pin("CUPY_REF")["status"] == "up to date", tag
    assert commit.code == 2, commit
    assert commit.pin("CUPY_COMMIT")["detail"] == (
        f"http://{host}/cupy/cupy.git speaks only git's dumb HTTP protocol (info/refs is "
        "application/octet-stream, not application/x-git-upload-pack-advertisement): commit "
        "history needs smart HTTP")


def test_credentials_never_follow_a_redirect_to_another_host(checker: Checker) -> None:
    other = webworld.World()
    other.pypi("moved-project", World.sdists("moved-project", "1.0"))
    with webworld.Server(other) as server:
        checker.world.web.add("/pypi/moved-project/json", Route(
            status=302, etag=False, basic=f"ci:{CANARY}",
            headers={"Location": f"{server.url}/pypi/moved-project/json"}))
        pypi = checker.world.http_url.replace("://", f"://ci:{CANARY}@")
        rewrites = [r for r in checker.world.rewrites() if not r.startswith("https://pypi.org=")]
        result = checker.run(pin("MOVED_VERSION", "1.0", pypi="moved-project"), pypi=pypi,
                             rewrites=rewrites)
    assert result.pin("MOVED_VERSION")["status"] == "up to date", result.out
    assert [headers.get("Authorization") for _, headers in other.requests] == [None]
