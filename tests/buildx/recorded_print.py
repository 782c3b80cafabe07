"""The recorded ``docker buildx bake --print`` output of rocm-bake.hcl: every group and arch set
of test_rocm_bake.py, plus its override cases. A refactor of the bake file (e.g. a new parent
target) must leave every one of them byte-for-byte equal (test_recorded_print.py).

Record again only when the bake file's *output* is meant to change (a pin bump, a new target):

    python -m tests.buildx.recorded_print      # needs docker buildx (no engine)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.buildx.test_rocm_bake import ARCHES, GROUPS, OVERRIDES
from tests.conftest import ROOT

RECORDED = Path(__file__).resolve().parent / "recorded" / "print.json"


def cases() -> dict[str, tuple[list[str], dict[str, str]]]:
    """Every recorded request by name: (bake arguments, environment)."""
    out: dict[str, tuple[list[str], dict[str, str]]] = {}
    for group in GROUPS:
        for archs in ARCHES:
            out[f"print {group} GPU_ARCHS={archs}"] = (
                ["-f", "rocm-bake.hcl", "--print", group], {"GPU_ARCHS": archs})
    for env in OVERRIDES:
        label = " ".join(f"{k}={v}" for k, v in env.items()) or "defaults"
        for args in (["--print", "all"], ["--print", "--push", "vllm"],
                     ["--list=type=variables,format=json"]):
            out[f"{' '.join(args)} {label}"] = (["-f", "rocm-bake.hcl", *args], env)
    return out


def checkout(into: Path) -> Path:
    """The bake file and its Dockerfiles copied, so nothing of the worktree leaks in."""
    shutil.copy(ROOT / "rocm-bake.hcl", into / "rocm-bake.hcl")
    shutil.copytree(ROOT / "dockerfiles", into / "dockerfiles")
    return into


def bake(args: list[str], cwd: Path, env: dict[str, str], home: Path) -> Any:
    """buildx's JSON for one request (raises on a failed bake)."""
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                "DOCKER_CONFIG": str(home / "docker"), "BUILDX_CONFIG": str(home / "buildx"),
                **env}
    proc = subprocess.run(["docker", "buildx", "bake", "--progress=plain", *args], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(proc.stdout)


def record() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home" / "docker").mkdir(parents=True)
        work = checkout(Path(tempfile.mkdtemp(dir=root)))
        return {name: bake(args, work, env, root / "home")
                for name, (args, env) in cases().items()}


def main() -> int:
    data = record()
    RECORDED.parent.mkdir(exist_ok=True)
    tmp = RECORDED.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(RECORDED)
    print(f"recorded {len(data)} requests into {RECORDED.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
