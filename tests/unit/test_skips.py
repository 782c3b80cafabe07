"""A skip tests/skips.toml does not list fails the run; a listed one passes, is printed with its
reason and why, and reaches scripts/test.sh's closing summary. pytest runs in a subprocess on a
tiny test file, with copies of the real tests/conftest.py and tests/outcomes.py beside it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import outcomes
from tests.conftest import ROOT

TINY = '''
import pytest

def test_passes():
    pass

def test_listed_skip():
    pytest.skip("needs a GPU (gfx950)")

def test_unlisted_skip():
    pytest.skip("the engine is not running")
'''
SKIPS = '''
[[skip]]
pattern = "^needs a GPU"
why = "no build machine has a GPU"
'''


def test_an_unlisted_skip_fails_and_a_listed_one_is_printed_with_its_reason(
        tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    for name in ("__init__.py", "conftest.py", "outcomes.py"):
        shutil.copy(ROOT / "tests" / name, tests / name)
    (tests / "skips.toml").write_text(SKIPS)
    (tests / "test_tiny.py").write_text(TINY)
    record = tmp_path / "record.jsonl"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                           "tests/test_tiny.py"], cwd=tmp_path,
                          env={**os.environ, outcomes.RECORD: str(record), "COLUMNS": "200"},
                          capture_output=True, text=True, timeout=120, check=False)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert ("FAILED tests/test_tiny.py::test_unlisted_skip - the engine is not running "
            "(a skip tests/skips.toml does not list)") in out
    assert ("tests/test_tiny.py::test_listed_skip: needs a GPU (gfx950) -- no build machine "
            "has a GPU") in out
    assert out.splitlines()[-1].startswith("=") and "1 failed, 1 passed, 1 skipped" in out
    (run,) = [json.loads(line) for line in record.read_text().splitlines()]
    assert run == {"passed": 1, "failed": 1, "skipped": 1, "skips": [
        {"test": "tests/test_tiny.py::test_listed_skip", "reason": "needs a GPU (gfx950)",
         "why": "no build machine has a GPU"}]}

    line = outcomes.stage_line(record, "tiny", False, 3)
    assert line == "-- tiny: FAILED (1 passed, 1 failed, 1 skipped; 3 s)"
    lines, ok = outcomes.summary([record])
    assert not ok
    assert lines == ["FAILED stages (1):", "  tiny",
                     "skips (1, each allowed by tests/skips.toml):",
                     "  tests/test_tiny.py::test_listed_skip: needs a GPU (gfx950) -- no build "
                     "machine has a GPU",
                     "1 passed, 1 failed, 1 skipped"]


def test_a_stage_that_fails_with_no_failed_test_counts_as_a_failure(tmp_path: Path) -> None:
    lint = tmp_path / "lint.jsonl"
    assert outcomes.stage_line(lint, "lint", False, 2) == "-- lint: FAILED (no pytest run; 2 s)"
    assert outcomes.summary([lint])[0][-2:] == ["skips (0, each allowed by tests/skips.toml): "
                                                "none", "0 passed, 1 failed, 0 skipped"]


@pytest.mark.parametrize("text", ['[[skip]]\nreason = "x"\n',
                                  '[[skip]]\npattern = "("\nwhy = "y"\n', "skip = ["])
def test_a_bad_skips_file_is_named(tmp_path: Path, text: str) -> None:
    path = tmp_path / "skips.toml"
    path.write_text(text)
    with pytest.raises(outcomes.SkipsError, match=str(path)):
        outcomes.load(path)


def test_the_suite_accepts_no_skip() -> None:
    assert outcomes.load() == []
