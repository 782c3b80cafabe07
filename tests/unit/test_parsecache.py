"""The parse cache returns the same tree as a fresh parse, survives damaged entries, and loads
without python-hcl2 or lark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hcl2.api
import pytest

from rocm_bake.model import bakefile
from rocm_bake.model.hcl import evaluate, parsecache, tree
from rocm_bake.model.hcl.syntax import parse
from rocm_bake.model.hcl.tree import dump

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
    assert dump(cached) == dump(fresh)


def test_a_warm_load_imports_no_parser(tmp_path: Path) -> None:
    """Loading the bake file from a warm cache needs neither python-hcl2 nor lark."""
    script = ("import json, sys\n"
              "from rocm_bake.model import bakefile\n"
              f"bakefile.load([{str(ROOT / 'rocm-bake.hcl')!r}])\n"
              "print(json.dumps(sorted(m for m in ('hcl2', 'lark') if m in sys.modules)))\n")
    env = {**os.environ, "ROCM_BAKE_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, check=True,
                           capture_output=True, text=True).stdout for _ in range(2)]
    assert [json.loads(run) for run in runs] == [["hcl2", "lark"], []]


def test_a_heredoc_is_parsed_with_its_file(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A heredoc's template comes parsed (and dedented) from the cache like the rest."""
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", str(tmp_path))
    bake = tmp_path / "docker-bake.hcl"
    bake.write_text('A = <<-EOT\n    x ${1 + 1}\n      y\n    EOT\n')
    for _ in range(2):
        definition = bakefile.load([bake], {})
        assert definition.value("A") == "x 2\n  y\n"


def test_an_entry_serves_only_its_own_text(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries are named by a checksum: one found under another text's name (a collision) is
    not served for it."""
    monkeypatch.setenv("ROCM_BAKE_CACHE_DIR", str(tmp_path))
    first, second = 'A = "x"\n', 'A = "y"\n'
    parse(first, "a.hcl")
    (entry,) = tmp_path.glob("*.pickle")
    assert parsecache.load(second) is None
    entry.rename(parsecache._path(tmp_path, second))
    assert parsecache.load(second) is None
    assert bakefile.load([_written(tmp_path, second)], {}).value("A") == "y"


def _written(directory: Path, text: str) -> Path:
    path = directory / "docker-bake.hcl"
    path.write_text(text)
    return path


def test_every_kind_the_evaluator_reads_has_its_class() -> None:
    """The evaluator dispatches on kinds whose parts the tree keeps (a kind missing from
    tree.PARTS would load as an OtherRule, with no parts)."""
    assert set(evaluate._DISPATCH) <= set(tree.KINDS)
    assert all(getattr(tree, kind) is cls for kind, cls in tree.KINDS.items())
