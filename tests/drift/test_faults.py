"""Faults: each gives 'could not check' with its reason and exit 2, and the other pins are
still reported. Real local server, real timeouts, real redirect loops."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.drift.conftest import Checker, Run, pin
from tests.drift.webworld import Route, releases_json
from tests.manualclock import ManualClock

GOOD = pin("TRITON_VERSION", "3.9.0", pypi="triton")


def faulty(checker: Checker, project: str, route: Route | None, **options: Any) -> Run:
    if route is not None:
        checker.world.web.add(f"/pypi/{project}/json", route)
    result = checker.run(GOOD + pin("BAD_VERSION", "1.0.0", pypi=project), **options)
    assert result.code == 2, result
    assert result.pin("TRITON_VERSION")["status"] == "up to date"
    bad = result.pin("BAD_VERSION")
    assert bad["status"] == "could not check", bad
    return result


def reason(result: Run) -> str:
    return str(result.pin("BAD_VERSION")["detail"])


def test_timeout(checker: Checker) -> None:
    route = Route('{"releases": {}}', fault="hang")
    try:
        result = faulty(checker, "slow-project", route, timeout=0.5, retries=0)
    finally:
        route.release.set()
    web = checker.world.http_url     # every message names the address asked, not the declared
    assert reason(result) == (f"timed out after 0.5 s at {web}/pypi/slow-project/json after 1 "
                              "attempt (--timeout 0.5 s bounds this URL, every attempt and "
                              "back-off included)")


def test_http_500_after_bounded_retries(checker: Checker) -> None:
    route = Route("oops", status=500)
    result = faulty(checker, "broken-project", route, retries=2)
    assert reason(result) == ("HTTP 500 Internal Server Error at "
                              f"{checker.world.http_url}/pypi/broken-project/json after 3 "
                              "attempts")
    assert route.hits == 3


def test_transient_500_is_retried(checker: Checker) -> None:
    route = Route(releases_json("1.0.0"), fault="flaky-500", state={"failures": 1})
    checker.world.web.add("/pypi/flaky-project/json", route)
    result = checker.run(pin("FLAKY_VERSION", "1.0.0", pypi="flaky-project"), retries=1)
    assert result.pin("FLAKY_VERSION")["status"] == "up to date"
    assert route.hits == 2 and result.code == 0


def test_rate_limit_with_a_far_reset_is_reported_not_waited(checker: Checker) -> None:
    clock = ManualClock()
    route = Route('{"message": "API rate limit exceeded"}', status=403, headers={
        "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(clock.time()) + 3600)})
    checker.world.web.add("/repos/limited/repo/releases", route)
    result = checker.run(GOOD + pin("BAD_VERSION", "1.0.0", github="limited/repo"), clock=clock)
    assert clock.sleeps == []                       # reported at once, never waited for
    assert result.code == 2 and result.pin("TRITON_VERSION")["status"] == "up to date"
    detail = result.pin("BAD_VERSION")["detail"]
    assert detail.startswith(f"rate limited at {checker.world.http_url}/repos/limited/repo/"
                             "releases?per_page=100 until 01:00:00 UTC (in 3600 s"), detail
    assert "set GITHUB_TOKEN" in detail and route.hits == 1


def recover_on_sleep(clock: ManualClock, route: Route, body: str | None = None) -> None:
    """While the checker waits, the server's limit resets: its next answer is a 200."""
    def recover(_seconds: float) -> None:
        route.status, route.headers = 200, {}
        if body is not None:
            route.body = body
    clock.on_sleep(recover)


def test_rate_limit_with_a_near_reset_is_waited_for(checker: Checker) -> None:
    clock = ManualClock()
    route = Route("[]", status=403, headers={"X-RateLimit-Remaining": "0",
                                             "X-RateLimit-Reset": str(int(clock.time()) + 3)})
    checker.world.web.add("/repos/soon/repo/releases", route)
    recover_on_sleep(clock, route, '[{"tag_name": "v1.0.0", "assets": []}]')
    result = checker.run(pin("SOON_VERSION", "1.0.0", github="soon/repo"), retries=2,
                         clock=clock)
    assert result.pin("SOON_VERSION")["status"] == "up to date", result.out
    assert clock.sleeps[0] == 3                      # waited exactly until the reset
    assert route.hits == 2


def test_retry_after_is_honoured(checker: Checker) -> None:
    clock = ManualClock()
    route = Route(releases_json("2.0.0"), status=429, headers={"Retry-After": "1"})
    checker.world.web.add("/pypi/busy-project/json", route)
    recover_on_sleep(clock, route)
    result = checker.run(pin("BUSY_VERSION", "2.0.0", pypi="busy-project"), retries=2,
                         clock=clock)
    assert result.pin("BUSY_VERSION")["status"] == "up to date", result.out
    assert clock.sleeps[0] == 1                      # the server's Retry-After, to the second
    assert route.hits == 2


def test_a_rate_limit_longer_than_the_deadline_is_not_waited_for(checker: Checker) -> None:
    clock = ManualClock()
    route = Route("[]", status=429, headers={"Retry-After": "4"})
    checker.world.web.add("/pypi/patient-project/json", route)
    result = faulty(checker, "patient-project", None, deadline=3, clock=clock)
    assert clock.sleeps == []
    assert reason(result).startswith(f"rate limited at {checker.world.http_url}/pypi/"
                                      "patient-project/json until "), reason(result)


def test_malformed_json(checker: Checker) -> None:
    result = faulty(checker, "garbled-project", Route('{"releases": {"1.0.0": [}'))
    assert reason(result) == (f"malformed JSON from {checker.world.http_url}/pypi/"
                              "garbled-project/json")


def test_truncated_html(checker: Checker) -> None:
    route = checker.world.web.simple("/pytorch/whl/cut", "torch", [
        f"torch-2.7.{n}+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl" for n in range(20)])
    route.fault, route.alternate = "truncated", None
    result = checker.run(GOOD + pin("BAD_VERSION", "2.7.1", package="torch",
                                    index=["https://download.pytorch.org/whl/cut"]))
    assert result.code == 2 and result.pin("TRITON_VERSION")["status"] == "up to date"
    assert result.pin("BAD_VERSION")["detail"] == (
        f"truncated HTML from {checker.world.http_url}/pytorch/whl/cut/torch/ (no closing "
        "</html>)")


def test_redirect_loop(checker: Checker) -> None:
    result = faulty(checker, "loop-project", Route(fault="redirect-loop"))
    assert reason(result) == (f"redirect loop at {checker.world.http_url}/pypi/loop-project/"
                              "json (over 10 redirects)")


def test_unknown_package(checker: Checker) -> None:
    result = faulty(checker, "no-such-project", None)
    assert reason(result).startswith(f"HTTP 404 Not Found at {checker.world.http_url}/pypi/"
                                     "no-such-project/json (unknown package")


def test_unknown_git_repository(checker: Checker) -> None:
    result = checker.run(GOOD + pin("BAD_REF", "v1.0.0", git="https://github.com/no/such.git"))
    assert result.code == 2 and result.pin("TRITON_VERSION")["status"] == "up to date"
    detail = result.pin("BAD_REF")["detail"]
    assert detail.startswith(f"git ls-remote failed for {checker.world.git_url}no/such.git:"), \
        detail


def test_total_deadline_caps_each_request(checker: Checker) -> None:
    route = checker.world.web.add("/pypi/glacial-project/json",
                                  Route('{"releases": {}}', fault="hang"))
    try:
        result = faulty(checker, "glacial-project", None, deadline=1.5, timeout=20, retries=0)
    finally:
        route.release.set()
    # the request's own timeout was cut to what was left of the 1.5 s run, not its 20 s
    match = re.match(r"timed out after (\d+\.\d) s", reason(result))
    assert match or "deadline" in reason(result), reason(result)
    assert match is None or float(match.group(1)) <= 1.5, reason(result)


@pytest.mark.parametrize("field", ["git", "pypi"])
def test_connection_refused(checker: Checker, field: str) -> None:
    location = "https://dead.example/x.git" if field == "git" else "dead-project"
    result = checker.run(GOOD + pin("BAD_VERSION", "1.0.0", **{field: location}),
                         rewrites=["https://dead.example/=git://127.0.0.1:9/",
                                   "https://pypi.org/pypi/dead=http://127.0.0.1:9/dead",
                                   *checker.world.rewrites()], retries=0)
    assert result.code == 2
    assert result.pin("TRITON_VERSION")["status"] == "up to date"
    assert result.pin("BAD_VERSION")["status"] == "could not check"
