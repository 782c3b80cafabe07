"""Faults: each gives 'could not check' with its reason and exit 2, and the other pins are
still reported. Real local server, real timeouts, real redirect loops."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tests.drift.conftest import Checker, Run, pin
from tests.drift.webworld import Route

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
    route = Route('{"releases": {}}', fault="timeout", state={"sleep": 3})
    result = faulty(checker, "slow-project", route, timeout=0.5, retries=0)
    assert reason(result).startswith("timed out after 0.5 s at https://pypi.org/pypi/slow-project")


def test_http_500_after_bounded_retries(checker: Checker) -> None:
    route = Route("oops", status=500)
    result = faulty(checker, "broken-project", route, retries=2)
    assert reason(result) == ("HTTP 500 Internal Server Error at "
                              "https://pypi.org/pypi/broken-project/json after 3 attempts")
    assert route.hits == 3


def test_transient_500_is_retried(checker: Checker) -> None:
    route = Route('{"releases": {"1.0.0": []}}', fault="flaky-500", state={"failures": 1})
    checker.world.web.add("/pypi/flaky-project/json", route)
    result = checker.run(pin("FLAKY_VERSION", "1.0.0", pypi="flaky-project"), retries=1)
    assert result.pin("FLAKY_VERSION")["status"] == "up to date"
    assert route.hits == 2 and result.code == 0


def test_rate_limit_with_a_far_reset_is_reported_not_waited(checker: Checker) -> None:
    reset = int(time.time()) + 3600
    route = Route('{"message": "API rate limit exceeded"}', status=403, headers={
        "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
    checker.world.web.add("/repos/limited/repo/releases", route)
    start = time.monotonic()
    result = checker.run(GOOD + pin("BAD_VERSION", "1.0.0", github="limited/repo"))
    assert time.monotonic() - start < 5
    assert result.code == 2 and result.pin("TRITON_VERSION")["status"] == "up to date"
    detail = result.pin("BAD_VERSION")["detail"]
    assert detail.startswith("rate limited at https://api.github.com/repos/limited/repo/"
                             "releases?per_page=100 until "), detail
    assert "set GITHUB_TOKEN" in detail and route.hits == 1


def test_rate_limit_with_a_near_reset_is_waited_for(checker: Checker) -> None:
    route = Route("[]", status=403, headers={"X-RateLimit-Remaining": "0",
                                             "X-RateLimit-Reset": str(int(time.time()) + 1)})
    checker.world.web.add("/repos/soon/repo/releases", route)

    def recover() -> None:
        time.sleep(0.5)
        route.status, route.headers = 200, {}
        route.body = '[{"tag_name": "v1.0.0", "assets": []}]'
    threading.Thread(target=recover, daemon=True).start()
    result = checker.run(pin("SOON_VERSION", "1.0.0", github="soon/repo"), retries=2)
    assert result.pin("SOON_VERSION")["status"] == "up to date", result.out
    assert route.hits == 2


def test_retry_after_is_honoured(checker: Checker) -> None:
    route = Route('{"releases": {"2.0.0": []}}', fault="flaky-500", state={"failures": 0})
    route.status = 429
    route.headers = {"Retry-After": "1"}
    checker.world.web.add("/pypi/busy-project/json", route)

    def recover() -> None:
        time.sleep(0.3)
        route.status, route.headers = 200, {}
    threading.Thread(target=recover, daemon=True).start()
    start = time.monotonic()
    result = checker.run(pin("BUSY_VERSION", "2.0.0", pypi="busy-project"), retries=2)
    assert result.pin("BUSY_VERSION")["status"] == "up to date", result.out
    assert time.monotonic() - start >= 0.9


def test_malformed_json(checker: Checker) -> None:
    result = faulty(checker, "garbled-project", Route('{"releases": {"1.0.0": [}'))
    assert reason(result) == "malformed JSON from https://pypi.org/pypi/garbled-project/json"


def test_truncated_html(checker: Checker) -> None:
    route = checker.world.web.simple("/pytorch/whl/cut", "torch", [
        f"torch-2.7.{n}+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl" for n in range(20)])
    route.fault, route.alternate = "truncated", None
    result = checker.run(GOOD + pin("BAD_VERSION", "2.7.1", package="torch",
                                    index=["https://download.pytorch.org/whl/cut"]))
    assert result.code == 2 and result.pin("TRITON_VERSION")["status"] == "up to date"
    assert result.pin("BAD_VERSION")["detail"] == (
        "truncated HTML from https://download.pytorch.org/whl/cut/torch/ (no closing </html>)")


def test_redirect_loop(checker: Checker) -> None:
    result = faulty(checker, "loop-project", Route(fault="redirect-loop"))
    assert reason(result) == ("redirect loop at https://pypi.org/pypi/loop-project/json "
                              "(over 10 redirects)")


def test_unknown_package(checker: Checker) -> None:
    result = faulty(checker, "no-such-project", None)
    assert reason(result).startswith("HTTP 404 Not Found at https://pypi.org/pypi/"
                                     "no-such-project/json (unknown package")


def test_unknown_git_repository(checker: Checker) -> None:
    result = checker.run(GOOD + pin("BAD_REF", "v1.0.0", git="https://github.com/no/such.git"))
    assert result.code == 2 and result.pin("TRITON_VERSION")["status"] == "up to date"
    detail = result.pin("BAD_REF")["detail"]
    assert detail.startswith("git ls-remote failed for https://github.com/no/such.git:"), detail


def test_total_deadline(checker: Checker) -> None:
    checker.world.web.add("/pypi/glacial-project/json",
                          Route('{"releases": {}}', fault="timeout", state={"sleep": 4}))
    start = time.monotonic()
    result = faulty(checker, "glacial-project", None, deadline=1.5, timeout=20, retries=0)
    assert time.monotonic() - start < 4
    assert "deadline" in reason(result) or "timed out" in reason(result), reason(result)


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
