"""Everything a change of the bake file's components makes stale, regenerated in order
(``./inv regen``):

1. ``tests/buildx/recorded/print.json`` -- buildx's ``--print`` of every group and arch set
   (``python -m tests.buildx.recorded_print``; docker buildx, no engine);
2. ``src/rocm_bake_checks/drift/snapshots/upstream.json`` -- the drift check recorded against
   the local upstream world (``python -m tests.drift.make_snapshot``; git daemon + HTTP on
   127.0.0.1, the world's commit pins derived from the bake file);
3. ``docs/reference/variables.md`` -- ``inv version-check --offline <that snapshot> --docs``;
4. the generated pages of ``docs/`` and the generated regions of README.md and docs/index.md
   (``inv docs`` without building the site);
5. the Python locks that need no package index (``inv lock`` offline: a lock whose inputs did
   not change is kept, a new component's lock is taken from a lock made from the very same
   inputs); one that must be resolved is an error naming ``inv lock``.

Steps 1 and 2 are recorders that live in ``tests/`` (they drive the test fixtures): they need
the checkout's ``tests/`` and the ``dev`` dependency group (pytest).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile
from rocm_bake_checks.drift import run as drift
from rocm_bake_checks.drift.model import Report, Status
from rocm_bake_checks.drift.settings import DriftSettings
from rocm_bake_checks.lint.locks import rules as locks
from rocm_bake_docs import pages
from rocm_bake_docs.source import Source

SNAPSHOT = Path("src/rocm_bake_checks/drift/snapshots/upstream.json")
RECORDERS = ("tests.buildx.recorded_print", "tests.drift.make_snapshot")
DEV_GROUP = ".venv/bin/python -m pip install --group dev"


def preflight(root: Path) -> None:
    """Everything the recorders need, each missing part named (one line)."""
    missing = []
    if not (root / "tests" / "buildx" / "recorded_print.py").is_file():
        missing.append(f"the checkout's tests/ (not found under {root})")
    if importlib.util.find_spec("pytest") is None:
        missing.append(f"the dev dependency group ({DEV_GROUP})")
    if shutil.which("docker") is None:
        missing.append("the docker client with buildx (for --print; no engine needed)")
    if shutil.which("git") is None:
        missing.append("git (the drift world's repositories)")
    if missing:
        raise RocmBakeError(f"inv regen needs {'; '.join(missing)}")


def _record(root: Path, module: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    proc = subprocess.run([sys.executable, "-m", module], cwd=root, env=env,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RocmBakeError(f"python -m {module} failed (exit {proc.returncode}): {last}")


def regenerate_variables_page(root: Path) -> None:
    """Step 3: ``docs/reference/variables.md`` from the offline drift check; a pin it could
    not check is named with where the bake file declares it."""
    settings = DriftSettings(files=[str(root / "rocm-bake.hcl")], offline=str(root / SNAPSHOT),
                             docs=True)
    checked = drift.check(settings, {})
    drift.write_docs(settings, checked)
    code = checked.report.exit_code()
    if code not in (0, 1):         # 1: drift found, which the page shows
        raise RocmBakeError(f"inv version-check --offline {SNAPSHOT} --docs failed "
                            f"(exit {code}): {_unchecked(root, checked.report)}")


def _unchecked(root: Path, report: Report) -> str:
    """The pins that could not be checked, each with where the bake file declares it and
    what the check said (the first three; how many more)."""
    bake = root / "rocm-bake.hcl"
    declared = bakefile.load([bake], {}).namespace.declared.variables
    said = []
    for finding in [f for f in report.all() if f.status is Status.UNCHECKED]:
        variable = declared.get(finding.name)
        where = (f"{_relative(Path(variable.source.file), root)}:{variable.source.line or 1}"
                 if variable is not None else _relative(bake, root))
        said.append(f"{finding.name} ({where}): {finding.detail or 'not checked'}")
    more = f" (and {len(said) - 3} more)" if len(said) > 3 else ""
    return "; ".join(said[:3]) + more if said else "no pin named"


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def regenerate(root: Path, say: Callable[[str], None]) -> None:
    """Run every step, saying each as it is done."""
    preflight(root)
    for module in RECORDERS:
        _record(root, module)
        say(f"regen: python -m {module}")
    regenerate_variables_page(root)
    say(f"regen: inv version-check --offline {SNAPSHOT} --docs")
    changed = pages.write(Source(root))
    say(f"regen: inv docs ({len(changed)} generated file(s) changed)")
    written = list(locks.lock(root, [root / "rocm-bake.hcl"], offline=True))
    say(f"regen: inv lock, offline ({len(written)} lock(s) fresh)")
