"""The cache settings a build asks for, read from its evaluated bake file: CACHE_TYPE (the
tool: ccache, sccache or none; its default is rocm-bake.hcl's, :func:`default_cache_type`), the
shared store (CACHE_STORE, CACHE_STORE_URL, CACHE_ENV, CACHE_READ_ONLY; an S3 bucket's
SCCACHE_S3_*, sccache only) and the secret file (CACHE_SECRET_FILE); the deprecated
sccache-named aliases of the tool-neutral names (:data:`RENAMED`, and the store's credentials:
``secret.STORE_CREDENTIALS``); and the preflight a build
runs when it asks for sccache (a server started with its settings) or ccache (its remote
storage answers HTTP)."""

from __future__ import annotations

import base64
import functools
import urllib.error
import urllib.request
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from rocm_bake.compilercache import sccache
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache.store import CacheError, Store
from rocm_bake.core import redact
from rocm_bake.model import bakefile

CACHE_TYPES = ("sccache", "ccache", "none")
CACHE_STORES = ("none", "webdav", "s3")
# The tool-neutral names (they drive ccache and sccache alike) and the sccache-named ones they
# replace: deprecated aliases, read for one more release (rocm-bake.hcl gives each new name
# the old one's value when only the old one is set), each use a warning naming the new name.
RENAMED = {"SCCACHE_BACKEND": "CACHE_STORE", "SCCACHE_WEBDAV_URL": "CACHE_STORE_URL",
           "SCCACHE_SECRET_FILE": "CACHE_SECRET_FILE"}
OLD_NAME = {new: old for old, new in RENAMED.items()}
# The project's bake file: the one source of CACHE_TYPE's default.
PROJECT_BAKE_FILE = Path(__file__).resolve().parents[3] / bakefile.DEFAULT_FILE


class Variables(Protocol):
    """What the cache settings read of an evaluated bake file (bakefile.Definition)."""

    def variables(self) -> Sequence[object]: ...

    def value(self, name: str) -> object: ...

    @property
    def env(self) -> Mapping[str, str]: ...


def _variable(definition: Variables, name: str) -> str | None:
    if name not in {getattr(v, "name", None) for v in definition.variables()}:
        return None
    value = definition.value(name)
    return None if value is None else str(value)


def _aliased(definition: Variables, name: str) -> str | None:
    """A tool-neutral variable's value; in a bake file that declares only its deprecated
    sccache-named alias, the alias's."""
    value = _variable(definition, name)
    if value is None and name in OLD_NAME:
        value = _variable(definition, OLD_NAME[name])
    return value


def deprecations(values: Mapping[str, str], declared: Collection[str] | None = None
                 ) -> list[str]:
    """One warning per deprecated alias set (non-empty) in ``values`` (the environment and
    the --set variables), naming the new name: a bake variable's alias only when ``declared``
    by the bake file (if given), a credential's always (the environment is where it is read).
    An alias set beside its new name to another value is an error (which one wins would be a
    guess); the error names the variables, never a value."""
    out = []
    for old, new in {**RENAMED, **cache_secret.STORE_CREDENTIALS}.items():
        if not values.get(old) or (declared is not None and old in RENAMED
                                   and old not in declared):
            continue
        if values.get(new) and values[new] != values[old]:
            raise CacheError(f"{old} (deprecated) and {new} are both set, to different "
                             f"values: set only {new}")
        out.append(f"{old} is deprecated: use {new} (the old name is still read, for one "
                   "release)")
    return out


def definition_deprecations(definition: Variables) -> list[str]:
    """The deprecation warnings of a build: the aliases its bake file declares that its
    environment or --set variables set."""
    declared = {str(getattr(v, "name", "")) for v in definition.variables()}
    return deprecations(definition.env, declared)


@functools.cache
def default_cache_type() -> str:
    """CACHE_TYPE's default in rocm-bake.hcl: the compiler cache a build uses unless told."""
    return str(bakefile.load([PROJECT_BAKE_FILE], {}).value("CACHE_TYPE"))


def _flag(definition: Variables, name: str) -> bool:
    return (_variable(definition, name) or "").lower() == "true"


def build_cache_type(definition: Variables) -> str | None:
    """CACHE_TYPE of an evaluated bake file (None when it declares none)."""
    return _variable(definition, "CACHE_TYPE")


def cache_tool(definition: Variables) -> str:
    """The compiler cache whose settings the secret carries (a bake file that declares no
    CACHE_TYPE: rocm-bake.hcl's default)."""
    return build_cache_type(definition) or default_cache_type()


def secret_variable(definition: Variables) -> str:
    """The name of the secret-file variable the bake file declares: CACHE_SECRET_FILE, or in a
    bake file that declares only its deprecated alias, SCCACHE_SECRET_FILE."""
    names = {getattr(v, "name", None) for v in definition.variables()}
    old = OLD_NAME["CACHE_SECRET_FILE"]
    return old if old in names and "CACHE_SECRET_FILE" not in names else "CACHE_SECRET_FILE"


def secret_file(definition: Variables) -> str:
    """CACHE_SECRET_FILE of an evaluated bake file ("" when unset or undeclared)."""
    return _aliased(definition, "CACHE_SECRET_FILE") or ""


def build_settings(definition: Variables) -> dict[str, str] | None:
    """The compiler cache's settings a build passes in its secret (CACHE_SECRET_FILE), or
    None."""
    path = secret_file(definition)
    return cache_secret.read_secret(Path(path)) if path else None


def backend_from_definition(definition: Variables, read_only: bool = False) -> Store | None:
    """The shared store rocm-bake.hcl's variables select, or None (none, or a bake file that
    does not declare them); sccache's settings with CACHE_TYPE=sccache, ccache's HTTP remote
    storage (WebDAV only) with CACHE_TYPE=ccache. Read-only with CACHE_READ_ONLY=true, or
    ``read_only`` (the build's tier may only read it: compilercache.tiers)."""
    definition_deprecations(definition)              # an alias beside its new name: refused
    kind = _aliased(definition, "CACHE_STORE") or "none"
    read_only = read_only or _flag(definition, "CACHE_READ_ONLY")
    if kind == "none":
        return None
    tool = cache_tool(definition)
    if tool == "none":
        raise CacheError(f"CACHE_STORE={kind} needs CACHE_TYPE=sccache or ccache, got "
                         "CACHE_TYPE=none (no compiler cache uses a shared store)")
    if tool == "ccache" and kind != "webdav":
        raise CacheError(f"CACHE_STORE={kind} with CACHE_TYPE=ccache: ccache shares its "
                         "cache only over HTTP, use CACHE_STORE=webdav (S3 is sccache's only)")
    endpoint = (_aliased(definition, "CACHE_STORE_URL") if kind == "webdav"
                else _variable(definition, "SCCACHE_S3_ENDPOINT"))
    return Store(kind, environment=_variable(definition, "CACHE_ENV") or "dev",
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
