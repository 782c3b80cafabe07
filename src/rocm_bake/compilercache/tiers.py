"""The trust tier of a build: what it may do with the shared caches, the compiler cache's
store (WebDAV or S3) and the registry layer cache, as TheRock split its caches by trust
(ROCm/TheRock#7026: pull requests read, trusted builds read and write; ROCm/TheRock#7249: a
release candidate reads no remote cache, "to eliminate cache poisoning risks").

A tier is named by ``--tier`` (inv build, inv push, inv fleet.build) or the bake variable
``CACHE_TIER``; inv verify-repro always builds as ``release``. The tier gives the cache
variables the build does not set their values (:func:`settings`), refuses in one line a setting
that would read or write where it may not (:func:`check`), and drops every shared layer cache it
may not use from the plan (:func:`overrides`): the library, not the lanes, keeps the rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache.store import CacheError, has_store, is_read_only
from rocm_bake.core import redact
from rocm_bake.core.errors import UsageError

Access = Literal["read-write", "read", "none"]

VARIABLE = "CACHE_TIER"
DEFAULT = "dev"


@dataclass(frozen=True)
class Tier:
    """What a build of this tier may do with each shared cache, and how it builds."""

    name: str
    store: Access          # the compiler cache's shared store (ccache or sccache)
    layers: Access         # the registry layer cache (cache-from, cache-to)
    export: bool           # CACHE_EXPORT where the build does not set it
    no_cache: bool         # no layer of an earlier build either (--no-cache): every step runs
    who: str               # the builds that run in it

    def line(self) -> str:
        """One line for a build's report: the tier, what it may do, who runs in it."""
        fresh = "; every step run anew (--no-cache)" if self.no_cache else ""
        return (f"{self.name}: compiler cache store {_WORDS[self.store]}, registry layer "
                f"cache {_WORDS[self.layers]}{fresh} ({self.who})")


_WORDS: dict[Access, str] = {"read-write": "read and written", "read": "read only",
                             "none": "not used"}

TIERS = {tier.name: tier for tier in (
    Tier("dev", "read-write", "read-write", export=False, no_cache=False,
         who="a build no lane runs: every cache as its variables say"),
    Tier("pr", "read", "read", export=False, no_cache=False,
         who="a pull request from this repository"),
    Tier("fork-pr", "none", "none", export=False, no_cache=False,
         who="a pull request from a fork: no credentials exist there"),
    Tier("trusted", "read-write", "read-write", export=True, no_cache=False,
         who="a push to main, the nightly"),
    Tier("release", "none", "none", export=False, no_cache=True,
         who="a release: nothing it ships comes from a cache"),
)}


class Variables(Protocol):
    """What the tier reads of an evaluated bake file (bakefile.Definition)."""

    def variables(self) -> Sequence[object]: ...

    def value(self, name: str) -> object: ...

    @property
    def env(self) -> Mapping[str, str]: ...


def named(name: str) -> Tier:
    """The tier called ``name``; an unknown one is one line naming the tiers."""
    if name not in TIERS:
        raise UsageError(f"unknown tier {name!r}: expected {', '.join(TIERS)}")
    return TIERS[name]


def _declared(definition: Variables) -> set[str]:
    return {str(getattr(v, "name", "")) for v in definition.variables()}


def _value(definition: Variables, name: str) -> str:
    """A declared variable's value as text ("" when undeclared or unset)."""
    if name not in _declared(definition):
        return ""
    value = definition.value(name)
    return "" if value is None else str(value)


def _set(definition: Variables, name: str) -> bool:
    """Did the build set ``name`` (--set or the environment), rather than take its default?"""
    return name in definition.env


def of(definition: Variables, requested: str = "") -> Tier:
    """The build's tier: ``requested`` (--tier), else the bake file's CACHE_TIER (which the
    environment may set), else dev."""
    return named(requested or _value(definition, VARIABLE) or DEFAULT)


def settings(tier: Tier, definition: Variables) -> dict[str, str]:
    """The bake variables the tier sets where the build does not: CACHE_EXPORT (true for
    trusted, false where the layer cache may not be written) and CACHE_READ_ONLY (true for
    pr), each only when the bake file declares it."""
    if tier.name == DEFAULT:
        return {}
    wanted = {"CACHE_EXPORT": "true" if tier.export else "false"}
    if tier.store == "read":
        wanted["CACHE_READ_ONLY"] = "true"
    declared = _declared(definition)
    return {name: value for name, value in wanted.items()
            if name in declared and not _set(definition, name)}


# The variables that name a shared compiler-cache store (a tool-neutral one, or its deprecated
# alias in a bake file that declares only that).
_STORE_VARIABLES = (("CACHE_STORE", "SCCACHE_BACKEND"), ("CACHE_STORE_URL", "SCCACHE_WEBDAV_URL"),
                    ("SCCACHE_S3_BUCKET", ""), ("SCCACHE_S3_ENDPOINT", ""),
                    ("CACHE_SECRET_FILE", "SCCACHE_SECRET_FILE"))


def _store_settings(definition: Variables) -> list[str]:
    """``NAME=value`` of every variable that names a shared store (CACHE_STORE=none does not)."""
    found = []
    for name, alias in _STORE_VARIABLES:
        value = _value(definition, name) or (_value(definition, alias) if alias else "")
        if value and not (name == "CACHE_STORE" and value == "none"):
            found.append(f"{name}={redact.text(value)}")
    return found


_STORE = "the compiler cache's shared store"
_LAYERS = "the registry layer cache"


def _refused(what: str, tier: Tier, cache: str) -> CacheError:
    """The one line that refuses ``what``: the tier, what it may do with ``cache``, and who
    runs in it."""
    access = tier.store if cache == _STORE else tier.layers
    may = "may only read" if access == "read" else "may not use"
    return CacheError(f"{what}: tier {tier.name} {may} {cache} ({tier.who})")


def check(tier: Tier, definition: Variables, target_overrides: Sequence[str] = ()) -> None:
    """Refuse, in one line naming the setting and the tier, a build that would use a shared
    cache beyond its tier: a store named where the tier uses none; the store made writable
    (CACHE_READ_ONLY=false, a hand-written secret that writes) where it may only read it; the
    layer cache written (CACHE_EXPORT=true, --set TARGET.cache-to) or read (--set
    TARGET.cache-from) where the tier may not. Call it after :func:`settings` is applied."""
    if tier.store == "none":
        named_store = _store_settings(definition)
        if named_store:
            raise _refused(", ".join(named_store), tier, _STORE)
    elif tier.store == "read":
        _check_read_only_store(tier, definition)
    if tier.layers != "read-write" and _value(definition, "CACHE_EXPORT").lower() == "true":
        raise _refused("CACHE_EXPORT=true", tier, _LAYERS)
    for item in target_overrides:
        key, _, value = item.partition("=")
        field = key.rsplit(".", 1)[-1]
        writes = field == "cache-to" and tier.layers != "read-write"
        reads = field == "cache-from" and tier.layers == "none"
        if value and (writes or reads):
            raise _refused(f"--set {redact.text(item)}", tier, _LAYERS)


def _check_read_only_store(tier: Tier, definition: Variables) -> None:
    if _set(definition, "CACHE_READ_ONLY") and \
            _value(definition, "CACHE_READ_ONLY").lower() == "false":
        raise _refused("CACHE_READ_ONLY=false", tier, _STORE)
    path = _value(definition, "CACHE_SECRET_FILE") or _value(definition, "SCCACHE_SECRET_FILE")
    if path:
        found = cache_secret.read_secret(Path(path))
        if has_store(found) and not is_read_only(found):
            raise _refused(f"CACHE_SECRET_FILE={path} (its settings write the store)", tier, _STORE)


def overrides(tier: Tier) -> list[str]:
    """The ``--set`` overrides that drop every shared layer cache the tier may not use from
    every target of the plan (a bake file's own cache-to, or cache-from)."""
    out = [] if tier.layers == "read-write" else ["*.cache-to="]
    if tier.layers == "none":
        out.append("*.cache-from=")
    return out
