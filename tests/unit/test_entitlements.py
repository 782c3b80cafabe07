"""The --allow grants a plan needs: network.host, reads and writes outside the working dir."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.model import bakefile, entitlements
from rocm_bake.model.bake.resolve import Plan


def _plan(tmp_path: Path, text: str, target: str) -> Plan:
    (tmp_path / "b.hcl").write_text(text)
    return bakefile.load([tmp_path / "b.hcl"], {}).plan([target])


def test_grants_outside_the_working_directory(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "ctx").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    plan = _plan(tmp_path, 'target "t" {\n  context = "../other"\n  network = "host"\n'
                           '  contexts = { inside = "ctx", img = "docker-image://x" }\n'
                           '  output = ["type=local,dest=../out/t", "type=local,dest=dist"]\n}\n',
                 "t")
    grants = entitlements.for_plan(plan, cwd=work)
    assert grants == ["network.host", f"fs.read={tmp_path / 'other'}", f"fs.write={tmp_path}"]


def test_nothing_to_grant_inside_the_working_directory(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 'target "t" {\n  output = ["type=local,dest=dist"]\n}\n', "t")
    assert entitlements.for_plan(plan, cwd=tmp_path) == []
