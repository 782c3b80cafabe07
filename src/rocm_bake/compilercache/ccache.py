"""ccache, the tool: its HTTP remote storage on the compiler cache's WebDAV store (ccache has
no S3 store)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from rocm_bake.compilercache.store import CacheError, Store


def settings(store: Store, credentials: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CCACHE_* settings of this store for ccache (CACHE_TYPE=ccache): its HTTP
    remote storage on the WebDAV store, under ``<key prefix>/ccache`` (beside sccache's
    objects, never mixed with them), ``read-only`` for pull requests; WebDAV credentials
    go into the URL (the secret is the only place it is written)."""
    if store.kind != "webdav":
        raise CacheError(f"CACHE_TYPE=ccache shares its cache only over HTTP: the {store.kind} "
                         "backend is sccache's; use a WebDAV store (CACHE_STORE=webdav)")
    scheme, _, rest = store.endpoint.rstrip("/").partition("://")
    found = credentials or {}
    user = found.get("SCCACHE_WEBDAV_USERNAME", "")
    password = found.get("SCCACHE_WEBDAV_PASSWORD", "")
    auth = f"{quote(user, safe='')}:{quote(password, safe='')}@" if user else ""
    url = f"{scheme}://{auth}{rest}/{store.key_prefix}/ccache"
    return {"CCACHE_REMOTE_STORAGE": url + ("|read-only" if store.read_only else "")}
