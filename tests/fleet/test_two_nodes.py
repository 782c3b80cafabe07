"""inv fleet.* on two real Docker engines sharing one registry (see conftest.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests

from rocm_bake.perf import schema
from tests.conftest import ROOT, VENV_BIN, minimal_env, run_cli
from tests.fleet.conftest import BAKE_FILE, NODE2_DIR, TwoNodes, fresh_salt
from tests.fleet.gate import Gate

PREFIX = "rocm-bake-test/fleet"
CELLS = {"base-a1", "base-a2", "mid-a1", "mid-a2", "top-a1", "top-a2"}


def build_argv(nodes: TwoNodes, log_dir: Path, *extra: str) -> list[str]:
    return [str(VENV_BIN / "inv"), "fleet.build", "--file", BAKE_FILE,
            "--fleet", str(nodes.fleet_file), "--arch", "a1,a2", "--prefix", PREFIX,
            "--log-dir", str(log_dir), "--history", "/nonexistent", *extra]


def record(log_dir: Path) -> dict[str, Any]:
    (path,) = log_dir.glob("*/run.json")
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def cells(rec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["cell"]: c for c in rec["cells"]}


def in_registry(cell: str, tag: str) -> bool:
    response = requests.head(
        f"http://127.0.0.1:5000/v2/{PREFIX}/{cell}/manifests/{tag}", timeout=5,
        headers={"Accept": "application/vnd.oci.image.index.v1+json, "
                            "application/vnd.oci.image.manifest.v1+json"})
    return response.status_code == 200


def arch_lines(stderr: str) -> dict[str, str]:
    """The ``arch:`` lines of a run, by cell (the arch audit of each built cell)."""
    lines = [line.removeprefix("arch: ") for line in stderr.splitlines()
             if line.startswith("arch: ")]
    return {line.split(":", 1)[0]: line for line in lines}


def audited_line(cell: str, tag: str) -> str:
    """The audit of a busybox stand-in, read from the registry: busybox is its one ELF."""
    return (f"{cell}: no GPU code (1 host-only ELF file(s)) in image "
            f"127.0.0.1:5000/{PREFIX}/{cell}:{tag} (from its registry) (/opt/rocm* left out: "
            "ROCm's own), as its label rocm-bake.no-gpu-code says: busybox stand-ins: no GPU "
            "code")


def prune_build_caches(nodes: TwoNodes) -> None:
    for host in (nodes.node1, nodes.node2):
        subprocess.run(["docker", "builder", "prune", "-af"], env=minimal_env(
            {"DOCKER_HOST": host}), capture_output=True, timeout=120, check=True)


def test_every_node_busy_at_once_then_served_from_the_shared_registry_cache(
        two_nodes: TwoNodes, tmp_path: Path) -> None:
    salt = fresh_salt()
    perf = tmp_path / "perf" / "history.jsonl"
    # both base cells start at once, one per node; the gate holds their RUN steps until both
    # are under way, so the two nodes are busy at the same time by construction
    with Gate(opens_when=lambda arrived: {"base-a1", "base-a2"} <= set(arrived)) as gate:
        first = run_cli(build_argv(two_nodes, tmp_path / "first", "--perf-out", str(perf),
                                   "--commit", "abc1234"),
                        env={"SALT": salt, "SLEEP": "2", "GATE": gate.url})
        assert first.returncode == 0, first.stderr[-2000:]
        rec = record(tmp_path / "first")
        by_cell = cells(rec)
        assert set(by_cell) == CELLS
        assert all(c["status"] == "built" for c in by_cell.values())
        assert {c["node"] for c in by_cell.values()} == {"node1", "node2"}
        # concurrency: two cells on different nodes whose build intervals overlap
        spans = [(c["node"], c["attempts"][-1]["start"], c["attempts"][-1]["end"])
                 for c in by_cell.values()]
        assert any(a[0] != b[0] and a[1] < b[2] and b[1] < a[2]
                   for a in spans for b in spans), spans
        # dependencies came from the registry: every cell's image is there, and each dependent
        # took its dependency as a docker-image:// context, never a target: link
        assert all(in_registry(cell, rec["run_id"]) for cell in CELLS)
        mid_log = Path(by_cell["mid-a1"]["attempts"][-1]["log"]).read_text()
        assert f"mid-a1.contexts.base=docker-image://127.0.0.1:5000/{PREFIX}/base-a1:" in mid_log
        assert all(c["attempts"][-1]["run_steps"] == 1 for c in by_cell.values())
        assert "6 cells on 2 node(s)" in first.stdout
        # every built cell arch-audited from the registry (never loaded into an engine)
        assert arch_lines(first.stderr) == {cell: audited_line(cell, rec["run_id"])
                                            for cell in CELLS}
        assert all(c["audit"] == [audited_line(c["cell"], rec["run_id"])]
                   and c["audit_exit"] == 0 for c in by_cell.values())
        # every published cell carries its provenance: read back from the registry by cell+tag
        made = run_cli(["inv", "inspect", "mid-a1", "--tag", rec["run_id"], "--registry",
                        "127.0.0.1:5000", "--prefix", PREFIX, "--json"])
        assert made.returncode == 0, made.stderr
        [image] = json.loads(made.stdout)
        assert image["provenance"] and image["versions"] and image["cell"] == "mid-a1"
        assert image["args"]["SALT"] == salt and image["pins_from"] == "bake file"
        assert image["base"] and image["dockerfile"].startswith("mid.Dockerfile sha256:")
        # the perf record: one line per built cell, in the perf history's own format
        history = schema.load(perf)
        assert {r.target for r in history} == CELLS
        assert all(r.commit == "abc1234" and r.cache_hit_rate == 0 and r.seconds > 1
                   for r in history)
        assert all(r.arch == r.target.rsplit("-", 1)[1] and r.workload.bake_file == BAKE_FILE
                   for r in history)

        # second run: nothing left in the nodes' own build caches; the registry cache serves all
        prune_build_caches(two_nodes)
        second = run_cli(build_argv(two_nodes, tmp_path / "second"),
                         env={"SALT": salt, "SLEEP": "2", "GATE": gate.url})  # same keys
        assert second.returncode == 0, second.stderr[-2000:]
        again = cells(record(tmp_path / "second"))
        for name, cell in again.items():
            attempt = cell["attempts"][-1]
            assert (attempt["run_steps"], attempt["cached_steps"]) == (0, 1), name
            log = Path(attempt["log"]).read_text()
            assert "CACHED" in log and "importing cache manifest" in log, name


def _running_on_node2(log_dir: Path, arrived: list[str]) -> str | None:
    """A cell at the gate (its RUN step under way) that run.json places on node2."""
    runs = list(log_dir.glob("*/run.json"))
    if not runs:
        return None
    rec = json.loads(runs[0].read_text())    # written atomically at each state change
    for cell in rec["cells"]:
        if cell["cell"] in arrived and cell["status"] == "running" and cell["node"] == "node2":
            return str(cell["cell"])
    return None


def test_a_node_killed_mid_run_loses_nothing(two_nodes: TwoNodes, tmp_path: Path) -> None:
    """Event-driven: every RUN step waits at the test's gate; once a cell on node2 is at the
    gate, node2's dockerd is killed, then the gate opens for all (the retry on node1 too)."""
    log_dir = tmp_path / "logs"
    with Gate() as gate:
        proc = subprocess.Popen(build_argv(two_nodes, log_dir), cwd=ROOT, text=True,
                                env=minimal_env({"SALT": fresh_salt(), "SLEEP": "0",
                                                 "GATE": gate.url}),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            # the two base cells start at once, one per node (capacity 1 each): one of them
            # reaches the gate from node2; the timeout only guards against a hang
            victim = gate.wait_for(lambda arrived: _running_on_node2(log_dir, arrived), 600)
            assert victim, f"no cell reached the gate from node2 (arrived: {gate.arrived})"
            pid = int((NODE2_DIR / "docker.pid").read_text().strip())
            assert b"dockerd" in Path(f"/proc/{pid}/cmdline").read_bytes()  # ours
            os.kill(pid, signal.SIGKILL)
            gate.open()
            stdout, stderr = proc.communicate(timeout=600)
        finally:
            gate.open()
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
            two_nodes.restart_node2()
    assert proc.returncode == 0, stderr[-2000:]
    rec = record(log_dir)
    by_cell = cells(rec)
    assert all(c["status"] == "built" for c in by_cell.values())
    assert rec["nodes"]["node2"]["lost"] is not None
    tries = by_cell[victim]["attempts"]
    assert [a["node"] for a in tries] == ["node2", "node1"]
    assert tries[0]["node_lost"] and not tries[1]["node_lost"]
    # nothing after the loss ran on node2; every image is in the registry
    lost_at = rec["nodes"]["node2"]["lost"]["time"]
    assert all(a["node"] == "node1" for c in by_cell.values() for a in c["attempts"]
               if a["start"] > lost_at)
    assert all(in_registry(cell, rec["run_id"]) for cell in CELLS)
    assert "lost: node2" in stdout
    assert "retried after losing node2" in stdout


def test_a_failing_cell_and_what_it_blocks_are_named_exit_2(
        two_nodes: TwoNodes, tmp_path: Path) -> None:
    result = run_cli(build_argv(two_nodes, tmp_path, "--set", "mid-a1.args.SLEEP=not-a-number"),
                     env={"SALT": fresh_salt(), "SLEEP": "1"})
    assert result.returncode == 2, result.stderr[-2000:]
    by_cell = cells(record(tmp_path))
    assert by_cell["mid-a1"]["status"] == "failed"
    assert by_cell["top-a1"]["status"] == "blocked"
    assert len(by_cell["mid-a1"]["attempts"]) == 1        # a live node's failure: no retry
    assert all(by_cell[c]["status"] == "built" for c in ("base-a1", "base-a2", "mid-a2",
                                                         "top-a2"))
    assert "not built: " in result.stderr
    assert "mid-a1 (failed" in result.stderr and "top-a1 (blocked: needs mid-a1)" in result.stderr


def test_a_cell_without_gpu_code_and_no_label_fails_the_audit_exit_1(
        two_nodes: TwoNodes, tmp_path: Path) -> None:
    """NO_GPU_CODE empty: the cells no longer say why they carry no GPU code, so the audit of
    what they pushed (read from the registry) fails them: exit 1, the image named."""
    result = run_cli(build_argv(two_nodes, tmp_path, "--cells", "base-a1"),
                     env={"SALT": fresh_salt(), "SLEEP": "0", "NO_GPU_CODE": ""})
    assert result.returncode == 1, result.stderr[-2000:]
    rec = record(tmp_path)
    (cell,) = rec["cells"]
    image = f"127.0.0.1:5000/{PREFIX}/base-a1:{rec['run_id']}"
    assert cell["status"] == "built" and cell["audit_exit"] == 1 and rec["exit_status"] == 1
    assert cell["audit"] == [
        f"base-a1: expected a1: NO GPU CODE: 1 host-only ELF file(s), none with GPU code, in "
        f"image {image} (from its registry) (/opt/rocm* left out: ROCm's own)",
        f"base-a1: no GPU code objects in docker://{image} (expected a1)"]
    assert [f"arch: {line}" for line in cell["audit"]] == [
        line for line in result.stderr.splitlines() if line.startswith("arch: ")]
    assert result.stderr.rstrip().endswith(
        "error: arch audit: no GPU code in base-a1 (see the arch: lines)")


def test_status_create_and_rm(two_nodes: TwoNodes, tmp_path: Path) -> None:
    inv = str(VENV_BIN / "inv")
    fleet = str(two_nodes.fleet_file)
    status = run_cli([inv, "fleet.status", "--fleet", fleet])
    assert status.returncode == 0, status.stderr
    rows = [line.split() for line in status.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == ["node1", "node2"]
    assert all(r[2] == "docker" and r[3].startswith("v") and r[4] == "yes" for r in rows), rows

    config = {"DOCKER_CONFIG": str(tmp_path / "docker")}
    created = run_cli([inv, "fleet.create", "--fleet", fleet], env=config)
    assert created.returncode == 0, created.stderr
    assert created.stdout.count(" created") == 2
    probe = run_cli(["docker", "--context", "rocm-bake-node2", "info", "--format",
                     "{{.ServerVersion}}"], env={**config, "DOCKER_HOST": ""})
    assert probe.returncode == 0, probe.stderr
    again = run_cli([inv, "fleet.create", "--fleet", fleet], env=config)
    assert again.stdout.count(" exists") == 2
    removed = run_cli([inv, "fleet.rm", "--fleet", fleet], env=config)
    assert removed.returncode == 0 and removed.stdout.count(" removed") == 2, removed.stdout


def test_status_names_an_unreachable_node(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('[registry]\nurl = "http://127.0.0.1:5000"\n[[nodes]]\nname = "gone"\n'
                     f'endpoint = "unix://{tmp_path}/nothing.sock"\n')
    result = run_cli([str(VENV_BIN / "inv"), "fleet.status", "--fleet", str(fleet)])
    assert result.returncode == 2
    assert "unreachable node(s): gone" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--cells", "nope"], "no cell or component named 'nope'"),
    (["--node", "node9"], "no node named node9"),
])
def test_bad_requests_are_one_line(two_nodes: TwoNodes, tmp_path: Path, args: list[str],
                                   message: str) -> None:
    result = run_cli(build_argv(two_nodes, tmp_path, *args))
    assert result.returncode == 2
    assert message in result.stderr
