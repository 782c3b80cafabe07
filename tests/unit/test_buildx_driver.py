"""The docker/buildx module without an engine: argv construction, node connection settings,
version parsing, docker's error lines, secret masking, the watchdog, the image commands'
errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from packaging.version import Version

from rocm_bake.docker import bakecommand, buildx, images, process
from rocm_bake.docker.connection import Connection, error_line
from rocm_bake.fleetbuild.config import Node


def test_bake_argv_is_explicit() -> None:
    argv = bakecommand.bake_argv(["rocm-bake.hcl"], ["vllm"], ["vllm-gfx950.args.X=1"], push=True,
                            allow=["network.host"], metadata_file="m.json")
    assert argv == ["docker", "buildx", "bake", "--file", "rocm-bake.hcl", "--metadata-file",
                    "m.json", "--allow", "network.host", "--set", "vllm-gfx950.args.X=1",
                    "--push", "vllm"]


@pytest.mark.parametrize(("output", "version"), [
    ("github.com/docker/buildx 0.29.1+ds1 0.29.1+ds1-4", "0.29.1"),
    ("github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dddce2e08c7a0", "0.13.1"),
])
def test_parse_version(output: str, version: str) -> None:
    assert buildx.parse_version(output) == Version(version)


def test_unreadable_version_is_a_clear_error() -> None:
    with pytest.raises(buildx.PreflightError, match="cannot read the buildx version"):
        buildx.parse_version("no version here")


def test_display_masks_secrets() -> None:
    invocation = bakecommand.BakeInvocation(["docker", "buildx", "bake"],
                                       {"GITHUB_TOKEN": "ghp_secret", "AWS_ACCESS_KEY_ID": "AKIA",
                                        "MAX_JOBS": "8"})
    shown = invocation.display()
    assert "ghp_secret" not in shown and "AKIA" not in shown
    assert "GITHUB_TOKEN='****'" in shown and "MAX_JOBS=8" in shown


def test_connection_of_an_address_with_tls() -> None:
    node = Node("bk", "tcp://bk:2376", tls={"tls_ca": "/c/my-ca.pem", "tls_cert": "/c/me.pem",
                                            "tls_key": "/k/me.key"})
    connection = Connection.of(node)
    assert connection.argv() == ["docker", "--tlsverify", "--tlscacert", "/c/my-ca.pem",
                                 "--tlscert", "/c/me.pem", "--tlskey", "/k/me.key"]
    env = connection.env({"DOCKER_CONTEXT": "other", "PATH": "/bin"})
    assert env == {"DOCKER_HOST": "tcp://bk:2376", "PATH": "/bin"}
    assert connection.context_spec() == ("host=tcp://bk:2376,ca=/c/my-ca.pem,cert=/c/me.pem,"
                                         "key=/k/me.key")
    argv = bakecommand.bake_argv(["f.hcl"], ["t"], docker=connection.argv())
    assert argv[:10] == [*connection.argv(), "buildx", "bake"]


def test_connection_of_a_context_and_of_the_environment() -> None:
    by_context = Connection.of(Node("n", "ctx"))
    assert by_context.argv() == ["docker", "--context", "ctx"] and by_context.address is None
    assert "DOCKER_HOST" not in by_context.env({"DOCKER_HOST": "unix:///x.sock"})
    here = Connection()
    assert here.argv() == ["docker"]
    assert here.env({"DOCKER_HOST": "unix:///x.sock"}) == {"DOCKER_HOST": "unix:///x.sock"}


@pytest.mark.parametrize(("text", "line"), [
    ("docker: unknown command: docker nosuchcmd\n\nRun 'docker --help' for more information\n",
     "unknown command: docker nosuchcmd"),
    ("ERROR: no builder \"nosuch\" found\n", 'no builder "nosuch" found'),
    ("Failed to initialize: unable to resolve docker endpoint: context \"x\": not found\n",
     'unable to resolve docker endpoint: context "x": not found'),
    ("", "no answer"),
])
def test_error_line_drops_the_cli_chatter(text: str, line: str) -> None:
    assert error_line(text) == line


def test_preflight_error_says_what_and_the_fix_once() -> None:
    error = buildx.PreflightError("docker buildx is not installed", buildx.INSTALL_HINT)
    assert (error.detail, error.fix) == ("docker buildx is not installed", buildx.INSTALL_HINT)
    assert str(error) == f"docker buildx is not installed: {buildx.INSTALL_HINT}"


def test_missing_docker_client_is_a_preflight_error(tmp_path: Path) -> None:
    with pytest.raises(buildx.PreflightError) as info:
        buildx.check_buildx(str(tmp_path / "no-docker"))
    assert info.value.fix == buildx.DOCKER_HINT


def test_watchdog_kills_the_build() -> None:
    # The build never ends on its own (it waits for a child that sleeps for ever): the
    # watchdog's limit is the one that fires, whatever the machine's load.
    with pytest.raises(process.WatchdogError, match="exceeded its 1 s watchdog"):
        process.run_with_watchdog(["sh", "-c", "sleep infinity & wait"],
                                 {"PATH": "/usr/bin:/bin"}, timeout=1)
    assert process.run_with_watchdog(["true"], {"PATH": "/usr/bin:/bin"}, timeout=600) == 0


def test_an_image_command_without_a_docker_client_names_itself(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-docker")
    with pytest.raises(images.ImageError, match=r"^docker image inspect app:1: "):
        images.image_id("app:1", docker=missing)
    with pytest.raises(images.ImageError, match=r"^docker image save app:1: "):
        images.image_save("app:1", tmp_path / "app.tar", docker=missing)


def test_an_image_the_engine_cannot_give_is_absent_or_a_one_line_error(tmp_path: Path) -> None:
    nowhere = {"PATH": os.environ["PATH"],
               "DOCKER_HOST": f"unix://{tmp_path / 'no-engine.sock'}"}
    assert images.image_id("app:1", nowhere) is None
    with pytest.raises(images.ImageError, match=r"^docker image save app:1: .+") as info:
        images.image_save("app:1", tmp_path / "app.tar", nowhere)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "app.tar").exists()
