"""A canary password in a URL appears in none of the outputs: dry run, preflight, build log and
health lines, list-vars, doctor, services, fleet.status, run.json, perf history. The credentials
(a WebDAV password in the URL, an S3 key pair in the environment) reach the build only inside
the BuildKit secret, and the secret file is left without them."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from rocm_bake.builds import request as build
from rocm_bake.core import redact
from rocm_bake.fleetbuild.record import Attempt, CellRecord, RunRecord
from rocm_bake.perf import history
from tests import loopback
from tests.conftest import ROOT, Result, missing, run_cli

CANARY = "CANARYPASS"



def _closed_port() -> int:
    """The loopback port nothing listens on (discard), as the other CLI tests use it."""
    return 9


def _url(port: int, user: str = "user") -> str:
    return f"http://{user}:{CANARY}@127.0.0.1:{port}/"


def _clean(result: Result) -> None:
    assert CANARY not in result.stdout + result.stderr, result.stdout + result.stderr


def _webdav_sets(port: int) -> list[str]:
    return ["--set", "CACHE_STORE=webdav", "--set", f"CACHE_STORE_URL={_url(port)}"]


def test_dry_run_env_line_and_set_overrides() -> None:
    port = _closed_port()
    result = run_cli(["inv", "build", "--target", "vllm", "--dry-run", *_webdav_sets(port),
                      "--set", f"vllm-gfx950.args.MIRROR={_url(port)}"])
    assert result.returncode == 0, result.stderr
    _clean(result)
    assert f"CACHE_STORE_URL=http://127.0.0.1:{port}/" in result.stdout
    assert f"MIRROR=http://****@127.0.0.1:{port}/" in result.stdout


def test_credentials_go_into_the_secret_not_the_environment() -> None:
    port = _closed_port()
    prepared = build.prepare(build.BuildRequest(
        targets=["vllm"], sets=["CACHE_STORE=webdav", f"CACHE_STORE_URL={_url(port)}"]))
    assert prepared.url_credentials == {"CACHE_STORE_USER": "user",
                                        "CACHE_STORE_PASSWORD": CANARY}
    assert CANARY not in json.dumps(prepared.invocation.env)
    assert CANARY not in " ".join(prepared.invocation.argv)
    # Written without them before the build; run() adds them for the build only.
    secret = Path(prepared.invocation.env["CACHE_SECRET_FILE"])
    # CACHE_TYPE's default, ccache: its HTTP remote storage on the WebDAV store.
    assert secret.read_text().startswith(f"CCACHE_REMOTE_STORAGE=http://127.0.0.1:{port}/")
    assert CANARY not in secret.read_text()


@pytest.mark.engine
def test_preflight_of_an_unreachable_store(engine: str) -> None:
    port = _closed_port()
    # CACHE_TYPE's default, ccache: its HTTP remote storage on the store, credentials masked.
    result = run_cli(["inv", "build", "--target", "vllm", *_webdav_sets(port)],
                     env={"DOCKER_HOST": engine})
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: ccache remote storage http://****@127.0.0.1:{port}/")
    assert "is unusable" in result.stderr
    _clean(result)
    result = run_cli(["inv", "build", "--target", "vllm", *_webdav_sets(port),
                      "--set", "CACHE_TYPE=sccache"], env={"DOCKER_HOST": engine})
    assert result.returncode == 2
    assert f"sccache backend WebDAV http://127.0.0.1:{port} is unusable" in result.stderr
    _clean(result)


@pytest.mark.engine
def test_build_log_and_health_lines(engine: str, tmp_path: Path) -> None:
    """A step that prints a URL with a password: rocm-bake passes buildx's log through masked,
    then its cache-health line."""
    port = _closed_port()
    (tmp_path / "Dockerfile").write_text(
        "FROM rocm-bake/busybox:test\nARG URL\nARG NONCE\n"
        'RUN --network=none echo "$NONCE fetching $URL"\n')
    bake = tmp_path / "docker-bake.hcl"
    bake.write_text(f'variable "URL" {{\n  default = ""\n}}\n'
                    f'target "canary" {{\n  context = "{tmp_path}"\n'
                    f'  args = {{ URL = URL, NONCE = "{uuid.uuid4().hex}" }}\n}}\n')
    result = run_cli(["inv", "build", "--file", str(bake), "--target", "canary",
                      "--set", f"URL={_url(port)}"], env={"DOCKER_HOST": engine})
    assert result.returncode == 0, result.stderr[-2000:]
    assert "0/1 RUN steps CACHED" in result.stderr.splitlines()[-1]     # the health line
    assert f"fetching http://****@127.0.0.1:{port}/" in result.stderr
    _clean(result)


def test_list_vars_from_the_environment() -> None:
    result = run_cli(["inv", "list-vars"], env={"CACHE_STORE_URL": _url(_closed_port())})
    assert result.returncode == 0, result.stderr
    assert "CACHE_STORE_URL" in result.stdout
    _clean(result)


def _fleet(tmp_path: Path) -> Path:
    port = _closed_port()
    path = tmp_path / "fleet.toml"
    path.write_text(f'[registry]\nurl = "{_url(port)}"\n[webdav]\nurl = "{_url(port)}"\n'
                    f'[[nodes]]\nname = "n1"\nendpoint = "tcp://user:{CANARY}@127.0.0.1:{port}"\n')
    return path


@pytest.mark.parametrize("task", ["doctor", "services", "fleet.status"])
def test_fleet_outputs(task: str, tmp_path: Path) -> None:
    result = run_cli(["inv", task, "--fleet", str(_fleet(tmp_path))])
    assert result.returncode == 2                    # nothing answers on a closed port
    if task != "services":                           # services names no URL at all
        assert "****@127.0.0.1" in result.stdout + result.stderr
    _clean(result)


def test_run_json_and_perf_history(tmp_path: Path) -> None:
    url = _url(_closed_port())
    cell = CellRecord("hello-gfx950", [], 1.0, f"{url[:-1]}/rocm-bake/hello:1", status="built",
                      attempts=[Attempt("n1", 1.0, 2.0, 0, error=f"push to {url} failed")])
    run = RunRecord("r1", 1.0, str(tmp_path), {"n1": {"endpoint": url}},
                    {"hello-gfx950": cell}, finished=2.0, exit_status=0)
    run.write(tmp_path / "run.json")
    text = (tmp_path / "run.json").read_text()
    assert "****@127.0.0.1" in text and CANARY not in text
    history.append(tmp_path / "fleet-history.jsonl", [{"target": url, "seconds": 1.0}])
    history.append(tmp_path / "history.jsonl", [{"target": "t", "steps": [{"name": url}]}])
    for name in ("fleet-history.jsonl", "history.jsonl"):
        text = (tmp_path / name).read_text()
        assert "****@127.0.0.1" in text and CANARY not in text, name


def test_redaction_rules() -> None:
    assert redact.text(f"see https://tok{CANARY}@git.example/r.git and ssh://git@h/x") == \
        "see https://****@git.example/r.git and ssh://****@h/x"
    assert redact.text(f"http://u:p@ss{CANARY}@h:1/a@b?token={CANARY}&x=1") == \
        "http://****@h:1/a@b?token=****&x=1"
    assert redact.text("plain words, user@example.com, http://h/p?q=1") == \
        "plain words, user@example.com, http://h/p?q=1"
    assert redact.split_credentials(f"http://us%40er:{CANARY}%2F@h:8080/dav/") == \
        ("http://h:8080/dav/", "us@er", f"{CANARY}/")
    assert redact.data({"a": [f"http://u:{CANARY}@h/"], "n": 1}) == {"a": ["http://****@h/"],
                                                                        "n": 1}


SECRET_BAKE = """variable "CACHE_TYPE" {{
  default = "sccache"
}}
variable "CACHE_STORE" {{
  default = "none"
}}
variable "CACHE_STORE_URL" {{
  default = ""
}}
variable "CACHE_ENV" {{
  default = "dev"
}}
variable "CACHE_SECRET_FILE" {{
  default = ""
}}
target "secret" {{
  context = "{context}"
  secret  = CACHE_SECRET_FILE == "" ? [] : ["id=sccache,src=${{CACHE_SECRET_FILE}}"]
  tags    = ["rocm-bake-test/canary-secret:{tag}"]
}}
"""
# The step records which settings the secret holds (names only) and whether the WebDAV
# password in it is the one expected (compared by hash: the image never holds it).
SECRET_DOCKERFILE = """FROM rocm-bake/busybox:test
ARG WANT
RUN --network=none --mount=type=secret,id=sccache \\
    cut -d= -f1 /run/secrets/sccache | sort > /secret-keys.txt && \\
    grep '^SCCACHE_WEBDAV_PASSWORD=' /run/secrets/sccache | cut -d= -f2- | tr -d '\\n' \\
      | sha256sum | cut -c1-64 > /password.sha256
"""


@pytest.mark.engine
def test_url_credentials_reach_sccache_and_the_build_only_as_the_secret(
        engine: str, tmp_path: Path) -> None:
    """A WebDAV store that wants basic auth (scripts/webdav.sh, ROCM_BAKE_WEBDAV_AUTH): with
    user:password@ in CACHE_STORE_URL the preflight's sccache authenticates and the build's
    secret carries them; without them the store refuses. No output shows the password."""
    if shutil.which("nginx") is None:
        missing("nginx, the WebDAV store", "bash scripts/webdav.sh install")
    run_dir = tmp_path / "dav"
    port, dav_env = loopback.start_webdav(run_dir, {"ROCM_BAKE_WEBDAV_AUTH": f"user:{CANARY}"})
    tag = uuid.uuid4().hex[:10]
    try:
        (tmp_path / "Dockerfile").write_text(SECRET_DOCKERFILE)
        bake = tmp_path / "docker-bake.hcl"
        bake.write_text(SECRET_BAKE.format(context=tmp_path, tag=tag))
        args = ["inv", "build", "--file", str(bake), "--target", "secret",
                "--set", "CACHE_STORE=webdav"]
        refused = run_cli([*args, "--set", f"CACHE_STORE_URL=http://127.0.0.1:{port}/"],
                          env={"DOCKER_HOST": engine})
        assert refused.returncode == 2
        assert f"sccache backend WebDAV http://127.0.0.1:{port} is unusable" in refused.stderr
        result = run_cli([*args, "--set", f"CACHE_STORE_URL={_url(port)}",
                          "--set", f"secret.args.WANT={tag}"], env={"DOCKER_HOST": engine})
        assert result.returncode == 0, result.stderr[-2000:]
        _clean(result)
        log = (run_dir / "access.log").read_text()
        assert "PUT /dev/" in log and ".sccache_check 201 user" in log   # authenticated
        image = f"rocm-bake-test/canary-secret:{tag}"
        keys, digest = (_read_from_image(engine, image, p)
                        for p in ("/secret-keys.txt", "/password.sha256"))
        assert keys.split() == sorted(["SCCACHE_WEBDAV_ENDPOINT", "SCCACHE_WEBDAV_KEY_PREFIX",
                                       "SCCACHE_WEBDAV_PASSWORD", "SCCACHE_WEBDAV_RW_MODE",
                                       "SCCACHE_WEBDAV_USERNAME"])
        assert digest.strip() == hashlib.sha256(CANARY.encode()).hexdigest()
        saved = subprocess.run(["docker", "image", "save", image], capture_output=True,
                               env={**os.environ, "DOCKER_HOST": engine}, timeout=120,
                               check=True)
        assert CANARY.encode() not in saved.stdout           # not in any layer or config
    finally:
        subprocess.run(["bash", str(ROOT / "scripts" / "webdav.sh"), "stop", str(run_dir)],
                       env=dav_env, capture_output=True, timeout=60, check=False)
        subprocess.run(["docker", "rmi", f"rocm-bake-test/canary-secret:{tag}"],
                       env={**os.environ, "DOCKER_HOST": engine}, capture_output=True,
                       timeout=60, check=False)


def _read_from_image(engine: str, image: str, path: str) -> str:
    env = {**os.environ, "DOCKER_HOST": engine}
    container = subprocess.run(["docker", "create", image, "/none"], capture_output=True,
                               text=True, env=env, timeout=60, check=True).stdout.strip()
    try:
        copied = subprocess.run(["docker", "cp", f"{container}:{path}", "-"],
                                capture_output=True, env=env, timeout=60, check=True)
    finally:
        subprocess.run(["docker", "rm", container], capture_output=True, env=env, timeout=60,
                       check=False)
    with tarfile.open(fileobj=io.BytesIO(copied.stdout)) as archive:
        member = archive.extractfile(Path(path).name)
        assert member is not None
        return member.read().decode()


S3_BAKE = """variable "CACHE_TYPE" {{
  default = "sccache"
}}
variable "CACHE_STORE" {{
  default = "none"
}}
variable "CACHE_ENV" {{
  default = "dev"
}}
variable "SCCACHE_S3_BUCKET" {{
  default = ""
}}
variable "SCCACHE_S3_ENDPOINT" {{
  default = ""
}}
variable "SCCACHE_S3_REGION" {{
  default = ""
}}
variable "CACHE_SECRET_FILE" {{
  default = ""
}}
target "secret" {{
  context = "{context}"
  secret  = CACHE_SECRET_FILE == "" ? [] : ["id=sccache,src=${{CACHE_SECRET_FILE}}"]
  tags    = ["rocm-bake-test/canary-s3:{tag}"]
}}
"""
# The step records which settings the secret holds (names only) and whether the S3 secret key
# in it is the one expected (by hash: the image never holds it).
S3_DOCKERFILE = """FROM rocm-bake/busybox:test
ARG WANT
RUN --network=none --mount=type=secret,id=sccache \\
    cut -d= -f1 /run/secrets/sccache | sort > /secret-keys.txt && \\
    grep '^AWS_SECRET_ACCESS_KEY=' /run/secrets/sccache | cut -d= -f2- | tr -d '\\n' \\
      | sha256sum | cut -c1-64 > /password.sha256
"""


@pytest.mark.engine
def test_s3_credentials_reach_sccache_and_the_build_only_as_the_secret(
        engine: str, s3: Any, tmp_path: Path) -> None:
    """CACHE_STORE=s3 on the loopback S3 store (moto, authentication on), the key pair only in
    the environment: the preflight's sccache authenticates, the build's secret carries the
    pair, and neither an output, the image nor the secret file left after the build holds the
    secret key. A wrong secret key is one line before the build, and is not printed either."""
    tag = uuid.uuid4().hex[:10]
    (tmp_path / "Dockerfile").write_text(S3_DOCKERFILE)
    bake = tmp_path / "docker-bake.hcl"
    bake.write_text(S3_BAKE.format(context=tmp_path, tag=tag))
    runtime = tmp_path / "run"
    runtime.mkdir()
    args = ["inv", "build", "--file", str(bake), "--target", "secret",
            "--set", "CACHE_STORE=s3", "--set", f"CACHE_ENV={s3.environment}",
            "--set", f"SCCACHE_S3_BUCKET={s3.bucket_base}", "--set", "SCCACHE_S3_REGION=us-east-1",
            "--set", f"SCCACHE_S3_ENDPOINT={s3.endpoint}", "--set", f"secret.args.WANT={tag}"]
    env = {"DOCKER_HOST": engine, "XDG_RUNTIME_DIR": str(runtime)}
    refused = run_cli(args, env={**env, **s3.credentials(), "AWS_SECRET_ACCESS_KEY": CANARY})
    assert refused.returncode == 2
    lines = refused.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: sccache backend S3 bucket {s3.bucket} at {s3.endpoint} is unusable"), lines
    _clean(refused)
    result = run_cli(args, env={**env, **s3.credentials()})
    assert result.returncode == 0, result.stderr[-2000:]
    assert s3.secret_key not in result.stdout + result.stderr
    assert any(key.endswith("/.sccache_check") for key in s3.keys("linux/"))   # authenticated
    image = f"rocm-bake-test/canary-s3:{tag}"
    try:
        keys, digest = (_read_from_image(engine, image, p)
                        for p in ("/secret-keys.txt", "/password.sha256"))
        assert keys.split() == sorted(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                       "SCCACHE_BUCKET", "SCCACHE_ENDPOINT", "SCCACHE_REGION",
                                       "SCCACHE_S3_KEY_PREFIX", "SCCACHE_S3_RW_MODE",
                                       "SCCACHE_S3_USE_SSL"])
        assert digest.strip() == hashlib.sha256(s3.secret_key.encode()).hexdigest()
        saved = subprocess.run(["docker", "image", "save", image], capture_output=True,
                               env={**os.environ, "DOCKER_HOST": engine}, timeout=120,
                               check=True)
        assert s3.secret_key.encode() not in saved.stdout    # not in any layer or config
    finally:
        subprocess.run(["docker", "rmi", image], env={**os.environ, "DOCKER_HOST": engine},
                       capture_output=True, timeout=60, check=False)
    # The secret inv build wrote is still there (the plan names it), without the credentials.
    written = [p for p in runtime.rglob("*") if p.is_file()]
    assert written and all(s3.secret_key not in p.read_text() and CANARY not in p.read_text()
                           for p in written), written
