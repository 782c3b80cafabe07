"""Two real Docker engines on this machine, one fleet node each, sharing ONE registry.

Node 1 is the engine of the other engine tests (scripts/engine.sh start: dockerd + the
registry on 127.0.0.1:5000); node 2 is a second dockerd with its own run dir, socket and data
root and no registry of its own (ROCM_BAKE_REGISTRY=none), which trusts 127.0.0.1:5000 too.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

ENGINE = ROOT / "scripts" / "engine.sh"
NODE2_DIR = Path(os.environ.get("ROCM_BAKE_FLEET_NODE2_DIR", "/tmp/rocm-bake-fleet-node2"))
BAKE_FILE = "tests/fleet/bake/fleet.hcl"


def engine_sh(*args: str, registry: str = "local", **extra: str) -> str:
    env = {**os.environ, "ROCM_BAKE_REGISTRY": registry, **extra}
    proc = subprocess.run(["bash", str(ENGINE), *args], capture_output=True, text=True,
                          timeout=180, check=False, env=env)
    if proc.returncode != 0:
        pytest.fail(f"scripts/engine.sh {' '.join(args)} failed: {proc.stderr.strip()[-800:]}")
    return proc.stdout.strip().removeprefix("export DOCKER_HOST=")


def start_node2() -> str:
    host = engine_sh("start", str(NODE2_DIR), registry="none")
    engine_sh("base-image", str(NODE2_DIR))
    return host


@dataclass(frozen=True)
class TwoNodes:
    node1: str          # DOCKER_HOST of each
    node2: str
    fleet_file: Path

    def restart_node2(self) -> None:
        engine_sh("stop", str(NODE2_DIR))
        start_node2()


@pytest.fixture(scope="session")
def two_nodes(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoNodes]:
    node2 = start_node2()
    fleet_file = tmp_path_factory.mktemp("fleet") / "fleet.toml"
    fleet_file.write_text(f"""
[registry]
url = "http://127.0.0.1:5000"

[[nodes]]
name = "node1"
endpoint = "{engine}"
capacity = 1

[[nodes]]
name = "node2"
endpoint = "{node2}"
capacity = 1
""", encoding="utf-8")
    yield TwoNodes(engine, node2, fleet_file)
    engine_sh("stop", str(NODE2_DIR))


def fresh_salt() -> str:
    """A new value for the bake file's SALT: every cache key of a run is new."""
    return uuid.uuid4().hex[:12]
