"""The fleet file (``fleet.toml``): BuildKit nodes, and the registry and WebDAV services."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.core.errors import RocmBakeError

DEFAULT_FILE = "fleet.toml"


class FleetError(RocmBakeError):
    """The fleet file is missing or wrong."""


@dataclass(frozen=True)
class Node:
    """One BuildKit node; how docker reaches it (address or context, TLS) is
    :class:`rocm_bake.docker.connection.Connection`."""

    name: str
    endpoint: str
    platforms: tuple[str, ...] = ("linux/amd64",)
    capacity: int = 1
    tls: dict[str, str] = field(default_factory=dict)   # tls_ca/tls_cert/tls_key: paths
    insecure: bool = False      # a tcp:// node without TLS, accepted on purpose


@dataclass(frozen=True)
class Fleet:
    nodes: tuple[Node, ...]
    registry: str
    webdav: str | None


def load(path: str | Path = DEFAULT_FILE) -> Fleet:
    """Read and check a fleet file; every mistake is one line naming the file and the key."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FleetError(f"{file}: cannot read the fleet file: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise FleetError(f"{file}: not valid TOML: {exc}") from None
    nodes = tuple(_node(file, i, raw) for i, raw in enumerate(_list(file, data, "nodes")))
    if not nodes:
        raise FleetError(f"{file}: no [[nodes]]: the fleet needs at least one BuildKit node")
    names = [n.name for n in nodes]
    if len(set(names)) != len(names):
        raise FleetError(f"{file}: node names must be unique, got {names}")
    registry = _url(file, data, "registry", required=True)
    assert registry is not None
    return Fleet(nodes, registry, _url(file, data, "webdav", required=False))


def _list(file: Path, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise FleetError(f"{file}: {key} must be an array of tables ([[{key}]])")
    return value


def _node(file: Path, index: int, raw: dict[str, Any]) -> Node:
    where = f"{file}: nodes[{index}]"
    name, endpoint = raw.get("name"), raw.get("endpoint")
    if not isinstance(name, str) or not name:
        raise FleetError(f"{where}: name must be a non-empty string")
    if not isinstance(endpoint, str) or not endpoint:
        raise FleetError(f"{where} ({name}): endpoint must be a docker context name or a "
                         "unix://, tcp:// or ssh:// address")
    platforms = raw.get("platforms", ["linux/amd64"])
    capacity = raw.get("capacity", 1)
    if not isinstance(platforms, list) or not all(isinstance(p, str) for p in platforms):
        raise FleetError(f"{where} ({name}): platforms must be a list of strings")
    if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
        raise FleetError(f"{where} ({name}): capacity must be a whole number >= 1")
    tls: dict[str, str] = {}
    for key in ("tls_ca", "tls_cert", "tls_key"):
        if key in raw:
            if not isinstance(raw[key], str) or not raw[key]:
                raise FleetError(f"{where} ({name}): {key} must be the path of a PEM file")
            tls[key] = str((file.parent / raw[key]) if not Path(raw[key]).is_absolute()
                           else raw[key])
    insecure = raw.get("insecure", False)
    if not isinstance(insecure, bool):
        raise FleetError(f"{where} ({name}): insecure must be true or false")
    return Node(name, endpoint, tuple(platforms), capacity, tls, insecure)


def _url(file: Path, data: dict[str, Any], key: str, required: bool) -> str | None:
    table = data.get(key)
    if table is None and not required:
        return None
    url = table.get("url") if isinstance(table, dict) else None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise FleetError(f"{file}: [{key}] url must be an http:// or https:// address")
    return url.rstrip("/") + "/"
