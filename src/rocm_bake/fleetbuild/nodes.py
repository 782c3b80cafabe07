"""The fleet's nodes as Docker endpoints: contexts, reachability, status. How a docker
command reaches a node (address, context, TLS) is
:class:`rocm_bake.docker.connection.Connection`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from rocm_bake.docker.connection import Connection, error_line
from rocm_bake.fleetbuild.config import Fleet, Node

CONTEXT_PREFIX = "rocm-bake-"
PROBE_TIMEOUT = 10.0


def context_name(node: Node) -> str:
    """The docker context rocm-bake uses for a node: its own for an address, else the named one."""
    return CONTEXT_PREFIX + node.name if Connection.of(node).address else node.endpoint

INSECURE_TCP = ("a tcp:// node without TLS hands root on it to anyone who reaches the port: "
                "give tls_ca, tls_cert and tls_key, or write insecure = true for it")


def insecure_tcp(node: Node) -> bool:
    """A tcp:// node without TLS that the fleet file does not accept as insecure."""
    return node.endpoint.startswith("tcp://") and not node.tls and not node.insecure


def transport(node: Node) -> str:
    """How the node is reached: mutual TLS, TLS without a client certificate, no TLS ..."""
    if not Connection.of(node).address:
        return "docker context"
    if not node.endpoint.startswith("tcp://"):
        return node.endpoint.split("://", 1)[0]
    if {"tls_cert", "tls_key"} <= set(node.tls):
        return "mutual TLS"
    if node.tls:
        return "TLS, no client certificate"
    return "NO TLS (insecure = true)" if node.insecure else "NO TLS (refused)"


def probe(node: Node, env: Mapping[str, str] | None = None, docker: str = "docker") -> str:
    """"" when the node's engine answers (``docker info``), else why not, in one line."""
    connection = Connection.of(node, docker)
    proc = _run([*connection.argv(), "info", "--format", "{{.ServerVersion}}"],
                connection.env(env))
    if proc is None:
        return "the engine did not answer in time"
    if proc.returncode == 0:
        return ""
    last = error_line(proc.stderr, f"docker info exited {proc.returncode}")
    last = re.sub(r'^error during connect: \w+ "[^"]*": ', "", last)
    if "tls:" in last or "x509:" in last or "certificate" in last:
        return f"TLS refused: {last}"
    return last



def _run(argv: list[str], env: Mapping[str, str], timeout: float = PROBE_TIMEOUT
         ) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, env=dict(env), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


@dataclass(frozen=True)
class ContextChange:
    node: str
    context: str
    action: str        # created | exists | removed | absent | external | failed | refused
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
        if insecure_tcp(node):
            out.append(ContextChange(node.name, name, "refused", INSECURE_TCP))
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
    transport: str = ""


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
        why = probe(node, env, docker)
        if why:
            out.append(NodeStatus(node.name, node.endpoint, "-", "-", False, "-", node.capacity,
                                  why, transport(node)))
            continue
        proc = _run([*connection.argv(), "buildx", "inspect"], node_env)
        text = proc.stdout if proc is not None and proc.returncode == 0 else ""
        driver = re.search(r"^Driver:\s*(\S+)", text, re.MULTILINE)
        version = re.search(r"^BuildKit version:\s*(\S+)", text, re.MULTILINE | re.IGNORECASE)
        out.append(NodeStatus(node.name, node.endpoint, driver.group(1) if driver else "?",
                              version.group(1) if version else "?", True,
                              _cache_size(connection, node_env), node.capacity,
                              INSECURE_TCP if insecure_tcp(node) else "", transport(node)))
    return out
