"""The lane stops what it started: scripts/test-setup.sh names the services it started
(``ROCM_BAKE_STARTED``), found by each script's ``running``; scripts/test.sh stops those when it
ends. Here ``running`` is checked against a real server of each kind the scripts start."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, missing


def _script(name: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ROOT / "scripts" / name), *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("script", "tool", "port_variable"), [
    ("webdav.sh", "nginx", "ROCM_BAKE_WEBDAV_PORT"),
    ("s3.sh", ".venv/bin/moto_server", "ROCM_BAKE_S3_PORT"),
])
def test_running_tells_a_started_server_from_a_stopped_one(
        tmp_path: Path, script: str, tool: str, port_variable: str) -> None:
    if shutil.which(tool) is None and not (ROOT / tool).exists():
        missing(tool, "bash scripts/test-setup.sh")
    run_dir = str(tmp_path / "run")
    for _ in range(10):   # a port another process takes between the pick and the bind
        env = {**os.environ, port_variable: str(_free_port())}
        started = _script(script, "start", run_dir, env=env)
        if started.returncode == 0:
            break
        assert "in use" in started.stderr, started.stderr
    else:
        pytest.fail("10 ports were all taken before the server could bind one")
    try:
        assert _script(script, "running", run_dir, env=env).returncode == 0
    finally:
        assert _script(script, "stop", run_dir, env=env).returncode == 0
    assert _script(script, "running", run_dir, env=env).returncode == 1


def test_the_engine_is_not_running_where_none_was_started(tmp_path: Path) -> None:
    assert _script("engine.sh", "running", str(tmp_path), env=dict(os.environ)).returncode == 1

