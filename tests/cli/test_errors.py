"""Bad input and missing parts: one clear line on stderr, exit status 2, never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import AS_ROOT, ROOT, Result, missing, run_cli

OLD_BUILDX_DIR = Path(os.environ.get("ROCM_BAKE_OLD_BUILDX_DIR", "/var/cache/rocm-bake/old-buildx"))


def assert_one_line_error(result: Result, *fragments: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_malformed_hcl_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hcl"
    bad.write_text('variable "A" {\n  default = "x"\n}\ntarget "t" {\n  args = { A = }\n}\n')
    result = run_cli(["inv", "build", "--file", str(bad), "--print"])
    assert_one_line_error(result, f"{bad}:5:", "syntax error")


def test_unknown_target_lists_valid_names() -> None:
    result = run_cli(["inv", "build", "--target", "vlm", "--print"])
    line = assert_one_line_error(result, "unknown target 'vlm'")
    assert "vllm" in line and "lmcache" in line


def test_number_variable_rejects_auto_from_environment() -> None:
    result = run_cli(["inv", "build", "--dry-run"], env={"MAX_JOBS": "auto"})
    assert_one_line_error(result, "MAX_JOBS", "'auto' is not a number", "rocm-bake.hcl:")


def test_number_variable_rejects_auto_from_set() -> None:
    result = run_cli(["inv", "build", "--dry-run", "--set", "MAX_JOBS=auto"])
    assert_one_line_error(result, "MAX_JOBS", "'auto' is not a number")


def test_unknown_variable_in_set_is_an_error() -> None:
    result = run_cli(["inv", "build", "--dry-run", "--set", "MAX_JOB=4"])
    assert_one_line_error(result, "unknown bake variable MAX_JOB", "MAX_JOBS")


def test_fleet_build_checks_its_variables_as_build_does() -> None:
    """inv fleet.build goes through the same request: an unknown variable and a malformed
    --set are one line and exit 2, before any node is asked."""
    result = run_cli(["inv", "fleet.build", "--set", "MAX_JOB=4"])
    assert_one_line_error(result, "unknown bake variable MAX_JOB", "MAX_JOBS")
    result = run_cli(["inv", "fleet.build", "--set", "MAX_JOBS"])
    assert_one_line_error(result, "invalid --set 'MAX_JOBS'", "NAME=VALUE")


def test_arch_outside_supported_set() -> None:
    result = run_cli(["inv", "build", "--arch", "gfx90a", "--dry-run"])
    assert_one_line_error(result, "GPU_ARCHS", "gfx90a")


def test_missing_docker_client(path_without_docker: str) -> None:
    # ROCM_BAKE_ENGINE=off: as root, inv build would otherwise install the engine's packages.
    result = run_cli(["inv", "build", "--target", "vllm"],
                     env={"PATH": path_without_docker, "ROCM_BAKE_ENGINE": "off"})
    assert_one_line_error(result, "docker client", "not on PATH", "scripts/engine.sh install")


def test_missing_engine() -> None:
    if shutil.which("docker") is None:
        missing("the docker client", "bash scripts/engine.sh install")
    result = run_cli(["inv", "build", "--target", "vllm"],
                     env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert_one_line_error(result, "no reachable BuildKit builder", "scripts/engine.sh start")


def test_a_benchmark_without_its_engine_is_one_line(tmp_path: Path) -> None:
    """benchmarks/perf.py when `inv perf` cannot reach a builder: one line (the benchmark, what
    failed, inv perf's error with the fix), exit 2, no traceback, nothing measured."""
    if shutil.which("docker") is None:
        missing("the docker client", "bash scripts/engine.sh install")
    history = ROOT / "perf" / "history.jsonl"
    before = history.read_bytes()
    result = run_cli([sys.executable, str(ROOT / "benchmarks" / "perf.py"), "--repeat", "1"],
                     env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    line = assert_one_line_error(result, "perf.py: error: inv perf --conditions ",
                                 "no reachable BuildKit builder", "via DOCKER_HOST",
                                 "scripts/engine.sh start")
    assert "Cannot connect" in line
    assert history.read_bytes() == before


def test_missing_buildx() -> None:
    """Hide the buildx plugin for real with a private mount namespace (root only)."""
    plugins = Path("/usr/libexec/docker/cli-plugins")
    if os.geteuid() != 0 or shutil.which("unshare") is None or not plugins.is_dir():
        missing(f"root, unshare and {plugins} (to hide the buildx plugin)", AS_ROOT)
    inv = shutil.which("inv") or str(ROOT / ".venv/bin/inv")
    script = f"mount -t tmpfs none {plugins} && exec {inv} build --target vllm"
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "DOCKER_CONFIG": "/nonexistent-docker-config",
                               "ROCM_BAKE_ENGINE": "off"})
    assert_one_line_error(Result(proc.returncode, proc.stdout, proc.stderr),
                          "docker buildx is not installed", "0.24")


def test_older_buildx_is_refused(tmp_path: Path) -> None:
    """A real buildx 0.13 (Debian trixie's), put first in a private DOCKER_CONFIG."""
    plugin = OLD_BUILDX_DIR / "cli-plugins" / "docker-buildx"
    if not plugin.exists():
        missing(f"the old buildx at {plugin}", "bash scripts/engine.sh old-buildx")
    (tmp_path / "cli-plugins").mkdir()
    (tmp_path / "cli-plugins" / "docker-buildx").symlink_to(plugin)
    result = run_cli(["inv", "build", "--target", "vllm"],
                     env={"DOCKER_CONFIG": str(tmp_path), "ROCM_BAKE_ENGINE": "off"})
    assert_one_line_error(result, "buildx 0.13", "older than 0.24", "install")


@pytest.mark.parametrize("args", [["list-vars", "--file", "nope.hcl"],
                                  ["targets", "--file", "nope.hcl"]])
def test_missing_bake_file(args: list[str]) -> None:
    assert_one_line_error(run_cli(["inv", *args]), "nope.hcl", "cannot read bake file")


def test_version_check_unreadable_snapshot_is_one_line() -> None:
    assert_one_line_error(run_cli(["inv", "version-check", "--offline", "nope.json"]),
                          "cannot read snapshot nope.json")


def test_version_check_is_never_green_when_it_could_not_check(tmp_path: Path) -> None:
    """A pin whose upstream cannot be reached is exit 2, never 'no drift' (exit 0)."""
    bake = tmp_path / "one.hcl"
    bake.write_text('variable "X" {\n  default = "1.0"\n}\nX_SOURCE = { pypi = "x" }\n')
    result = run_cli(["inv", "version-check", "--file", str(bake), "--retries", "0",
                      "--pypi", "http://127.0.0.1:9", "--cache-dir", str(tmp_path / "c")])
    assert result.returncode == 2, result
    assert "could not check" in result.stdout and "connection failed" in result.stdout


def test_json_bake_file_is_refused_clearly(tmp_path: Path) -> None:
    bake = tmp_path / "docker-bake.json"
    bake.write_text('{"target": {"t": {}}}')
    assert_one_line_error(run_cli(["inv", "build", "--file", str(bake), "--print"]),
                          "JSON and Compose bake files are not supported")


def test_unknown_argument_is_ignored_like_buildx_but_warned(tmp_path: Path) -> None:
    bake = tmp_path / "b.hcl"
    bake.write_text('target "t" {\n  plaforms = ["linux/amd64"]\n}\n')
    result = run_cli(["inv", "build", "--file", str(bake), "--target", "t", "--print"])
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == (f"warning: {bake}:2:3: unknown argument 'plaforms' in "
                                      "target 't' is ignored (as buildx ignores it)")
