"""The fleet's nodes as Docker endpoints: contexts, reachability, status. How a docker
command reaches a node (address, context, TLS) is :class:`rocm_bake.buildx.Connection`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from rocm_bake.buildx import Connection, error_line
from rocm_bake.fleet import Fleet, Node

CONTEXT_PREFIX = "rocm-bake-"
PROBE_TIMEOUT = 10.0


def context_name(node: Node) -> str:
    """The docker context rocm-bake uses for a node: its own for an address, else the named one."""
    return CONTEXT_PREFIX + node.name if Connection.of(node).address else node.endpoint


def _run(argv: list[str], env: Mapping[str, str], timeout: float = PROBE_TIMEOUT
         ) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, env=dict(env), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def reachable(node: Node, env: Mapping[str, str] | None = None, docker: str = "docker") -> bool:
    """Does the node's engine answer (``docker info``)?"""
    connection = Connection.of(node, docker)
    proc = _run([*connection.argv(), "info", "--format", "{{.ServerVersion}}"],
                connection.env(env))
    return proc is not None and proc.returncode == 0


@dataclass(frozen=True)
class ContextChange:
    node: str
    context: str
    action: str        # created | exists | removed | absent | external | failed
    detail: str = ""


def _context_exists(name: str, env: Mapping[str, str], docker: str) -> bool:
    proc = _run([docker, "context", "inspect", name], env)
    return proc is not None and proc.returncode == 0


def create_contexts(fleet: Fleet, env: Mapping[str, str] | None = None,
                    docker: str = "docker") -> list[ContextChange]:
    """A docker context per node with an address (with the docker driver a context *is* a
    builder); a node named by a context is used as it is."""
    base = dict(os.environ if env is None else env)
    base.pop("DOCKER_HOST", None)
    out = []
    for node in fleet.nodes:
        name = context_name(node)
        connection = Connection.of(node, docker)
        if not connection.address:
            ok = _context_exists(name, base, docker)
            out.append(ContextChange(node.name, name, "external" if ok else "failed",
                                     "" if ok else f"no docker context named {name}"))
            continue
        if _context_exists(name, base, docker):
            out.append(ContextChange(node.name, name, "exists"))
            continue
        proc = _run([docker, "context", "create", name, "--description",
                     f"rocm-bake fleet node {node.name}", "--docker",
                     connection.context_spec()], base)
        if proc is not None and proc.returncode == 0:
            out.append(ContextChange(node.name, name, "created"))
        else:
            detail = error_line(proc.stderr) if proc is not None else "docker did not run"
            out.append(ContextChange(node.name, name, "failed", detail))
    return out


def remove_contexts(fleet: Fleet, env: Mapping[str, str] | None = None,
                    docker: str = "docker") -> list[ContextChange]:
    """Remove the contexts ``create_contexts`` made (never one the fleet only names)."""
    base = dict(os.environ if env is None else env)
    base.pop("DOCKER_HOST", None)
    out = []
    for node in fleet.nodes:
        name = context_name(node)
        if not Connection.of(node, docker).address:
            out.append(ContextChange(node.name, name, "external", "not created by rocm-bake"))
        elif not _context_exists(name, base, docker):
            out.append(ContextChange(node.name, name, "absent"))
        else:
            proc = _run([docker, "context", "rm", "--force", name], base)
            ok = proc is not None and proc.returncode == 0
            out.append(ContextChange(node.name, name, "removed" if ok else "failed",
                                     "" if ok or proc is None else error_line(proc.stderr)))
    return out


@dataclass(frozen=True)
class NodeStatus:
    node: str
    endpoint: str
    driver: str
    buildkit: str
    reachable: bool
    cache_size: str
    capacity: int
    detail: str = ""


def _cache_size(connection: Connection, env: Mapping[str, str]) -> str:
    proc = _run([*connection.argv(), "system", "df", "--format", "{{json .}}"], env)
    if proc is None or proc.returncode != 0:
        return "?"
    for line in proc.stdout.splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and row.get("Type") == "Build Cache":
            return str(row.get("Size", "?"))
    return "?"


def status(fleet: Fleet, env: Mapping[str, str] | None = None,
           docker: str = "docker") -> list[NodeStatus]:
    """One row per node: driver, BuildKit version, reachable, build cache size."""
    out = []
    for node in fleet.nodes:
        connection = Connection.of(node, docker)
        node_env = connection.env(env)
        if not reachable(node, env, docker):
            out.append(NodeStatus(node.name, node.endpoint, "-", "-", False, "-", node.capacity,
                                  "the engine does not answer"))
            continue
        proc = _run([*connection.argv(), "buildx", "inspect"], node_env)
        text = proc.stdout if proc is not None and proc.returncode == 0 else ""
        driver = re.search(r"^Driver:\s*(\S+)", text, re.MULTILINE)
        version = re.search(r"^BuildKit version:\s*(\S+)", text, re.MULTILINE | re.IGNORECASE)
        out.append(NodeStatus(node.name, node.endpoint, driver.group(1) if driver else "?",
                              version.group(1) if version else "?", True,
                              _cache_size(connection, node_env), node.capacity))
    return out
