"""The unpullable base image in buildx's output (lines as buildx 0.29.1 prints them)."""

from __future__ import annotations

from rocm_bake.docker import pullhint

REF = ("docker.io/rocm/dev-ubuntu-22.04:7.2.3-complete@sha256:"
       "b64aecbed6cc2d8227407899831d5c53fa8450d4db08f6a2400c29587ce15be9")
OFFLINE = (f"ERROR: target base-gfx950: failed to solve: {REF[10:]}: failed to resolve source "
           f"metadata for {REF}: failed to do request: Head \"https://registry-1.docker.io/v2/"
           "rocm/dev-ubuntu-22.04/manifests/sha256:b64a\": dial tcp: lookup registry-1.docker.io "
           "on 10.255.255.53:53: no such host\n")
REFUSED = ("ERROR: failed to solve: 127.0.0.1:9/x/y:1: failed to resolve source metadata for "
           "127.0.0.1:9/x/y:1: failed to do request: Head \"https://127.0.0.1:9/v2/x/y/manifests/1\""
           ": dial tcp 127.0.0.1:9: connect: connection refused\n")


def test_offline_docker_hub() -> None:
    assert pullhint.unpullable(["#3 DONE 0.1s\n", OFFLINE]) == (
        REF, "the registry's host name does not resolve: offline?")


def test_refused_registry() -> None:
    assert pullhint.unpullable([REFUSED]) == ("127.0.0.1:9/x/y:1",
                                             "the registry refused the connection")


def test_other_failures_are_not_a_pull_problem() -> None:
    assert pullhint.unpullable(['ERROR: failed to solve: process "/bin/sh -c false" did not '
                                "complete successfully: exit code: 1\n"]) is None


def test_hint_is_one_line_naming_image_and_both_ways() -> None:
    line = pullhint.hint(REF, "offline", {"DOCKER_HOST": "unix:///tmp/e/docker.sock"})
    assert "\n" not in line
    assert line.startswith(f"base image {REF} cannot be pulled (offline)")
    assert "docker load" in line and "unix:///tmp/e/docker.sock" in line
    assert "ROCM_BAKE_REGISTRY_MIRROR=" in line
