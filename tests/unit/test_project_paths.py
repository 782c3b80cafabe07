"""The library finds the project's own files from where its modules are (a module moved into a
package is one directory deeper): the engine script and the bake file whose CACHE_TYPE default
is the one default compiler cache."""

from __future__ import annotations

from rocm_bake.compilercache import settings
from rocm_bake.docker import engine
from tests.conftest import ROOT


def test_the_engine_script_is_the_checkouts() -> None:
    assert engine.script() == ROOT / "scripts" / "engine.sh"


def test_the_default_cache_type_comes_from_the_checkouts_bake_file() -> None:
    assert settings.PROJECT_BAKE_FILE == ROOT / "rocm-bake.hcl"
