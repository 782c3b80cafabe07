"""Which engine scripts/engine.sh runs (ROCM_BAKE_ENGINE_RELEASE: current, the default, or
floor), as the preflight sees it: `engine.sh which` says why the selected engine is not there,
and the fix command carries the release (no engine started here)."""

from __future__ import annotations

import os
from pathlib import Path

from rocm_bake.docker import engine
from tests.conftest import ROOT


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROCM_BAKE_ENGINE")}
    return {**env, **extra}


def test_the_current_engine_missing_from_its_root_is_named_with_the_fix(tmp_path: Path) -> None:
    lock = (ROOT / "scripts" / "engine.lock").read_text()
    version = lock.split("/docker.io_", 1)[1].split("%2b", 1)[0]
    why = engine.engine_missing(_env(ROCM_BAKE_ENGINE_ROOT=str(tmp_path)))
    assert why == (f"Docker {version} (the current engine) is not installed in "
                   f"{tmp_path}/docker-{version}; run 'engine.sh install' (or "
                   "ROCM_BAKE_ENGINE_RELEASE=floor)")


def test_an_unknown_release_is_named() -> None:
    assert engine.engine_missing(_env(ROCM_BAKE_ENGINE_RELEASE="newest")) == (
        "ROCM_BAKE_ENGINE_RELEASE must be 'current' or 'floor', got 'newest'")


def test_an_unreadable_lock_is_named(tmp_path: Path) -> None:
    why = engine.engine_missing(_env(ROCM_BAKE_ENGINE_LOCK=str(tmp_path / "none.lock")))
    assert why == (f"no lock file {tmp_path}/none.lock (the current engine's .debs: "
                   "'engine.sh lock' writes it)"), why


def test_the_start_command_carries_the_release_and_port() -> None:
    env = _env(ROCM_BAKE_ENGINE_RELEASE="floor", ROCM_BAKE_REGISTRY_PORT="5001")
    command = engine.command("start", env, sudo=True)
    assert command.startswith("sudo ROCM_BAKE_ENGINE_RELEASE=floor ROCM_BAKE_REGISTRY_PORT=5001 "
                              "bash "), command
    assert engine.command("install", env, sudo=False).startswith("bash ")
