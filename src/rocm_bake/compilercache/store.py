"""The compiler cache's shared store, tool-neutral: a WebDAV endpoint or an S3 bucket (S3 is
sccache's only), per environment ``ci``/``dev``/``nightly``/``prerelease`` with the key prefix
``<os>/<arch>/``, read-write or read-only for pull requests (:class:`Store`)."""

from __future__ import annotations

import platform
from collections.abc import Mapping
from dataclasses import dataclass, field

from rocm_bake.core import redact
from rocm_bake.core.errors import RocmBakeError

ENVIRONMENTS = ("ci", "dev", "nightly", "prerelease")


BACKENDS = ("webdav", "s3", "disk")


class CacheError(RocmBakeError):
    """A cache backend the build asked for cannot be used (one line, said before the build)."""


@dataclass(frozen=True)
class Store:
    """The compiler cache's shared level. ``endpoint`` is the WebDAV base URL (``kind="webdav"``) or
    the S3 endpoint (``kind="s3"``, optional for AWS); ``bucket`` the S3 bucket *base*: the
    bucket used is ``<bucket>-<environment>``, objects under ``<os>/<arch>/``. A WebDAV store is
    one tree, so there the environment is the first level of the key prefix
    (``<environment>/<os>/<arch>/``): sccache (opendal) creates the collections under its
    endpoint but never the endpoint itself, and a missing one makes it silently read-only.
    ``namespace`` (optional) goes before all of it (a project, or one test run). ``read_only``
    is the pull-request mode."""

    kind: str
    environment: str = "dev"
    endpoint: str = ""
    bucket: str = ""
    region: str = ""
    read_only: bool = False
    namespace: str = ""
    os_name: str = "linux"
    arch: str = field(default_factory=platform.machine)

    def __post_init__(self) -> None:
        if self.kind not in BACKENDS:
            raise CacheError(f"sccache backend must be one of {', '.join(BACKENDS)}, "
                             f"got {self.kind!r}")
        if self.environment not in ENVIRONMENTS:
            raise CacheError(f"cache environment must be one of {', '.join(ENVIRONMENTS)}, "
                             f"got {self.environment!r}")
        if self.kind == "webdav" and not self.endpoint.startswith(("http://", "https://")):
            raise CacheError(f"the WebDAV backend needs an http(s) endpoint, "
                             f"got {self.endpoint!r}")
        if self.kind == "s3" and not self.bucket:
            raise CacheError("the S3 backend needs a bucket")

    @property
    def key_prefix(self) -> str:
        parts = [self.namespace.strip("/")] if self.namespace else []
        if self.kind == "webdav":
            parts.append(self.environment)
        return "/".join([*parts, self.os_name, self.arch])

    @property
    def location(self) -> str:
        """Where the objects go, for messages (no credentials in it)."""
        if self.kind == "webdav":
            return f"{self.endpoint.rstrip('/')}/{self.key_prefix}/"
        if self.kind == "s3":
            return f"s3://{self.bucket}-{self.environment}/{self.key_prefix}/"
        return "local disk"


def describe(settings: Mapping[str, str]) -> str:
    """The backend a set of settings selects, for messages (never a credential)."""
    if "SCCACHE_WEBDAV_ENDPOINT" in settings:
        return f"WebDAV {settings['SCCACHE_WEBDAV_ENDPOINT']}"
    if "CCACHE_REMOTE_STORAGE" in settings:             # its URL: no attribute (a token)
        url = settings["CCACHE_REMOTE_STORAGE"].split("|", 1)[0]
        return f"ccache HTTP {redact.text(url)}"
    if "SCCACHE_BUCKET" in settings:
        where = settings.get("SCCACHE_ENDPOINT", "")
        return f"S3 bucket {settings['SCCACHE_BUCKET']}" + (f" at {where}" if where else "")
    return "local disk"


def is_read_only(settings: Mapping[str, str]) -> bool:
    return (any(settings.get(k, "").upper() == "READ_ONLY"
                for k in ("SCCACHE_WEBDAV_RW_MODE", "SCCACHE_S3_RW_MODE"))
            or settings.get("CCACHE_REMOTE_STORAGE", "").endswith("|read-only"))


def has_store(settings: Mapping[str, str]) -> bool:
    """Do these settings name a shared store (not the local disk only)?"""
    return any(key in settings for key in ("SCCACHE_WEBDAV_ENDPOINT", "SCCACHE_BUCKET",
                                           "CCACHE_REMOTE_STORAGE"))
