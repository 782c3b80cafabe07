"""A base image the engine cannot pull, found in buildx's output after a failed build, turned
into one line naming the image and the two ways around it: a pre-pulled copy in the engine's
image store (BuildKit's docker driver uses a local image whose digest matches, pinned or not)
or a registry mirror for the engine."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

MIRROR_VARIABLE = "ROCM_BAKE_REGISTRY_MIRROR"
# buildx: "ERROR: failed to solve: <ref>: failed to resolve source metadata for <ref>: <why>"
_UNPULLABLE = re.compile(r"failed to resolve source metadata for (?P<ref>\S+): (?P<why>.+)$")
_WHY = (("no such host", "the registry's host name does not resolve: offline?"),
        ("connection refused", "the registry refused the connection"),
        ("i/o timeout", "the registry did not answer"),
        ("not found", "no such image or tag there"),
        ("unauthorized", "the registry wants credentials (docker login)"),
        ("denied", "the registry denied access (docker login)"))


def unpullable(lines: Iterable[str]) -> tuple[str, str] | None:
    """``(image, short reason)`` of the first base image buildx could not resolve, or None."""
    for line in lines:
        match = _UNPULLABLE.search(line.strip())
        if match:
            why = match.group("why")
            reason = next((text for marker, text in _WHY if marker in why.lower()),
                          why.rsplit(": ", 1)[-1][:120])
            return match.group("ref"), reason
    return None


def hint(image: str, reason: str, env: Mapping[str, str]) -> str:
    """One line: the image, why, and how to use a pre-pulled copy or a registry mirror."""
    host = env.get("DOCKER_HOST") or "the engine"
    return (f"base image {image} cannot be pulled ({reason}): load a pre-pulled copy into "
            f"the engine at {host} (docker load -i image.tar; same digest), or give the "
            f"engine a registry mirror ({MIRROR_VARIABLE}=https://mirror.example "
            "scripts/engine.sh start, on a stopped engine; elsewhere registry-mirrors in "
            "dockerd's daemon.json)")
