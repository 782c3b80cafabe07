"""The parse cache returns the same tree as a fresh parse, and survives damaged entries."""

from __future__ import annotations

from pathlib import Path

import hcl2.api
import pytest

from rocm_bake import bakefile
from rocm_bake.hcl import parsecache
from rocm_bake.hcl.syntax import parse

ROOT = Path(__file__).resolve().parent.parent.parent


def test_cached_tree_evaluates_like_a_fresh_parse(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"GPU_ARCHS": "gfx950,gfx1201"}
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", "off")
    fresh = bakefile.load([ROOT / "rocm-bake.hcl"], env).plan(["all"]).to_json()
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", str(tmp_path))
    first = bakefile.load([ROOT / "rocm-bake.hcl"], env).plan(["all"]).to_json()
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    cached = bakefile.load([ROOT / "rocm-bake.hcl"], env).plan(["all"]).to_json()
    assert fresh == first == cached


def test_damaged_entry_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", str(tmp_path))
    text = 'variable "A" {\n  default = "x"\n}\n'
    tree = parsecache.load(text)
    assert tree is None
    parse(text, "a.hcl")
    (entry,) = tmp_path.glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    assert parsecache.load(text) is None
    assert parse(text, "a.hcl").body is not None


def test_unwritable_cache_dir_still_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", "/proc/rocm-bake-cannot-write-here")
    definition = bakefile.load([ROOT / "rocm-bake.hcl"], {})
    assert definition.value("GPU_ARCHS") == ["gfx950"]


def test_cache_hit_does_not_run_the_parser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", str(tmp_path))
    text = (ROOT / "rocm-bake.hcl").read_text()
    fresh = parse(text, "rocm-bake.hcl")

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("the parser ran on a cache hit")

    monkeypatch.setattr(hcl2.api, "parses", no_parsing)
    cached = parse(text, "rocm-bake.hcl")
    assert cached is not fresh
    assert cached.serialize() == fresh.serialize()


def test_token_classes_are_pickled_once_each(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The classes python-hcl2 makes at run time are stored by grammar name, once per class,
    so loading a tree calls no Python code per token."""
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", str(tmp_path))
    text = (ROOT / "rocm-bake.hcl").read_text()
    parse(text, "rocm-bake.hcl")
    calls: list[object] = []
    real = parsecache._token_class

    def counted(key: tuple[str, ...]) -> object:
        calls.append(key)
        return real(key)

    monkeypatch.setattr(parsecache, "_token_class", counted)
    assert parsecache.load(text) is not None
    assert 0 < len(calls) == len(set(calls)) < 100
