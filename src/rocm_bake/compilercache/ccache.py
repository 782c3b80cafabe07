"""ccache, the tool: its HTTP remote storage on the compiler cache's WebDAV store (ccache has
no S3 store)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from rocm_bake.compilercache.store import CacheError, Store


def settings(store: Store, credentials: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CCACHE_* settings of this store for ccache (CACHE_TYPE=ccache): its HTTP
    remote storage on the WebDAV store, under ``<key prefix>/ccache`` (beside sccache's
    objects, never mixed with them), ``read-only`` for pull requests. The store's credentials
    (tool-neutral names): CACHE_STORE_USER and CACHE_STORE_PASSWORD go into the URL,
    CACHE_STORE_TOKEN into its ``bearer-token`` attribute (the secret is the only place it is
    written)."""
    if store.kind != "webdav":
        raise CacheError(f"CACHE_TYPE=ccache shares its cache only over HTTP: the {store.kind} "
                         "backend is sccache's; use a WebDAV store (CACHE_STORE=webdav)")
    scheme, _, rest = store.endpoint.rstrip("/").partition("://")
    found = credentials or {}
    user = found.get("CACHE_STORE_USER", "")
    password = found.get("CACHE_STORE_PASSWORD", "")
    token = found.get("CACHE_STORE_TOKEN", "")
    auth = f"{quote(user, safe='')}:{quote(password, safe='')}@" if user else ""
    attributes = [f"bearer-token={quote(token, safe='')}"] if token else []
    if store.read_only:
        attributes.append("read-only")
    url = f"{scheme}://{auth}{rest}/{store.key_prefix}/ccache"
    return {"CCACHE_REMOTE_STORAGE": "|".join([url, *attributes])}
