"""Which engine a build ran on: the Docker engine's version and its builder's BuildKit version,
as the engine itself reports them (``docker version``, ``docker buildx inspect``).

Recorded beside an image's manifest digest, which is that engine's encoding of the image (its
Dockerfile frontend renders the config's history, its compressor writes the layers): the same
image content has another manifest digest on another engine (docs/reproducibility.md).
Debian's builds of Docker do not stamp the BuildKit they carry (it reports
``v0.0.0+unknown``); their Docker version then names it.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TIMEOUT = 60.0
UNKNOWN = "unknown"


@dataclass(frozen=True)
class EngineVersion:
    docker: str = UNKNOWN      # the engine's server version, e.g. 28.5.2+dfsg4
    buildkit: str = UNKNOWN    # the builder's BuildKit version, e.g. v0.25.1

    def __str__(self) -> str:
        return f"Docker {self.docker}, BuildKit {self.buildkit}"

    def to_json(self) -> dict[str, str]:
        return {"docker": self.docker, "buildkit": self.buildkit}

    @classmethod
    def from_json(cls, data: object) -> EngineVersion | None:
        """The engine a record names (None when it names none)."""
        if not isinstance(data, Mapping) or not data:
            return None
        return cls(str(data.get("docker") or UNKNOWN), str(data.get("buildkit") or UNKNOWN))


def _output(argv: list[str], env: Mapping[str, str] | None) -> str:
    try:
        proc = subprocess.run(argv, env=dict(env) if env is not None else None,
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def engine_version(env: Mapping[str, str] | None = None, docker: Sequence[str] = ("docker",)
                   ) -> EngineVersion:
    """The engine and builder the environment selects, ``docker`` the command that reaches it
    (a fleet node's: ``Connection.argv()``, its context or TLS flags); each part ``unknown``
    when it does not say."""
    server = _output([*docker, "version", "--format", "{{.Server.Version}}"], env).strip()
    found = re.search(r"^BuildKit version:\s*(\S+)",
                      _output([*docker, "buildx", "inspect"], env), re.MULTILINE | re.IGNORECASE)
    return EngineVersion(server or UNKNOWN, found.group(1) if found else UNKNOWN)
