"""Listing the tasks is cheap: ``import tasks`` loads invoke and the task wrappers, and none of
the library a task needs only when it runs (each task imports that inside its body), while
``inv --list`` still shows every task of the collection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rocm_bake.perf import conditions, history
from tests.conftest import ROOT

# What importing the task collection may load of the project: the output guard, the errors
# the wrappers report, the fleet file's default name and the settings dataclasses whose fields
# are a task's flags (rocm_bake.core.flags; each imports nothing more). Anything else belongs
# in a task body.
ALLOWED = {"rocm_bake", "rocm_bake.core", "rocm_bake.core.redact", "rocm_bake.core.errors",
           "rocm_bake.core.flags", "rocm_bake.fleetbuild", "rocm_bake.fleetbuild.config",
           "rocm_bake_checks", "rocm_bake_checks.drift", "rocm_bake_checks.drift.settings"}
# Third-party modules that only some task needs (the parser, git, HTTP, tables).
HEAVY = {"hcl2", "lark", "git", "requests", "urllib3", "packaging", "tabulate"}


def _after_import_tasks(expression: str) -> Any:
    """``expression`` evaluated in a fresh interpreter that has imported ``tasks`` (which
    wraps the interpreter's stdout, so not this one's)."""
    code = f"import json, sys; import tasks; print(json.dumps({expression}))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout)


def test_importing_the_tasks_loads_no_library_a_task_needs_only_when_run() -> None:
    loaded = set(_after_import_tasks("sorted(sys.modules)"))
    ours = {m for m in loaded if m.split(".")[0] in ("rocm_bake", "rocm_bake_checks",
                                                     "rocm_bake_docs")}
    assert ours <= ALLOWED, f"imported when listing tasks: {sorted(ours - ALLOWED)}"
    heavy = {m for m in loaded if m.split(".")[0] in HEAVY}
    assert not heavy, f"imported when listing tasks: {sorted(heavy)}"


def test_inv_list_shows_every_task_of_the_collection() -> None:
    inv = str(Path(sys.executable).parent / "inv")
    proc = subprocess.run([inv, "--list"], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    # "  name   help", help lines wrapped onto deeper-indented lines
    listed = {line.split()[0] for line in proc.stdout.splitlines()
              if line.startswith("  ") and line[2:3].strip()}
    assert listed == set(_after_import_tasks("list(tasks.ns.task_names)"))


def test_perf_task_defaults_are_the_library_defaults() -> None:
    stack_dir, history_path = _after_import_tasks("[tasks.perf.STACK_DIR, tasks.perf.HISTORY]")
    assert Path(stack_dir) == conditions.STACK_DIR
    assert Path(history_path) == history.PATH


def test_what_the_tasks_load_is_kept_out_of_the_garbage_collectors_walks() -> None:
    assert _after_import_tasks("__import__('gc').get_freeze_count()") > 1000
