"""skopeo, the one tool that reads an image straight from a registry (no engine, no pull):
``skopeo copy docker://REF oci-archive:DEST``, the image's layers as an OCI layout tarball."""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from rocm_bake.core import redact
from rocm_bake.core.errors import RocmBakeError

COPY_TIMEOUT = 3600.0
LINUX_AMD64 = ("--override-os", "linux", "--override-arch", "amd64")


class RegistryImageError(RocmBakeError):
    """skopeo could not read an image from its registry: the message names the image and
    skopeo's last line."""


def require(env: Mapping[str, str] | None = None) -> None:
    """Fail fast, before hours of building, when skopeo is not installed."""
    path = (env if env is not None else os.environ).get("PATH")
    if shutil.which("skopeo", path=path) is None:
        raise RegistryImageError("skopeo is not installed: the arch audit reads images from "
                                 "their registry with it (apt-get install skopeo)")


def registry_host(reference: str) -> str | None:
    """The registry host a reference names (``127.0.0.1:5000/a/b:t`` -> ``127.0.0.1:5000``);
    None when its first part is no host (``rocm-bake/app:1``, Docker Hub's short names)."""
    first, slash, _ = reference.partition("/")
    if not slash:
        return None
    if "." in first or ":" in first or first == "localhost":
        return first
    return None


def is_loopback(host: str) -> bool:
    """``127.0.0.1:5000``, ``localhost``, ``[::1]:5000``: a registry on this machine (plain
    HTTP, as the project's loopback registry serves)."""
    if host.startswith("["):
        name = host[1:].partition("]")[0]
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def copy_to_archive(reference: str, dest: Path, env: Mapping[str, str] | None = None,
                    timeout: float = COPY_TIMEOUT) -> None:
    """Write the registry's image ``reference`` (its linux/amd64 manifest) to the OCI layout
    tarball ``dest``. A loopback registry is read over plain HTTP; any other with TLS
    verified. :class:`RegistryImageError` when it cannot."""
    host = registry_host(reference)
    if host is None:
        raise RegistryImageError(f"{reference}: names no registry host (e.g. "
                                 "127.0.0.1:5000/name:tag)")
    argv = ["skopeo", "copy", "--quiet", *LINUX_AMD64]
    if is_loopback(host):
        argv.append("--src-tls-verify=false")
    argv += [f"docker://{reference}", f"oci-archive:{dest}"]
    what = f"skopeo copy docker://{reference}"
    try:
        proc = subprocess.run(argv, env=dict(env) if env is not None else None,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RegistryImageError(redact.text(f"{what}: {exc}")) from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        raise RegistryImageError(redact.text(f"{what}: {last}"))
