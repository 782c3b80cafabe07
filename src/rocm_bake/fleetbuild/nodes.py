"""The fleet's nodes as Docker endpoints: contexts, reachability, status."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from rocm_bake.fleet import Fleet, Node

CONTEXT_PREFIX = "rocm-bake-"
PROBE_TIMEOUT = 10.0


def context_name(node: Node) -> str:
    """The docker context rocm-bake uses for a node: its own for an address, else the named one."""
    return CONTEXT_PREFIX + node.name if node.docker_host else node.endpoint


def docker_argv(node: Node, docker: str = "docker") -> list[str]:
    """The docker command prefix that talks to a node."""
    return [docker] if node.docker_host else [docker, "--context", node.endpoint]


def docker_env(node: Node, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a docker command on a node (DOCKER_HOST for an address)."""
    out = dict(os.environ if env is None else env)
    out.pop("DOCKER_CONTEXT", None)
    if node.docker_host:
        out["DOCKER_HOST"] = node.docker_host
        for key, var in (("tls_ca", "DOCKER_CERT_PATH"),):
            if key in node.tls:
                out[var] = os.path.dirname(node.tls[key])
        if node.tls:
            out["DOCKER_TLS_VERIFY"] = "1"
    else:
        out.pop("DOCKER_HOST", None)
    return out


def _run(argv: list[str], env: Mapping[str, str], timeout: float = PROBE_TIMEOUT
         ) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, env=dict(env), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def reachable(node: Node, env: Mapping[str, str] | None = None, docker: str = "docker") -> bool:
    """Does the node's engine answer (``docker info``)?"""
    proc = _run([*docker_argv(node, docker), "info", "--format", "{{.ServerVersion}}"],
                docker_env(node, env))
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
        if not node.docker_host:
            ok = _context_exists(name, base, docker)
            out.append(ContextChange(node.name, name, "external" if ok else "failed",
                                     "" if ok else f"no docker context named {name}"))
            continue
        if _context_exists(name, base, docker):
            out.append(ContextChange(node.name, name, "exists"))
            continue
        spec = f"host={node.docker_host}"
        for key, field in (("tls_ca", "ca"), ("tls_cert", "cert"), ("tls_key", "key")):
            if key in node.tls:
                spec += f",{field}={node.tls[key]}"
        proc = _run([docker, "context", "create", name, "--description",
                     f"rocm-bake fleet node {node.name}", "--docker", spec], base)
        if proc is not None and proc.returncode == 0:
            out.append(ContextChange(node.name, name, "created"))
        else:
            detail = proc.stderr.strip() if proc is not None else "docker did not run"
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
        if not node.docker_host:
            out.append(ContextChange(node.name, name, "external", "not created by rocm-bake"))
        elif not _context_exists(name, base, docker):
            out.append(ContextChange(node.name, name, "absent"))
        else:
            proc = _run([docker, "context", "rm", "--force", name], base)
            ok = proc is not None and proc.returncode == 0
            out.append(ContextChange(node.name, name, "removed" if ok else "failed",
                                     "" if ok or proc is None else proc.stderr.strip()))
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


def _cache_size(node: Node, env: Mapping[str, str], docker: str) -> str:
    proc = _run([*docker_argv(node, docker), "system", "df", "--format", "{{json .}}"], env)
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
        node_env = docker_env(node, env)
        if not reachable(node, env, docker):
            out.append(NodeStatus(node.name, node.endpoint, "-", "-", False, "-", node.capacity,
                                  "the engine does not answer"))
            continue
        proc = _run([*docker_argv(node, docker), "buildx", "inspect"], node_env)
        text = proc.stdout if proc is not None and proc.returncode == 0 else ""
        driver = re.search(r"^Driver:\s*(\S+)", text, re.MULTILINE)
        version = re.search(r"^BuildKit version:\s*(\S+)", text, re.MULTILINE | re.IGNORECASE)
        out.append(NodeStatus(node.name, node.endpoint, driver.group(1) if driver else "?",
                              version.group(1) if version else "?", True,
                              _cache_size(node, node_env, docker), node.capacity))
    return out
