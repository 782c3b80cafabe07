"""Inspect the fleet's shared services — the OCI registry and the WebDAV store for sccache —
with read requests only. rocm-bake never starts, stops or configures them."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import requests

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PROPFIND"})
TIMEOUT = 5.0
MANIFEST_TYPES = ", ".join([
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
])
_QUOTA_BODY = ('<?xml version="1.0"?><propfind xmlns="DAV:"><prop>'
               "<quota-available-bytes/><quota-used-bytes/></prop></propfind>")


@dataclass(frozen=True)
class Probe:
    """One check of one service: did it answer as expected, what it said, how fast."""

    service: str
    check: str
    ok: bool
    detail: str
    latency_ms: float | None = None


class ReadOnlySession(requests.Session):
    """A session that refuses to send anything but read requests, by construction."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any,
                **kwargs: Any) -> requests.Response:
        verb = method.decode() if isinstance(method, bytes) else method
        if verb.upper() not in READ_METHODS:
            raise PermissionError(f"services inspection never sends {verb} requests")
        return super().request(method, url, *args, **kwargs)


def _timed(service: str, check: str, call: Callable[[], requests.Response],
           judge: Callable[[requests.Response], tuple[bool, str]]) -> Probe:
    start = time.perf_counter()
    try:
        response = call()
    except requests.RequestException as exc:
        return Probe(service, check, False, f"unreachable: {_reason(exc)}")
    latency = (time.perf_counter() - start) * 1000
    ok, detail = judge(response)
    return Probe(service, check, ok, detail, latency)


def _reason(exc: requests.RequestException) -> str:
    text = str(exc)
    for marker in ("Connection refused", "timed out", "Name or service not known"):
        if marker in text:
            return marker.lower()
    return type(exc).__name__


def registry(session: ReadOnlySession, url: str, image: str | None = None) -> list[Probe]:
    """``/v2/`` ping, the catalog, and (optionally) one image's manifest."""
    probes = [_timed("registry", "ping /v2/", lambda: session.get(urljoin(url, "v2/"),
                                                                   timeout=TIMEOUT),
                     _ping_verdict)]
    if not probes[0].ok:
        return probes
    probes.append(_timed("registry", "catalog",
                         lambda: session.get(urljoin(url, "v2/_catalog?n=1000"), timeout=TIMEOUT),
                         _catalog_verdict))
    if image:
        repository, _, tag = image.rpartition(":") if ":" in image else (image, "", "latest")
        probes.append(_timed(
            "registry", f"manifest {repository}:{tag}",
            lambda: session.head(urljoin(url, f"v2/{repository}/manifests/{tag}"),
                                 headers={"Accept": MANIFEST_TYPES}, timeout=TIMEOUT),
            _manifest_verdict))
    return probes


def _ping_verdict(response: requests.Response) -> tuple[bool, str]:
    if response.status_code == 200:
        return True, "OCI distribution API v2"
    if response.status_code == 401:
        return True, "OCI distribution API v2 (authentication required)"
    return False, f"HTTP {response.status_code}: not an OCI registry"


def _catalog_verdict(response: requests.Response) -> tuple[bool, str]:
    if response.status_code != 200:
        return False, f"HTTP {response.status_code}"
    try:
        repositories = response.json().get("repositories") or []
    except ValueError:
        return False, "catalog is not JSON"
    return True, f"{len(repositories)} repositories"


def _manifest_verdict(response: requests.Response) -> tuple[bool, str]:
    if response.status_code != 200:
        return False, f"HTTP {response.status_code}: no such image"
    digest = response.headers.get("Docker-Content-Digest", "")
    return True, digest or response.headers.get("Content-Type", "present")


def webdav(session: ReadOnlySession, url: str) -> list[Probe]:
    """OPTIONS (is it writable, does it speak PROPFIND) and a PROPFIND of the root."""
    probes = [_timed("webdav", "OPTIONS", lambda: session.options(url, timeout=TIMEOUT),
                     _options_verdict)]
    if probes[0].detail.startswith("unreachable"):
        return probes
    probes.append(_timed(
        "webdav", "PROPFIND",
        lambda: session.request("PROPFIND", url, data=_QUOTA_BODY,
                                headers={"Depth": "0", "Content-Type": "application/xml"},
                                timeout=TIMEOUT),
        _propfind_verdict))
    return probes


def _options_verdict(response: requests.Response) -> tuple[bool, str]:
    allowed = {m.strip().upper() for m in response.headers.get("Allow", "").split(",") if m}
    if response.status_code >= 400:
        return False, f"HTTP {response.status_code}"
    if "PROPFIND" not in allowed:
        return False, ("PROPFIND not allowed: sccache would silently turn read-only "
                       "(nginx needs the dav-ext module: dav_ext_methods PROPFIND OPTIONS)")
    writable = "PUT" in allowed
    return True, "read-write" if writable else "read-only (no PUT)"


def _propfind_verdict(response: requests.Response) -> tuple[bool, str]:
    if response.status_code != 207:
        return False, f"HTTP {response.status_code} (expected 207 Multi-Status)"
    free = re.search(r"quota-available-bytes[^>]*>(\d+)<", response.text)
    if free:
        return True, f"{int(free.group(1)) / 2**30:.1f} GiB free"
    return True, "multi-status (free space not exposed)"
