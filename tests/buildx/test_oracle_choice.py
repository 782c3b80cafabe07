"""Which buildx the oracle is: the installed one, or the docker-buildx of the cli-plugins
directory ROCM_BAKE_BUILDX_PLUGINS names (the nightly runs tests/buildx against the newest
buildx Debian has that way, beside the pinned one: scripts/engine.sh newest-buildx)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import PLUGINS_VARIABLE, Buildx, missing

OLD_BUILDX_DIR = Path(os.environ.get("ROCM_BAKE_OLD_BUILDX_DIR",
                                     "/var/cache/rocm-bake/old-buildx"))


def _installed() -> str:
    return subprocess.run(["docker", "buildx", "version"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _chosen() -> str:
    """The buildx the suite means: ROCM_BAKE_BUILDX_PLUGINS's, else the installed one."""
    plugins = os.environ.get(PLUGINS_VARIABLE)
    if not plugins:
        return _installed()
    return subprocess.run([str(Path(plugins) / "docker-buildx"), "version"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_the_oracle_is_the_buildx_the_suite_names(buildx: Buildx) -> None:
    assert buildx.version() == _chosen()


def test_a_plugins_directory_makes_its_buildx_the_oracle(tmp_path: Path) -> None:
    # A real other buildx: Debian trixie's 0.13 that scripts/engine.sh install puts aside.
    plugins = OLD_BUILDX_DIR / "cli-plugins"
    if not (plugins / "docker-buildx").is_file():
        missing(f"the old buildx at {plugins}", "bash scripts/engine.sh old-buildx")
    version = Buildx(tmp_path, plugins).version()
    assert " v0.13." in version or " 0.13." in version, version
    assert version != _installed()
