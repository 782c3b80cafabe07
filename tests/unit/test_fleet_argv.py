"""A fleet cell's bake goes through the one bake command builder: the grants its plan needs
(``network = "host"``), the node's connection (TLS), the registry hand-over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rocm_bake.fleetbuild import cells, runner
from rocm_bake.fleetbuild.config import Node

BAKE = """
variable "GPU_ARCHS" {
  type    = list(string)
  default = ["a1"]
}
ALL_ARCHS = ["a1"]
ARCHS = { host = GPU_ARCHS }
SKIP = {}
target "host" {
  matrix   = { arch = ARCHS["host"] }
  name     = "host-${arch}"
  context  = "."
  network  = "host"
  args     = { ARCH = arch }
}
"""


def test_a_host_network_cell_is_granted_network_host(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fleet.hcl").write_text(BAKE)
    monkeypatch.chdir(tmp_path)
    [cell] = cells.select(["fleet.hcl"], ["a1"], [], dict(os.environ))
    assert cell.name == "host-a1" and "network.host" in cell.allow
    request = runner.FleetRequest(["fleet.hcl"], [cell])
    refs = runner.Refs("127.0.0.1:5000", "p", "run1")
    node = Node("n", "tcp://bk:2376", tls={"tls_ca": "/c/ca.pem"})
    argv = runner.bake_argv(request, cell, refs, node)
    assert argv[:4] == ["docker", "--tlsverify", "--tlscacert", "/c/ca.pem"]
    grants = [argv[i + 1] for i, a in enumerate(argv) if a == "--allow"]
    assert grants == list(cell.allow)
    assert argv[-1] == "host-a1" and "--push" in argv
