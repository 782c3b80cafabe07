"""The README's first command on a machine with no engine running and no DOCKER_HOST:
`./inv build` starts the project's loopback engine itself and builds.

Each test gets its own engine run dir and registry port (ROCM_BAKE_ENGINE_DIR,
ROCM_BAKE_REGISTRY_PORT; the port held by the test until its engine is gone, so no other
process is given it meanwhile), so the shared engine at /tmp/rocm-bake-engine that other
sessions use is never stopped; the test's engine is stopped and cleaned (`engine.sh clean`)
afterwards.

And no default engine, whatever the machine has (tests/e2e/isolated.py): `./inv build` starts
the project's engine, never skips.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake.docker import preflight
from tests.conftest import AS_ROOT, ROOT, VENV_BIN, Result, missing
from tests.e2e.isolated import assert_no_default_engine, held_port, mask_default_engine

ENGINE_SH = ROOT / "scripts" / "engine.sh"
pytestmark = pytest.mark.engine


@dataclass(frozen=True)
class Fresh:
    """A machine state with no engine for this test: a run dir, a port, a clean environment."""

    run_dir: Path
    env: dict[str, str]
    work: Path

    @property
    def docker_host(self) -> str:
        return f"unix://{self.run_dir}/docker.sock"

    def inv(self, *args: str, extra: dict[str, str] | None = None) -> Result:
        """`./inv ARGS` as the README has it (the wrapper at the repo root)."""
        proc = subprocess.run([str(ROOT / "inv"), *args], cwd=ROOT,
                              env={**self.env, **(extra or {})}, capture_output=True, text=True,
                              timeout=600, check=False)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def docker(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["docker", *args],
                              env={**self.env, "DOCKER_HOST": self.docker_host},
                              capture_output=True, timeout=120, check=False)


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Fresh]:
    if os.geteuid() != 0:
        missing("root (starting dockerd needs it)", AS_ROOT)
    for tool in ("docker", "dockerd", "docker-registry", "unshare"):
        if shutil.which(tool) is None:
            missing(tool, "bash scripts/engine.sh install")
    with held_port() as port:
        yield from _fresh(tmp_path, port)


def _fresh(tmp_path: Path, port: int) -> Iterator[Fresh]:
    run_dir = Path(tempfile.mkdtemp(prefix="rbfu-", dir="/tmp"))   # short: a unix socket path
    (tmp_path / "docker").mkdir()
    masked = mask_default_engine(tmp_path / "no-default-engine")
    env = {"PATH": f"{masked}:{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "HOME": str(tmp_path),
           # No user configuration: no docker context, no `docker buildx use` builder.
           "DOCKER_CONFIG": str(tmp_path / "docker"),
           "ROCM_BAKE_ENGINE_DIR": str(run_dir),
           "ROCM_BAKE_REGISTRY_PORT": str(port),
           # engine.sh clean must not touch the machine's shared caches.
           "ROCM_BAKE_ROOTFS_DIR": str(tmp_path / "rootfs"),
           "ROCM_BAKE_OLD_BUILDX_DIR": str(tmp_path / "old-buildx")}
    state = Fresh(run_dir, env, tmp_path)
    try:
        assert_no_default_engine(env)
        assert not (run_dir / "docker.sock").exists()
        yield state
    finally:
        subprocess.run(["bash", str(ENGINE_SH), "clean", str(run_dir)], env=env,
                       capture_output=True, timeout=180, check=False)
        shutil.rmtree(run_dir, ignore_errors=True)


def _scratch_bake(work: Path, greeting: str) -> Path:
    """A bake file needing no base image at all (FROM scratch): the fresh engine has none."""
    (work / "hello.txt").write_text(f"{greeting}\n")
    (work / "Dockerfile").write_text("FROM scratch\nCOPY hello.txt /hello.txt\n")
    bake = work / "docker-bake.hcl"
    bake.write_text(f'variable "TAG" {{\n  default = "fu"\n}}\n'
                    f'target "hello" {{\n  context = "{work}"\n  dockerfile = "Dockerfile"\n'
                    f'  tags = ["rocm-bake-test/first-use:${{TAG}}"]\n}}\n')
    return bake


def _file_in_image(fresh: Fresh, image: str, path: str) -> bytes:
    created = fresh.docker("create", image, "/none")
    assert created.returncode == 0, created.stderr
    container = created.stdout.decode().strip()
    try:
        copied = fresh.docker("cp", f"{container}:{path}", "-")
        assert copied.returncode == 0, copied.stderr
    finally:
        fresh.docker("rm", container)
    with tarfile.open(fileobj=io.BytesIO(copied.stdout)) as archive:
        member = archive.extractfile(Path(path).name)
        assert member is not None
        return member.read()


def test_first_command_starts_the_engine_and_builds(fresh: Fresh) -> None:
    greeting = f"hello-{uuid.uuid4().hex[:8]}"
    bake = _scratch_bake(fresh.work, greeting)
    result = fresh.inv("build", "--file", str(bake), "--target", "hello")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "starting the project's loopback engine" in result.stderr
    assert "ROCM_BAKE_ENGINE=off" in result.stderr       # the opt-out is said where it acts
    assert (fresh.run_dir / "docker.sock").is_socket()
    assert _file_in_image(fresh, "rocm-bake-test/first-use:fu", "/hello.txt") == \
        f"{greeting}\n".encode()
    # Its registry runs too, on the port asked for.
    port = fresh.env["ROCM_BAKE_REGISTRY_PORT"]
    registry = subprocess.run(["curl", "-fsS", f"http://127.0.0.1:{port}/v2/"],
                              capture_output=True, timeout=30, check=False)
    assert registry.returncode == 0

    # Again, still without DOCKER_HOST: the running engine is found, not started twice.
    again = fresh.inv("build", "--file", str(bake), "--target", "hello", "--set", "TAG=again")
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"using the project's engine at {fresh.docker_host}" in again.stderr
    assert "starting" not in again.stderr
    assert _file_in_image(fresh, "rocm-bake-test/first-use:again", "/hello.txt") == \
        f"{greeting}\n".encode()


def test_clean_removes_what_the_engine_left(fresh: Fresh) -> None:
    rootfs = Path(fresh.env["ROCM_BAKE_ROOTFS_DIR"])
    old = Path(fresh.env["ROCM_BAKE_OLD_BUILDX_DIR"])
    rootfs.mkdir()
    (rootfs / "rootfs-debian-bookworm-0123456789ab.tar").write_bytes(b"x")
    (rootfs / "keep.txt").write_text("not ours")
    (old / "cli-plugins").mkdir(parents=True)
    started = subprocess.run(["bash", str(ENGINE_SH), "start", str(fresh.run_dir)],
                             env=fresh.env, capture_output=True, text=True, timeout=180,
                             check=False)
    assert started.returncode == 0, started.stderr
    clean = subprocess.run(["bash", str(ENGINE_SH), "clean", str(fresh.run_dir)],
                           env=fresh.env, capture_output=True, text=True, timeout=180,
                           check=False)
    assert clean.returncode == 0, clean.stderr
    assert not fresh.run_dir.exists()
    assert not (rootfs / "rootfs-debian-bookworm-0123456789ab.tar").exists()
    assert (rootfs / "keep.txt").exists()
    assert not old.exists()
    assert fresh.docker("info").returncode != 0        # its dockerd is gone


def test_opt_out_fails_fast_and_starts_nothing(fresh: Fresh) -> None:
    bake = _scratch_bake(fresh.work, "never")
    result = fresh.inv("build", "--file", str(bake), "--target", "hello",
                       extra={"ROCM_BAKE_ENGINE": "off"})
    assert result.returncode == 2
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert "no reachable BuildKit builder" in lines[0]
    assert f"bash scripts/engine.sh start {fresh.run_dir}" in lines[0]
    assert not (fresh.run_dir / "docker.sock").exists()


def test_a_users_engine_is_never_replaced(fresh: Fresh) -> None:
    bake = _scratch_bake(fresh.work, "never")
    result = fresh.inv("build", "--file", str(bake), "--target", "hello",
                       extra={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert result.returncode == 2
    assert "via DOCKER_HOST" in result.stderr
    assert "starting" not in result.stderr
    assert not (fresh.run_dir / "docker.sock").exists()


def test_an_unpullable_base_image_is_one_hint(fresh: Fresh) -> None:
    (fresh.work / "Dockerfile").write_text("FROM rocm-bake/no-such-base:1\n")
    bake = fresh.work / "docker-bake.hcl"
    bake.write_text(f'target "t" {{\n  context = "{fresh.work}"\n  dockerfile = "Dockerfile"\n}}\n')
    result = fresh.inv("build", "--file", str(bake), "--target", "t")
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: base image docker.io/rocm-bake/no-such-base:1 cannot be "
                           "pulled"), last
    assert "docker load" in last and "ROCM_BAKE_REGISTRY_MIRROR" in last
    assert fresh.docker_host in last


def test_as_another_user_the_exact_command_is_the_error(fresh: Fresh) -> None:
    """Not root: nothing is installed or started; the one line to run is the message."""
    with pytest.raises(preflight.SetupError) as caught:
        preflight.ensure_builder(fresh.env, root=False)
    message = str(caught.value)
    port = fresh.env["ROCM_BAKE_REGISTRY_PORT"]
    assert f"sudo ROCM_BAKE_REGISTRY_PORT={port} bash " in message
    assert message.endswith(f"scripts/engine.sh start {fresh.run_dir})")
    assert "\n" not in message
    assert not (fresh.run_dir / "docker.sock").exists()
