"""An OCI distribution registry over its HTTP API (``/v2/``): image references, manifests,
blobs (read whole, or streamed), blob uploads and manifest pushes, the catalog and tag lists.

Only what the provenance of pushed images needs (:mod:`rocm_bake.provenance`); every failure is
a :class:`RegistryError` naming the registry, the request and its status, on one line. A
loopback registry (127.0.0.1, localhost, ::1) is spoken to over http, any other over https.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import requests

from rocm_bake import redact
from rocm_bake.errors import RocmBakeError, UsageError

TIMEOUT = 60.0
INDEX_TYPES = ("application/vnd.oci.image.index.v1+json",
               "application/vnd.docker.distribution.manifest.list.v2+json")
IMAGE_TYPES = ("application/vnd.oci.image.manifest.v1+json",
               "application/vnd.docker.distribution.manifest.v2+json")
ACCEPT = ", ".join((*INDEX_TYPES, *IMAGE_TYPES))
_LOOPBACK = ("127.", "localhost", "[::1]")
_REPOSITORY = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class RegistryError(RocmBakeError):
    """The registry refused or could not answer a request."""


@dataclass(frozen=True)
class Reference:
    """``HOST[:PORT]/REPOSITORY[:TAG][@DIGEST]``: always with its registry host."""

    host: str
    repository: str
    tag: str = ""
    digest: str = ""

    @classmethod
    def parse(cls, text: str) -> Reference:
        rest, _, digest = text.partition("@")
        host, slash, path = rest.partition("/")
        if not slash or not ("." in host or ":" in host or host == "localhost"):
            raise UsageError(f"image {text!r} must name its registry: HOST[:PORT]/REPOSITORY"
                             "[:TAG][@sha256:DIGEST]")
        repository, _, tag = path.rpartition(":") if ":" in path else (path, "", "")
        if not _REPOSITORY.match(repository):
            raise UsageError(f"image {text!r}: {repository!r} is not a repository name")
        if tag and not _TAG.match(tag):
            raise UsageError(f"image {text!r}: {tag!r} is not a tag")
        if digest and not _DIGEST.match(digest):
            raise UsageError(f"image {text!r}: {digest!r} is not a sha256 digest")
        if not tag and not digest:
            tag = "latest"
        return cls(host, repository, tag, digest)

    @property
    def ref(self) -> str:
        """What the manifest is asked for by: the digest when given, else the tag."""
        return self.digest or self.tag

    def __str__(self) -> str:
        return (f"{self.host}/{self.repository}" + (f":{self.tag}" if self.tag else "")
                + (f"@{self.digest}" if self.digest else ""))


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Registry:
    """One registry host; ``session`` may carry credentials (never printed)."""

    def __init__(self, host: str, session: requests.Session | None = None,
                 timeout: float = TIMEOUT) -> None:
        self.host = host
        scheme = "http" if host.startswith(_LOOPBACK) else "https"
        self.base = f"{scheme}://{host}/v2/"
        self.session = session or requests.Session()
        self.timeout = timeout

    def _request(self, method: str, path: str, ok: tuple[int, ...] = (200,),
                 **kwargs: Any) -> requests.Response:
        what = f"registry {self.host}: {method} /v2/{path}"
        try:
            response = self.session.request(method, self.base + path, timeout=self.timeout,
                                            **kwargs)
        except requests.ConnectionError:
            raise RegistryError(f"{what}: cannot connect (is the registry running?)") from None
        except requests.RequestException as exc:
            raise RegistryError(f"{what}: {redact.text(str(exc))}") from None
        if response.status_code not in ok:
            raise RegistryError(f"{what}: {response.status_code} {_reason(response)}")
        return response

    # ------------------------------------------------------------------ reading

    def manifest(self, repository: str, ref: str) -> tuple[dict[str, Any], str]:
        """The manifest (index or image) and its digest."""
        response = self._request("GET", f"{repository}/manifests/{ref}",
                                 headers={"Accept": ACCEPT})
        body = response.content
        digest = digest_of(body)
        if ref.startswith("sha256:") and digest != ref:
            raise RegistryError(f"registry {self.host}: manifest {repository}@{ref} "
                                f"has digest {digest}")
        return json.loads(body), digest

    def blob(self, repository: str, digest: str) -> bytes:
        """A blob, checked against its digest."""
        data = self._request("GET", f"{repository}/blobs/{digest}").content
        if digest_of(data) != digest:
            raise RegistryError(f"registry {self.host}: blob {repository}@{digest} does not "
                                "match its digest")
        return data

    def open_blob(self, repository: str, digest: str) -> requests.Response:
        """A blob as a stream (``response.raw``), for reading only part of a large layer; the
        caller closes it."""
        return self._request("GET", f"{repository}/blobs/{digest}", stream=True)

    def repositories(self) -> list[str]:
        return self._pages("_catalog?n=1000", "repositories")

    def tags(self, repository: str) -> list[str]:
        return self._pages(f"{repository}/tags/list", "tags")

    def _pages(self, path: str, key: str) -> list[str]:
        """A listing, every page of it (the ``Link: <...>; rel="next"`` header)."""
        out: list[str] = []
        while path:
            response = self._request("GET", path)
            out += [str(item) for item in response.json().get(key) or []]
            following = response.links.get("next", {}).get("url", "")
            path = following.split("/v2/", 1)[1] if "/v2/" in following else ""
        return out

    # ------------------------------------------------------------------ writing

    def put_blob(self, repository: str, data: bytes) -> str:
        """Upload a blob (monolithic: POST, then PUT with its digest); its digest."""
        digest = digest_of(data)
        exists = self._request("HEAD", f"{repository}/blobs/{digest}", ok=(200, 404))
        if exists.status_code == 200:
            return digest
        started = self._request("POST", f"{repository}/blobs/uploads/", ok=(202,))
        location = started.headers.get("Location", "")
        if not location:
            raise RegistryError(f"registry {self.host}: blob upload to {repository} gave no "
                                "Location")
        url = requests.compat.urljoin(self.base, location)
        separator = "&" if "?" in url else "?"
        try:
            done = self.session.put(f"{url}{separator}digest={digest}", data=data,
                                    headers={"Content-Type": "application/octet-stream"},
                                    timeout=self.timeout)
        except requests.RequestException as exc:
            raise RegistryError(f"registry {self.host}: blob upload to {repository}: "
                                f"{redact.text(str(exc))}") from None
        if done.status_code != 201:
            raise RegistryError(f"registry {self.host}: blob upload to {repository}: "
                                f"{done.status_code} {_reason(done)}")
        return digest

    def put_manifest(self, repository: str, ref: str, manifest: dict[str, Any]) -> str:
        """Push a manifest under ``ref`` (a tag, or its own digest); its digest."""
        body = canonical(manifest)
        self._request("PUT", f"{repository}/manifests/{ref}", ok=(201,), data=body,
                      headers={"Content-Type": str(manifest["mediaType"])})
        return digest_of(body)


def canonical(document: dict[str, Any]) -> bytes:
    """The bytes a manifest or statement is stored as (compact, keys in order)."""
    return json.dumps(document, separators=(",", ":"), sort_keys=True).encode()


def platform_images(index: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The image descriptors of an index (not its attestation manifests)."""
    for entry in index.get("manifests") or []:
        annotations = entry.get("annotations") or {}
        if annotations.get("vnd.docker.reference.type") != "attestation-manifest":
            yield entry


def _reason(response: requests.Response) -> str:
    try:
        errors = response.json().get("errors") or []
        if errors:
            return str(errors[0].get("message") or errors[0].get("code"))
    except ValueError:
        pass
    return response.reason or "error"
