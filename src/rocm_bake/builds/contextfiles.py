"""What a build's local files were: the sha256 of every file of a target's local contexts (its
``context``, each named context that is a directory) and of its Dockerfile, recorded per build
under the build's buildx history id, so that two builds can be compared file by file (BuildKit
keeps no such list: its history names the contexts, never their files).

``inv build`` / ``inv push`` write one record per target they built; ``inv why-rebuilt`` reads
them. Records live in ``$XDG_STATE_HOME/rocm-bake/builds`` (``~/.local/state`` by default),
one small JSON file per build.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from rocm_bake.core import atomic
from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model.bake.target import Target

Files = dict[str, str]        # path as the user spells it (relative to the bake's cwd) -> sha256
# Records kept: BuildKit's own history keeps far fewer builds (50 by default), so a record
# older than these has no build left to compare.
KEEP = 1000
_REMOTE = ("target:", "docker-image://", "oci-layout://")


def records_dir(env: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if env is None else env
    state = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME") or Path.home())
                                                 / ".local" / "state")
    return Path(state) / "rocm-bake" / "builds"


def local_dirs(target: Target, cwd: Path) -> list[Path]:
    """The directories a target sends to BuildKit: its context and named local contexts."""
    out = [cwd / str(target.get("context") or ".")]
    for value in (target.get("contexts") or {}).values():
        text = str(value)
        if "://" in text or text.startswith(_REMOTE):
            continue
        path = cwd / text
        if path.is_dir():
            out.append(path)
    return out


def dockerfile(target: Target, cwd: Path) -> Path | None:
    name = str(target.get("dockerfile") or "Dockerfile")
    if target.get("dockerfile-inline"):
        return None
    path = Path(name)
    return path if path.is_absolute() else cwd / str(target.get("context") or ".") / path


def snapshot(target: Target, cwd: Path) -> Files:
    """The sha256 of every file the target's local contexts and Dockerfile hold."""
    files: Files = {}
    for directory in local_dirs(target, cwd):
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                files[_display(path, cwd)] = _sha256(path)
    found = dockerfile(target, cwd)
    if found is not None and found.is_file():
        files[_display(found, cwd)] = _sha256(found)
    return files


def _display(path: Path, cwd: Path) -> str:
    resolved = path.resolve()
    try:
        return resolved.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return os.path.relpath(resolved, cwd.resolve())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def write(build_id: str, cell: str, files: Files, directory: Path, keep: int = KEEP) -> Path:
    """Record a build's files (atomically); only the ``keep`` newest records stay."""
    path = directory / f"{build_id}.json"
    atomic.write_text(path, json.dumps({"build": build_id, "cell": cell, "files": files},
                                       indent=1, sort_keys=True) + "\n")
    _prune(directory, keep)
    return path


def _prune(directory: Path, keep: int) -> None:
    """Only the ``keep`` newest records stay."""
    found = sorted(directory.glob("*.json"), key=_mtime, reverse=True)
    for old in found[keep:]:
        old.unlink(missing_ok=True)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:           # another build's prune took it
        return 0


def read(build_id: str, directory: Path) -> Files | None:
    """The files recorded for a build, or None when none were (it was not built by inv)."""
    path = directory / f"{build_id}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RocmBakeError(f"{path}: cannot read the build's file record: {exc}") from None
    files = raw.get("files") if isinstance(raw, dict) else None
    if not isinstance(files, dict):
        raise RocmBakeError(f"{path}: not a build file record (no 'files' object)")
    return {str(k): str(v) for k, v in files.items()}


def differences(old: Files, new: Files) -> list[tuple[str, str]]:
    """(path, how) for each file that changed, appeared or disappeared, by path."""
    out = []
    for path in sorted(set(old) | set(new)):
        if path not in old:
            out.append((path, "added"))
        elif path not in new:
            out.append((path, "removed"))
        elif old[path] != new[path]:
            out.append((path, "changed"))
    return out
