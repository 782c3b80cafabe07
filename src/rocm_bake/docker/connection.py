"""How a docker command reaches one engine: an address or a docker context, TLS included
(a fleet node is an :class:`Endpoint`), and docker's error output as one line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


class Endpoint(Protocol):
    """Where an engine is: a fleet node (``rocm_bake.fleetbuild.config.Node``) is one."""

    @property
    def endpoint(self) -> str: ...

    @property
    def tls(self) -> Mapping[str, str]: ...


ADDRESS_SCHEMES = ("unix://", "tcp://", "ssh://")


# fleet.toml's TLS keys and the docker CLI flags that carry them (buildx, a CLI plugin, takes
# the same global flags, so any file names work, not only DOCKER_CERT_PATH's ca/cert/key.pem)
TLS_FLAGS = (("tls_ca", "--tlscacert"), ("tls_cert", "--tlscert"), ("tls_key", "--tlskey"))


CALLER_TLS_ENV = ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_TLS")


@dataclass(frozen=True)
class Connection:
    """How a docker command reaches one engine. ``endpoint`` is a ``unix://``, ``tcp://`` or
    ``ssh://`` address (passed as DOCKER_HOST), a docker context name, or "" for whatever the
    caller's environment selects; ``tls`` holds fleet.toml's tls_ca/tls_cert/tls_key."""

    endpoint: str = ""
    tls: Mapping[str, str] = field(default_factory=dict)
    docker: str = "docker"

    @classmethod
    def of(cls, node: Endpoint, docker: str = "docker") -> Connection:
        return cls(node.endpoint, dict(node.tls), docker)

    @property
    def address(self) -> str | None:
        """The DOCKER_HOST for the engine, or None when the endpoint names a docker context."""
        return self.endpoint if self.endpoint.startswith(ADDRESS_SCHEMES) else None

    def tls_flags(self) -> list[str]:
        if not self.tls:
            return []
        return ["--tlsverify", *(arg for key, flag in TLS_FLAGS if key in self.tls
                                 for arg in (flag, self.tls[key]))]

    def argv(self) -> list[str]:
        """The docker command prefix that talks to the engine."""
        if self.endpoint and self.address is None:
            return [self.docker, "--context", self.endpoint]
        return [self.docker, *self.tls_flags()]

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a docker command on the engine (DOCKER_HOST for an address)."""
        out = dict(os.environ if base is None else base)
        if not self.endpoint:
            return out
        out.pop("DOCKER_CONTEXT", None)
        for name in CALLER_TLS_ENV:     # the engine's own TLS settings only, never the caller's
            out.pop(name, None)
        if self.address:
            out["DOCKER_HOST"] = self.address
        else:
            out.pop("DOCKER_HOST", None)
        return out

    def context_spec(self) -> str:
        """The ``--docker`` value of ``docker context create`` for an address."""
        spec = f"host={self.endpoint}"
        for key, name in (("tls_ca", "ca"), ("tls_cert", "cert"), ("tls_key", "key")):
            if key in self.tls:
                spec += f",{name}={self.tls[key]}"
        return spec


def error_line(text: str, default: str = "no answer") -> str:
    """docker's error output as one clean line: its message without the CLI's chatter
    ("Run 'docker --help' ...", "ERROR:", "Failed to initialize:")."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()
             and not ln.strip().startswith(("Run 'docker", "See 'docker"))]
    if not lines:
        return default
    line = next((ln for ln in lines if ln.startswith(("Error:", "ERROR:"))), lines[-1])
    for prefix in ("Error:", "ERROR:", "docker:", "Failed to initialize:"):
        line = line.removeprefix(prefix).strip()
    return line or default
