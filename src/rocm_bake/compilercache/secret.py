"""The BuildKit secret ``sccache`` (its id kept so compile layers stay valid) that carries the
store's settings and credentials into the build, for whichever tool ``CACHE_TYPE`` chose:
never build args, never a layer, and no credential left on disk after the build."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rocm_bake.compilercache import ccache, sccache
from rocm_bake.compilercache.store import CacheError, Store

SECRET_ID = "sccache"


SECRET_KEYS = ("SCCACHE_", "AWS_", "CCACHE_")


# The WebDAV store's credentials by their tool-neutral names (ccache and sccache both take them
# from these), each beside the sccache-named alias it replaces: deprecated, read for one more
# release when its new name is unset, each use a warning (settings.deprecations).
STORE_CREDENTIALS = {"SCCACHE_WEBDAV_USERNAME": "CACHE_STORE_USER",
                     "SCCACHE_WEBDAV_PASSWORD": "CACHE_STORE_PASSWORD",
                     "SCCACHE_WEBDAV_TOKEN": "CACHE_STORE_TOKEN"}
# An S3 store's (sccache's only): AWS's own names, which sccache reads as they are.
S3_CREDENTIALS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
CREDENTIAL_KEYS = (*S3_CREDENTIALS, *STORE_CREDENTIALS.values())


def neutral(credentials: Mapping[str, str]) -> dict[str, str]:
    """``credentials`` by their tool-neutral names (a deprecated alias under its new name,
    unless the new name is also given)."""
    aliased = {STORE_CREDENTIALS[k]: v for k, v in credentials.items()
               if k in STORE_CREDENTIALS and not credentials.get(STORE_CREDENTIALS[k])}
    return {**aliased, **{k: v for k, v in credentials.items() if k not in STORE_CREDENTIALS}}


def settings_for(store: Store, tool: str,
                 credentials: Mapping[str, str] | None = None) -> dict[str, str]:
    """The secret's settings for the compiler cache ``tool`` (sccache or ccache), with
    ``credentials`` (tool-neutral names, or their deprecated aliases)."""
    found = neutral(credentials or {})
    if tool == "ccache":
        return ccache.settings(store, found)
    return {**sccache.settings(store), **sccache.credentials(found)}


def secret_text(settings: Mapping[str, str], credentials: Mapping[str, str] | None = None) -> str:
    """The KEY=VALUE lines of the BuildKit secret with-compiler-cache.sh reads."""
    merged = {**settings, **(credentials or {})}
    for key, value in merged.items():
        if not key.startswith(SECRET_KEYS):
            raise CacheError(f"only SCCACHE_*, AWS_* and CCACHE_* settings may go into the "
                             f"secret (got {key})")
        if "\n" in value:
            raise CacheError(f"{key}: a value may not contain a newline")
    return "".join(f"{key}={value}\n" for key, value in merged.items())


def write_secret(path: Path, backend: Store,
                 credentials: Mapping[str, str] | None = None, *, tool: str) -> Path:
    """Write the secret file (mode 0600) for CACHE_SECRET_FILE, the settings of the
    compiler cache ``tool``; returns the path."""
    text = secret_text(settings_for(backend, tool, credentials))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def read_secret(path: Path) -> dict[str, str]:
    """The settings of a secret file, parsed as with-compiler-cache.sh parses them."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CacheError(f"cannot read the sccache secret file {path}: "
                         f"{exc.strerror or exc}") from None
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        if not key.startswith(SECRET_KEYS):
            raise CacheError(f"{path}:{number}: only SCCACHE_*, AWS_* and CCACHE_* settings "
                             f"are allowed (got {key})")
        out[key] = value
    return out


def credentials(env: Mapping[str, str]) -> dict[str, str]:
    """The remote-cache credentials set in ``env``, by their tool-neutral names (a deprecated
    alias read when its new name is unset); they go into the secret only."""
    aliases = {new: old for old, new in STORE_CREDENTIALS.items()}
    found = {k: env.get(k) or env.get(aliases.get(k, k), "") for k in CREDENTIAL_KEYS}
    return {k: v for k, v in found.items() if v}


def secret_path(backend: Store, tool: str) -> Path:
    """Where inv build writes a backend's secret (for the compiler cache ``tool``) for the
    duration of one build."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    digest = hashlib.sha256(json.dumps([tool, sccache.settings(backend)], sort_keys=True).encode())
    return base / f"rocm-bake-sccache-{os.getuid()}-{digest.hexdigest()[:12]}.secret"
