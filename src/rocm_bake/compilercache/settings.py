"""The cache settings a build asks for, read from its evaluated bake file: CACHE_TYPE, the
sccache backend (SCCACHE_BACKEND, CACHE_ENV, CACHE_READ_ONLY, SCCACHE_WEBDAV_URL,
SCCACHE_S3_*) and the secret file (SCCACHE_SECRET_FILE); and the preflight a build runs when
it asks for sccache (a server started with its settings) or ccache (its remote storage
answers HTTP)."""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from rocm_bake.compilercache import sccache
from rocm_bake.compilercache.sccache import CacheError, SccacheBackend
from rocm_bake.core import redact

CACHE_TYPES = ("sccache", "ccache", "none")


class Variables(Protocol):
    """What the cache settings read of an evaluated bake file (bakefile.Definition)."""

    def variables(self) -> Sequence[object]: ...

    def value(self, name: str) -> object: ...


def _variable(definition: Variables, name: str) -> str | None:
    if name not in {getattr(v, "name", None) for v in definition.variables()}:
        return None
    value = definition.value(name)
    return None if value is None else str(value)


def _flag(definition: Variables, name: str) -> bool:
    return (_variable(definition, name) or "").lower() == "true"


def build_cache_type(definition: Variables) -> str | None:
    """CACHE_TYPE of an evaluated bake file (None when it declares none)."""
    return _variable(definition, "CACHE_TYPE")


def cache_tool(definition: Variables) -> str:
    """The compiler cache whose settings the secret carries (sccache when undeclared)."""
    return build_cache_type(definition) or "sccache"


def secret_file(definition: Variables) -> str:
    """SCCACHE_SECRET_FILE of an evaluated bake file ("" when unset or undeclared)."""
    return _variable(definition, "SCCACHE_SECRET_FILE") or ""


def build_settings(definition: Variables) -> dict[str, str] | None:
    """The sccache settings a build passes in its secret (SCCACHE_SECRET_FILE), or None."""
    path = secret_file(definition)
    return sccache.read_secret(Path(path)) if path else None


def backend_from_definition(definition: Variables) -> SccacheBackend | None:
    """The shared store rocm-bake.hcl's variables select, or None (none, or a bake file that
    does not declare them); sccache's settings with CACHE_TYPE=sccache, ccache's HTTP remote
    storage (WebDAV only) with CACHE_TYPE=ccache. A read-only build that exports the registry
    cache is refused."""
    kind = _variable(definition, "SCCACHE_BACKEND") or "none"
    read_only = _flag(definition, "CACHE_READ_ONLY")
    if read_only and _flag(definition, "CACHE_EXPORT"):
        raise CacheError("CACHE_READ_ONLY=true (a pull-request build) cannot write the registry "
                         "layer cache: drop CACHE_EXPORT=true")
    if kind == "none":
        return None
    if build_cache_type(definition) == "none":
        raise CacheError(f"SCCACHE_BACKEND={kind} needs CACHE_TYPE=sccache or ccache, got "
                         "CACHE_TYPE=none (no compiler cache uses a shared store)")
    if build_cache_type(definition) == "ccache" and kind != "webdav":
        raise CacheError(f"SCCACHE_BACKEND={kind} with CACHE_TYPE=ccache: ccache shares its "
                         "cache only over HTTP, use SCCACHE_BACKEND=webdav")
    endpoint = (_variable(definition, "SCCACHE_WEBDAV_URL") if kind == "webdav"
                else _variable(definition, "SCCACHE_S3_ENDPOINT"))
    return SccacheBackend(kind, environment=_variable(definition, "CACHE_ENV") or "dev",
                          endpoint=endpoint or "",
                          bucket=_variable(definition, "SCCACHE_S3_BUCKET") or "",
                          region=_variable(definition, "SCCACHE_S3_REGION") or "",
                          read_only=read_only)


def ccache_preflight(settings: Mapping[str, str],
                     timeout: float = sccache.PREFLIGHT_TIMEOUT) -> None:
    """ccache's remote storage answers HTTP (any status: a collection not written yet is a
    404); one line when it does not. ccache itself would compile on with every remote read
    and write failing, counted only as errors."""
    url = settings.get("CCACHE_REMOTE_STORAGE", "").split("|", 1)[0]
    if not url:
        return
    clean, user, password = redact.split_credentials(url)
    request = urllib.request.Request(clean, method="HEAD")
    if user:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            pass
    except urllib.error.HTTPError:
        pass                                 # the server answered
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CacheError(f"ccache remote storage {redact.text(url)} is unusable: "
                         f"{reason}") from None


def preflight_build(definition: Variables,
                    timeout: float = sccache.PREFLIGHT_TIMEOUT) -> None:
    """The backend preflight for a build that asks for a compiler cache with a secret."""
    settings = build_settings(definition)
    if settings is None:
        return
    tool = cache_tool(definition)
    other = {"sccache": "CCACHE_REMOTE_STORAGE", "ccache": "SCCACHE_"}.get(tool)
    foreign = sorted(k for k in settings if other and k.startswith(other))
    if foreign:
        raise CacheError(f"CACHE_TYPE={tool}, but the secret {secret_file(definition)} holds "
                         f"the other cache's settings ({foreign[0]}): write it for {tool}")
    if tool == "sccache":
        sccache.preflight(settings, timeout)
    elif tool == "ccache":
        ccache_preflight(settings, timeout)
