"""What a user of the PR lane met running ``inv version-check`` against a local upstream world
(issue 33), each against the real local servers: a PR that bumps a tag and not its commit, a
tag pin's verdict beside a commit pin on a dumb-HTTP mirror, ``--explain`` naming the address
asked, the limit that fired, PyPI releases with no files, inputs checked up front, and the
small slips. No output of any of them holds a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.drift import gitweb, gitworld
from tests.drift.conftest import Checker, Run, pin, variable
from tests.drift.test_behaviour import _pr_repo
from tests.drift.upstream import CUPY_TAGS
from tests.drift.webworld import Route, World

GIT = "https://github.com/cupy/cupy.git"


def clean(result: Run) -> Run:
    """Every case's output is grepped: never a traceback."""
    assert "Traceback" not in result.out + result.err, result
    return result


def one_error_line(result: Run, *fragments: str) -> None:
    clean(result)
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert result.code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# -- 1. --pr runs every rule a changed pin touches ----------------------------------------------
def _cupy(ref: str, commit: str) -> str:
    return pin("CUPY_REF", ref, git=GIT) + pin("CUPY_COMMIT", commit, git=GIT)


def test_a_pr_that_bumps_a_tag_and_not_its_commit_fails_naming_the_rule(
        checker: Checker) -> None:
    cupy = checker.world.repos["cupy/cupy"]
    base = _cupy("v14.1.0", cupy.commits["v14.1.0"])
    repo = _pr_repo(checker, base)
    (repo / "rocm-bake.hcl").write_text(_cupy("v14.2.0", cupy.commits["v14.1.0"]))
    files = [str(repo / "rocm-bake.hcl")]
    result = clean(checker.run(files=files, pr="main"))
    rule = result.pin("CUPY_REF~COMMIT")
    assert result.code == 1 and rule["status"] == "incoherent", result.out
    assert rule["detail"] == (f"tag v14.2.0 is {cupy.commits['v14.2.0'][:12]}, CUPY_COMMIT is "
                              f"{cupy.commits['v14.1.0'][:12]}")
    assert [p["name"] for p in result.json()["pins"]] == ["CUPY_REF"]   # the pin changed
    table = clean(checker.run(files=files, pr="main", output="table"))
    assert re.search(r"^DRIFT +CUPY_REF~COMMIT +v14\.2\.0 +incoherent ", table.out, re.M), \
        table.out
    # and the change made whole (the commit follows the tag) passes, the rule holding
    (repo / "rocm-bake.hcl").write_text(_cupy("v14.2.0", cupy.commits["v14.2.0"]))
    whole = clean(checker.run(files=files, pr="main"))
    assert whole.code == 0 and whole.pin("CUPY_REF~COMMIT")["status"] == "holds", whole.out


def test_a_pr_that_changes_no_variable_a_rule_reads_runs_no_rule(checker: Checker) -> None:
    cupy = checker.world.repos["cupy/cupy"]
    base = _cupy("v14.1.0", cupy.commits["v14.1.0"]) + pin("TRITON_VERSION", "3.7.1",
                                                           pypi="triton")
    repo = _pr_repo(checker, base)
    (repo / "rocm-bake.hcl").write_text(base.replace('"3.7.1"', '"3.9.0"'))
    result = clean(checker.run(files=[str(repo / "rocm-bake.hcl")], pr="main"))
    data = result.json()
    assert [p["name"] for p in data["pins"]] == ["TRITON_VERSION"] and data["coherence"] == []
    assert data["unchanged"] == ["CUPY_COMMIT", "CUPY_REF"] and result.code == 0, result.out


# -- 4. a tag pin's verdict is its own ----------------------------------------------------------
def test_a_tag_pin_beside_a_commit_pin_on_a_dumb_http_mirror_keeps_its_verdict(
        checker: Checker, tmp_path: Path) -> None:
    repo = gitworld.build(tmp_path / "dumb" / "cupy" / "cupy.git",
                          gitworld.Spec([(t, "2025-06-01", "commit") for t in CUPY_TAGS]))
    gitworld.git(repo.path, "update-server-info")
    with gitweb.dumb(tmp_path / "dumb") as host:
        rewrites = [f"https://github.com/cupy/=http://{host}/cupy/", *checker.world.rewrites()]
        # each with a cache of its own: a first fetch (no plan of an earlier run to warm up)
        both = clean(checker.run(pin("CUPY_REF", "v14.1.0", git=GIT) +
                                 pin("CUPY_COMMIT", repo.commits["v14.1.0"], git=GIT),
                                 rewrites=rewrites, timeout=5.0, cache_dir=str(tmp_path / "a")))
        alone = clean(checker.run(pin("CUPY_REF", "v14.1.0", git=GIT), rewrites=rewrites,
                                  cache_dir=str(tmp_path / "b")))
    assert alone.pin("CUPY_REF")["status"] == "behind", alone.out
    assert {k: both.pin("CUPY_REF")[k] for k in ("status", "newest", "detail")} == \
        {k: alone.pin("CUPY_REF")[k] for k in ("status", "newest", "detail")}, both.out
    assert both.pin("CUPY_COMMIT")["detail"].endswith("commit history needs smart HTTP")
    assert both.code == 2


# -- 5. --explain names the address asked and what sent it there --------------------------------
def test_explain_names_the_address_asked_under_pypi(checker: Checker) -> None:
    checker.world.web.pypi("asked-project", World.sdists("asked-project", "1.0", "1.1"))
    web = checker.world.http_url
    rewrites = [r for r in checker.world.rewrites() if not r.startswith("https://pypi.org=")]
    result = clean(checker.run(pin("ASKED_VERSION", "1.1", pypi="asked-project"),
                               rewrites=rewrites, pypi=f"{web}/", explain="ASKED_VERSION",
                               output="table"))
    assert f"GET https://pypi.org/pypi/asked-project/json  ->  asked {web}/pypi/asked-project/" \
        "json (sent there by --pypi): HTTP 200 (" in result.out, result.out
    rewritten = clean(checker.run(pin("ASKED_VERSION", "1.1", pypi="asked-project"),
                                  explain="ASKED_VERSION", output="table"))
    assert f"asked {web}/pypi/asked-project/json (sent there by --rewrite https://pypi.org=)" \
        in rewritten.out, rewritten.out


def test_explain_names_the_page_a_github_link_header_sent_it_to(checker: Checker) -> None:
    web = checker.world
    first = [{"tag_name": "v2.0.0", "draft": False, "prerelease": False, "assets": []}]
    second = [{"tag_name": "v1.0.0", "draft": False, "prerelease": False, "assets": []}]
    web.web.add("/repos/linked/tool/releases?per_page=100", Route(json.dumps(first), headers={
        "Link": '<{base}/repositories/4242/releases?per_page=100&page=2>; rel="next"'}))
    web.web.add("/repositories/4242/releases?per_page=100&page=2", Route(json.dumps(second)))
    result = clean(checker.run(pin("TOOL_VERSION", "1.0.0", github="linked/tool"),
                               explain="TOOL_VERSION", output="table"))
    assert f"asked {web.http_url}/repositories/4242/releases?per_page=100&page=2 (sent there " \
        "by --rewrite https://api.github.com=): HTTP 200 (" in result.out, result.out
    assert "(page 2: the Link rel=next of page 1)" in result.out
    assert "/repos/linked/tool/releases?per_page=100&page=2" not in result.out


# -- 6. each limit message names the limit that fired -------------------------------------------
def test_a_row_cut_by_the_deadline_names_the_deadline_not_timeout(checker: Checker) -> None:
    route = checker.world.web.add("/pypi/cut-project/json", Route("{}", fault="hang"))
    try:
        result = clean(checker.run(pin("CUT_VERSION", "1.0", pypi="cut-project"),
                                   deadline=0.5, timeout=30, retries=0))
    finally:
        route.release.set()
    detail = result.pin("CUT_VERSION")["detail"]
    assert result.code == 2 and "--deadline of 0.5 s" in detail and "--timeout" not in detail, \
        detail


# -- 7. a PyPI release with no files is no release ----------------------------------------------
def test_a_pypi_release_with_no_files_is_not_the_newest(checker: Checker) -> None:
    checker.world.web.pypi("empty-newest", {**World.sdists("empty-newest", "1.5.0"),
                                            "1.6.0": []})
    text = pin("EMPTY_VERSION", "1.5.0", pypi="empty-newest")
    result = clean(checker.run(text))
    assert result.pin("EMPTY_VERSION")["status"] == "up to date", result.out
    assert result.pin("EMPTY_VERSION")["newest"] == "1.5.0" and result.code == 0
    explained = clean(checker.run(text, explain="EMPTY_VERSION", output="table"))
    assert "    1.6.0  [dropped: no files (pip cannot install it)]" in explained.out


# -- 8. declarations and URL options checked up front -------------------------------------------
def test_a_wheel_platform_without_its_arch_is_one_error_line(checker: Checker) -> None:
    text = pin("TORCH_VERSION", "2.12.0", pypi="torch",
               wheels='{ index = ["https://download.pytorch.org/whl/rocm7.2"], '
                      'platform = "manylinux_2_28" }')
    one_error_line(checker.run(text), "TORCH_VERSION_SOURCE.wheels.platform 'manylinux_2_28' "
                                      "is not a wheel platform tag with its arch")


@pytest.mark.parametrize(("options", "fragment"), [
    ({"pypi": "notaurl"}, "--pypi 'notaurl': expected an http:// or https:// base URL"),
    ({"pypi": "ftp://127.0.0.1:9/"}, "--pypi 'ftp://127.0.0.1:9/': expected an http://"),
    ({"github_api": "http://"}, "--github-api 'http://': expected an http://"),
    ({"max_wait": -5.0}, "--max-wait must be a number of seconds >= 0, not -5"),
    ({"rewrites": ["https://pypi.org=notaurl"]}, "--rewrite 'https://pypi.org=notaurl': the "
                                                 "replacement must be a http://"),
    ({"rewrites": ["https://pypi.org=ftp://127.0.0.1:9"]}, "the replacement must be a"),
    ({"rewrites": ["docker.io/=http://127.0.0.1:5000/"]}, "an image prefix is replaced by a "
                                                          "registry HOST[:PORT]/PATH, not a URL"),
])
def test_bad_url_and_limit_options_are_one_error_line_before_any_request(
        checker: Checker, options: dict[str, Any], fragment: str) -> None:
    seen = len(checker.world.web.requests)
    one_error_line(checker.run(pin("TRITON_VERSION", "3.7.1", pypi="triton"), **options),
                   fragment)
    assert len(checker.world.web.requests) == seen


# -- 9. the small slips ---------------------------------------------------------------------------
def test_explain_of_a_wheel_says_its_verdict_once(checker: Checker) -> None:
    text = pin("TORCH_VERSION", "2.12.0", pypi="torch",
               wheels='{ index = ["https://download.pytorch.org/whl/rocm7.2"], '
                      'variant = "rocm7.2", python = "cp312", '
                      'platform = "manylinux_2_28_x86_64" }')
    result = clean(checker.run(text, explain="TORCH_VERSION[wheel]", output="table"))
    assert "  verdict:  wheel available: torch-2.12.0+rocm7.2-cp312" in result.out, result.out
    assert "wheel available: wheel available" not in result.out


def test_one_undeclared_variable_is_one_variable(checker: Checker) -> None:
    result = clean(checker.run(pin("TRITON_VERSION", "3.7.1", pypi="triton") +
                               variable("MAX_JOBS", "8"), output="table"))
    assert "1 variable declares no source (not pins, or not checked)" in result.out, result.out


def test_a_pin_not_found_upstream_still_names_the_newest(checker: Checker) -> None:
    result = clean(checker.run(pin("CUPY_REF", "v99.0.0", git=GIT) +
                               pin("CUPY_COMMIT", "0" * 40, git=GIT)))
    for name in ("CUPY_REF", "CUPY_COMMIT"):
        found = result.pin(name)
        assert found["status"] == "pin not found upstream" and found["newest"] == "v14.2.0", \
            found


def test_json_calls_a_rule_that_holds_holds(checker: Checker) -> None:
    cupy = checker.world.repos["cupy/cupy"]
    result = clean(checker.run(_cupy("v14.2.0", cupy.commits["v14.2.0"])))
    assert result.pin("CUPY_REF~COMMIT")["status"] == "holds"
    assert result.json()["coherence"][0]["status"] == "holds"
