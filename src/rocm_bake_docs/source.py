"""What the generators read: one checkout, evaluated with a fixed, empty environment."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile

PERF_HISTORY = Path("perf") / "history.jsonl"
FLEET_LOGS = Path("fleet-logs")


@dataclass(frozen=True)
class Source:
    """A checkout of rocm-bake: the bake file, tasks, noxfile and docs under ``root``."""

    root: Path
    bake_file: str = bakefile.DEFAULT_FILE
    perf_history: Path = PERF_HISTORY
    fleet_logs: Path = FLEET_LOGS

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def bake_path(self) -> Path:
        return self.root / self.bake_file

    @property
    def perf_path(self) -> Path:
        return self.root / self.perf_history

    @property
    def fleet_logs_path(self) -> Path:
        return self.root / self.fleet_logs

    def env(self) -> dict[str, str]:
        """The environment commands run with: PATH and HOME only, so no GPU_ARCHS, REGISTRY
        or other override of the caller's leaks into a page."""
        return {"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin')}",
                "HOME": os.environ.get("HOME", str(self.root))}

    def tool(self, name: str) -> str:
        """A command installed next to this Python (the project's .venv) or on PATH."""
        beside = Path(sys.executable).parent / name
        if beside.exists():
            return str(beside)
        found = shutil.which(name)
        if found is None:
            raise RocmBakeError(f"{name} is not installed (run scripts/docs-deps.sh)")
        return found
