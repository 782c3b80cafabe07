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


_TLS_FLAGS = (("tls_ca", "--tlscacert"), ("tls_cert", "--tlscert"), ("tls_key", "--tlskey"))
_TLS_ENV = ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_TLS")
INSECURE_TCP = ("a tcp:// node without TLS hands root on it to anyone who reaches the port: "
                "give tls_ca, tls_cert and tls_key, or write insecure = true for it")


def docker_argv(node: Node, docker: str = "docker") -> list[str]:
    """The docker command prefix that talks to a node (mutual TLS: the files' paths only)."""
    if not node.docker_host:
        return [docker, "--context", node.endpoint]
    argv = [docker]
    if node.tls:
        argv.append("--tlsverify")
        argv += [arg for key, flag in _TLS_FLAGS if key in node.tls
                 for arg in (flag, node.tls[key])]
    return argv


def docker_env(node: Node, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a docker command on a node (DOCKER_HOST for an address)."""
    out = dict(os.environ if env is None else env)
    out.pop("DOCKER_CONTEXT", None)
    for name in _TLS_ENV:               # the node's own settings only, never the caller's
        out.pop(name, None)
    if node.docker_host:
        out["DOCKER_HOST"] = node.docker_host
    else:
        out.pop("DOCKER_HOST", None)
    return out


def insecure_tcp(node: Node) -> bool:
    """A tcp:// node without TLS that the fleet file does not accept as insecure."""
    return node.endpoint.startswith("tcp://") and not node.tls and not node.insecure


def transport(node: Node) -> str:
    """How the node is reached: mutual TLS, TLS without a client certificate, no TLS ..."""
    if not node.docker_host:
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
    proc = _run([*docker_argv(node, docker), "info", "--format", "{{.ServerVersion}}"],
                docker_env(node, env))
    if proc is None:
        return "the engine did not answer in time"
    if proc.returncode == 0:
        return ""
    lines = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else f"docker info exited {proc.returncode}"
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


def reachable(node: Node, env: Mapping[str, str] | None = None, docker: str = "docker") -> bool:
    """Does the node's engine answer (``docker info``)?"""
    return probe(node, env, docker) == ""


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
        if not node.docker_host:
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
    transport: str = ""


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
        why = probe(node, env, docker)
        if why:
            out.append(NodeStatus(node.name, node.endpoint, "-", "-", False, "-", node.capacity,
                                  why, transport(node)))
            continue
        proc = _run([*docker_argv(node, docker), "buildx", "inspect"], node_env)
        text = proc.stdout if proc is not None and proc.returncode == 0 else ""
        driver = re.search(r"^Driver:\s*(\S+)", text, re.MULTILINE)
        version = re.search(r"^BuildKit version:\s*(\S+)", text, re.MULTILINE | re.IGNORECASE)
        out.append(NodeStatus(node.name, node.endpoint, driver.group(1) if driver else "?",
                              version.group(1) if version else "?", True,
                              _cache_size(node, node_env, docker), node.capacity,
                              INSECURE_TCP if insecure_tcp(node) else "", transport(node)))
    return out
