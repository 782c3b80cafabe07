"""A fleet node reached over mutual TLS: a third dockerd on tcp://127.0.0.1:<port> with
--tlsverify and certificates the test makes (tests/fleet/pki.py). fleet.create / status /
build and doctor work over it; no certificate, or one from another CA, is refused in one line
with exit 2; tcp:// without TLS is refused unless insecure = true; the key never leaks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN, Result, run_cli
from tests.fleet import pki
from tests.fleet.conftest import BAKE_FILE, ENGINE, engine_sh, fresh_salt

TLS_DIR = Path(os.environ.get("ROCM_BAKE_FLEET_TLS_DIR", "/tmp/rocm-bake-fleet-tls"))
INV = str(VENV_BIN / "inv")


@dataclass(frozen=True)
class TlsNode:
    endpoint: str
    good: pki.Pki
    other: pki.Pki      # a client certificate from another CA

    def fleet(self, path: Path, **node: str | bool) -> Path:
        lines = [f"{k} = {json.dumps(v)}" for k, v in node.items()]
        path.write_text('[registry]\nurl = "http://127.0.0.1:5000"\n\n[[nodes]]\n'
                        'name = "tls"\n' f'endpoint = "{self.endpoint}"\n'
                        + "\n".join(lines) + "\n", encoding="utf-8")
        return path

    def mutual(self, path: Path) -> Path:
        return self.fleet(path, tls_ca=str(self.good.ca), tls_cert=str(self.good.client_cert),
                          tls_key=str(self.good.client_key))


def _start_tls_engine(tls_dir: Path) -> int:
    """engine.sh start: dockerd also on a TCP port nothing listened on a moment ago. dockerd
    takes no bound socket here; when someone else binds the port before dockerd does, dockerd
    exits with 'address already in use' (engine.sh prints its log) and a new port is picked: a
    start that succeeded is dockerd holding the port."""
    for _ in range(10):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        env = {**os.environ, "ROCM_BAKE_REGISTRY": "none",
               "ROCM_BAKE_ENGINE_TLS_DIR": str(tls_dir), "ROCM_BAKE_ENGINE_TCP_PORT": str(port)}
        proc = subprocess.run(["bash", str(ENGINE), "start", str(TLS_DIR)], capture_output=True,
                              text=True, timeout=180, check=False, env=env)
        if proc.returncode == 0:
            return port
        if "address already in use" not in proc.stderr:
            pytest.fail(f"scripts/engine.sh start failed: {proc.stderr.strip()[-800:]}")
    pytest.fail("10 ports were all taken before dockerd could bind them")


@pytest.fixture(scope="module")
def tls_node(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsNode]:
    certs = tmp_path_factory.mktemp("pki")
    good, other = pki.make(certs / "good"), pki.make(certs / "other", "another CA")
    port = _start_tls_engine(good.dir)
    try:
        engine_sh("base-image", str(TLS_DIR))
        yield TlsNode(f"tcp://127.0.0.1:{port}", good, other)
    finally:
        engine_sh("stop", str(TLS_DIR))


def _key_lines(*keys: Path) -> list[str]:
    """The canary: every base64 line of the private keys."""
    return [line for key in keys for line in key.read_text().splitlines()
            if line and not line.startswith("-----")]


def _one_line_exit_2(result: Result, *needles: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, result.stderr
    for needle in needles:
        assert needle in line, line


def test_create_status_build_and_doctor_over_mutual_tls(tls_node: TlsNode,
                                                        tmp_path: Path) -> None:
    fleet = str(tls_node.mutual(tmp_path / "fleet.toml"))
    config = {"DOCKER_CONFIG": str(tmp_path / "docker")}
    outputs: list[str] = []

    created = run_cli([INV, "fleet.create", "--fleet", fleet], env=config)
    assert created.returncode == 0 and " created" in created.stdout, created.stderr
    probe = run_cli(["docker", "--context", "rocm-bake-tls", "info", "--format",
                     "{{.ServerVersion}}"], env={**config, "DOCKER_HOST": ""})
    assert probe.returncode == 0 and probe.stdout.strip(), probe.stderr

    status = run_cli([INV, "fleet.status", "--fleet", fleet])
    assert status.returncode == 0, status.stderr
    assert "mutual TLS" in status.stdout and " yes " in status.stdout

    logs = tmp_path / "logs"
    build = run_cli([INV, "fleet.build", "--file", BAKE_FILE, "--fleet", fleet, "--arch", "a1",
                     "--prefix", "rocm-bake-test/fleet-tls", "--log-dir", str(logs),
                     "--history", "/nonexistent"], env={"SALT": fresh_salt(), "SLEEP": "0"})
    assert build.returncode == 0, build.stderr[-2000:]
    (run_json,) = logs.glob("*/run.json")
    rec = json.loads(run_json.read_text())
    assert {c["status"] for c in rec["cells"]} == {"built"} and len(rec["cells"]) == 3
    assert all(a["node"] == "tls" and a["digest"] for c in rec["cells"] for a in c["attempts"])

    doctor = run_cli([INV, "doctor", "--fleet", fleet])
    node_rows = [line for line in doctor.stdout.splitlines() if line.startswith("node tls")]
    assert node_rows and " ok " in node_rows[0], doctor.stdout + doctor.stderr

    site = tmp_path / "site"
    published = run_cli([INV, "reports.publish", str(site), "--log-dir", str(logs)])
    assert published.returncode == 0, published.stderr
    outputs += [r.stdout + r.stderr for r in (created, status, build, doctor, published)]
    files = [*logs.rglob("*"), *site.rglob("*")]
    texts = outputs + [f.read_text(errors="replace") for f in files if f.is_file()]
    canary = _key_lines(tls_node.good.client_key, tls_node.good.dir / "server-key.pem")
    assert len(canary) > 10
    leaks = [line for line in canary if any(line in text for text in texts)]
    assert not leaks, "private key material in the outputs"


@pytest.mark.parametrize("which", ["no certificate", "another CA"])
def test_a_client_without_a_good_certificate_is_refused_in_one_line(
        tls_node: TlsNode, tmp_path: Path, which: str) -> None:
    if which == "no certificate":
        fleet = tls_node.fleet(tmp_path / "fleet.toml", tls_ca=str(tls_node.good.ca))
    else:
        fleet = tls_node.fleet(tmp_path / "fleet.toml", tls_ca=str(tls_node.good.ca),
                               tls_cert=str(tls_node.other.client_cert),
                               tls_key=str(tls_node.other.client_key))
    status = run_cli([INV, "fleet.status", "--fleet", str(fleet)])
    _one_line_exit_2(status, "unreachable node(s): tls (TLS refused: ")
    build = run_cli([INV, "fleet.build", "--file", BAKE_FILE, "--fleet", str(fleet), "--arch",
                     "a1", "--log-dir", str(tmp_path / "logs"), "--history", "/nonexistent"])
    _one_line_exit_2(build, "no node of the fleet answers: tls (TLS refused: ")


def test_tcp_without_tls_is_refused_unless_insecure(tls_node: TlsNode, tmp_path: Path) -> None:
    config = {"DOCKER_CONFIG": str(tmp_path / "docker")}
    plain = tls_node.fleet(tmp_path / "plain.toml")
    created = run_cli([INV, "fleet.create", "--fleet", str(plain)], env=config)
    _one_line_exit_2(created, "tls:", "without TLS", "insecure = true")
    status = run_cli([INV, "fleet.status", "--fleet", str(plain)])
    assert "NO TLS (refused)" in status.stdout, status.stdout
    build = run_cli([INV, "fleet.build", "--file", BAKE_FILE, "--fleet", str(plain), "--arch",
                     "a1", "--log-dir", str(tmp_path / "logs"), "--history", "/nonexistent"])
    _one_line_exit_2(build, "without TLS")

    accepted = tls_node.fleet(tmp_path / "insecure.toml", insecure=True)
    created = run_cli([INV, "fleet.create", "--fleet", str(accepted)], env=config)
    assert created.returncode == 0 and " created" in created.stdout, created.stderr
    status = run_cli([INV, "fleet.status", "--fleet", str(accepted)])
    assert "NO TLS (insecure = true)" in status.stdout, status.stdout
