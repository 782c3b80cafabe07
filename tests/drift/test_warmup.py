"""A warm run asks the last run's questions first (drift/warmup.py): before the bake file is
loaded, with the same answers and explanations as if each check had asked itself."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.core.clock import SYSTEM
from rocm_bake_checks.drift import run
from rocm_bake_checks.drift.session import Session
from rocm_bake_checks.drift.settings import DriftSettings
from tests.drift.conftest import Checker, pin
from tests.drift.webworld import Route, releases_json

GH = "https://github.com"
TEXT = pin("NIXL_REF", "v0.4.0", git=f"{GH}/ai-dynamo/nixl.git") + \
    pin("WARM_VERSION", "1.0.0", pypi="warm-project")


def test_a_warm_run_asks_the_last_runs_questions_before_loading_the_bake_file(
        checker: Checker) -> None:
    route = checker.world.web.add("/pypi/warm-project/json",
                                  Route(releases_json("1.0.0")))
    first = checker.run(TEXT)
    assert first.pin("WARM_VERSION")["status"] == "up to date" and route.hits == 1
    bake = checker.tmp / "drift.hcl"
    bake.write_text("this is { not HCL")   # the next run would fail to load it
    options = DriftSettings(files=[str(bake)], rewrites=checker.world.rewrites(),
                            cache_dir=str(checker.cache))
    session = Session(run._settings(options, {}, SYSTEM))
    session.warm_up([bake])
    session.pool.shutdown(wait=True)
    assert route.hits == 2 and route.conditional_hits == 1   # asked, unloaded, revalidated
    assert {key for key in session.fetcher._slots} == {
        f"git ls-remote {GH}/ai-dynamo/nixl.git", "GET https://pypi.org/pypi/warm-project/json"}


def test_a_warm_run_reports_and_explains_as_a_cold_one(checker: Checker) -> None:
    checker.world.web.add("/pypi/warm-project/json", Route(releases_json("1.0.0")))
    cold = checker.run(TEXT, explain="WARM_VERSION", output="table")
    warm = checker.run(TEXT, explain="WARM_VERSION", output="table")
    asked = f"GET https://pypi.org/pypi/warm-project/json  ->  asked {checker.world.http_url}" \
        "/pypi/warm-project/json (sent there by --rewrite https://pypi.org=): "
    assert asked + "HTTP 200" in cold.out
    assert asked + "HTTP 304 Not Modified" in warm.out
    json_cold, json_warm = checker.run(TEXT).json(), checker.run(TEXT).json()
    assert json_cold["pins"] == json_warm["pins"]


def test_runs_that_ask_less_neither_use_nor_change_the_plan(checker: Checker) -> None:
    route = checker.world.web.add("/pypi/warm-project/json",
                                  Route(releases_json("1.0.0")))
    checker.run(TEXT, only=["NIXL_REF"])
    assert not (checker.cache / "plan").exists() and route.hits == 0
    checker.run(TEXT)
    plans = sorted(Path(checker.cache / "plan").iterdir())
    before = [p.read_text() for p in plans]
    checker.run(TEXT, only=["NIXL_REF"])
    assert route.hits == 1                    # the plan's GET was not made for --only
    assert [p.read_text() for p in plans] == before
