"""An image in the engine: ``docker image inspect`` (id, layers), ``docker image save`` and
``load``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.docker.connection import error_line

INSPECT_TIMEOUT = 120.0


SAVE_TIMEOUT = 1800.0


class ImageError(RocmBakeError):
    """docker could not read an image from the engine: the message names the command, the
    image and why."""


def image_id(name: str, env: Mapping[str, str] | None = None, docker: str = "docker",
             timeout: float = INSPECT_TIMEOUT) -> str | None:
    """The ID of the image ``name`` in the engine (``docker image inspect``), None when the
    engine does not hold it; :class:`ImageError` when docker cannot run or does not answer
    within ``timeout``."""
    try:
        proc = subprocess.run([docker, "image", "inspect", "--format", "{{.Id}}", "--", name],
                              env=dict(env) if env is not None else None, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"docker image inspect {name}: {exc}") from None
    return proc.stdout.strip() if proc.returncode == 0 else None


def image_layers(name: str, env: Mapping[str, str] | None = None, docker: str = "docker",
                 timeout: float = INSPECT_TIMEOUT) -> list[str] | None:
    """The diff IDs of the layers of the image ``name`` in the engine (its content, unlike
    its ID, which an import's timestamp changes), None when the engine does not hold it."""
    try:
        proc = subprocess.run([docker, "image", "inspect", "--format", "{{json .RootFS.Layers}}",
                               "--", name], env=dict(env) if env is not None else None,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"docker image inspect {name}: {exc}") from None
    if proc.returncode != 0:
        return None
    try:
        layers = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise ImageError(f"docker image inspect {name}: not JSON: {proc.stdout[:80]!r}") from None
    return [str(layer) for layer in layers or []]


def image_save(reference: str, dest: Path, env: Mapping[str, str] | None = None,
               docker: str = "docker", timeout: float = SAVE_TIMEOUT) -> None:
    """Write the engine's image ``reference`` to the tarball ``dest`` (``docker image save``);
    :class:`ImageError` names the image and docker's last line when it cannot."""
    _run([docker, "image", "save", "-o", str(dest), "--", reference],
         f"docker image save {reference}", env, timeout)


def image_load(archive: Path, env: Mapping[str, str] | None = None,
               docker: Sequence[str] = ("docker",), timeout: float = SAVE_TIMEOUT) -> None:
    """Load an image archive into the engine (``docker image load``), the way a reproducible
    export reaches it (rocm_bake.docker.exporters); :class:`ImageError` names the archive and
    docker's last line when it cannot."""
    _run([*docker, "image", "load", "-q", "-i", str(archive)],
         f"docker image load -i {archive}", env, timeout)


def _run(argv: Sequence[str], what: str, env: Mapping[str, str] | None, timeout: float) -> None:
    try:
        proc = subprocess.run(list(argv), env=dict(env) if env is not None else None,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ImageError(f"{what}: {exc}") from None
    if proc.returncode != 0:
        raise ImageError(f"{what}: {error_line(proc.stderr, 'failed')}")
