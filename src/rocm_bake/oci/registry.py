"""An OCI distribution registry over its HTTP API (``/v2/``): image references, manifests,
blobs (read whole, or streamed), blob uploads and manifest pushes, the catalog and tag lists.

Only what the provenance of pushed images needs (:mod:`rocm_bake.oci.provenance`); every failure is
a :class:`RegistryError` naming the registry, the request and its status, on one line. A
loopback registry (127.0.0.1, localhost, ::1) is spoken to over http, any other over https.
Credentials are the ones ``docker login`` stored for the host (``$DOCKER_CONFIG/config.json``,
``auths``): sent as Basic authorization, or exchanged for a bearer token when the registry asks
for one; they stay in memory and never print.

Every answer read whole (a manifest, a blob, a listing) is read through
:class:`rocm_bake.net.body.Reader`: within ``timeout`` for the request (and what is left of
``run``, the caller's whole run, when that ends first) on ``clock``, and at most ``max_bytes``.
A manifest is trusted (its digest given) only when it is one: JSON, an object, of an index's or
an image manifest's media type and form.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter

from rocm_bake.core import redact
from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import RocmBakeError, UsageError
from rocm_bake.net.body import MAX_BYTES, Reader, Window
from rocm_bake.net.errors import (
    NetError,
    TimeoutExceededError,
    TooLargeError,
    duration,
    megabytes,
)
from rocm_bake.net.watchdog import Sockets, watch

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


def docker_credentials(host: str, env: Mapping[str, str] | None = None
                       ) -> tuple[str, str] | None:
    """(user, password) ``docker login`` stored for ``host`` in ``$DOCKER_CONFIG/config.json``
    (else ``~/.docker``), or None. A credential helper's entry is not read."""
    environ = os.environ if env is None else env
    config = Path(environ.get("DOCKER_CONFIG") or Path(environ.get("HOME", "/root")) / ".docker")
    try:
        auths = json.loads((config / "config.json").read_text(encoding="utf-8")).get("auths")
    except (OSError, ValueError, AttributeError):
        return None
    entry = auths.get(host) if isinstance(auths, dict) else None
    if not isinstance(entry, dict) or not entry.get("auth"):
        return None
    try:
        user, _, password = base64.b64decode(str(entry["auth"])).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (user, password) if user else None


class Registry:
    """One registry host; ``credentials`` (user, password), by default docker login's."""

    def __init__(self, host: str, session: requests.Session | None = None,
                 timeout: float = TIMEOUT, credentials: tuple[str, str] | None = None,
                 clock: Clock = SYSTEM, run: Window | None = None,
                 max_bytes: int = MAX_BYTES) -> None:
        self.host = host
        scheme = "http" if host.startswith(_LOOPBACK) else "https"
        self.base = f"{scheme}://{host}/v2/"
        self._sockets = Sockets()
        self.session = session or _watched_session(self._sockets)
        self.timeout = timeout
        self.clock = clock
        self.run = run
        self.max_bytes = max_bytes
        self._credentials = credentials or docker_credentials(host)
        self._authorization: dict[str, str] = {}     # the header a challenge asked for

    def _request(self, method: str, path: str, ok: tuple[int, ...] = (200,),
                 **kwargs: Any) -> requests.Response:
        response = self._send(method, path, **kwargs)
        if response.status_code == 401 and self._answer(response):
            response.close()
            response = self._send(method, path, **kwargs)
        if response.status_code not in ok:
            raise RegistryError(f"registry {self.host}: {method} /v2/{path}: "
                                f"{response.status_code} {_reason(response)}")
        return response

    def _answer(self, response: requests.Response) -> bool:
        """Authorization for a 401's challenge (Basic, or a bearer token from its realm); False
        when there is nothing to answer it with."""
        challenge = response.headers.get("WWW-Authenticate", "")
        scheme, _, rest = challenge.partition(" ")
        if scheme.lower() == "basic" and self._credentials:
            token = base64.b64encode(":".join(self._credentials).encode()).decode()
            self._authorization = {"Authorization": f"Basic {token}"}
            return True
        if scheme.lower() != "bearer":
            return False
        fields = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        realm = fields.pop("realm", "")
        if not realm:
            return False
        try:
            answer = self._get_realm(realm, fields)
            token = answer.json().get("token") or answer.json().get("access_token")
        except (requests.RequestException, ValueError, AttributeError, RegistryError):
            return False
        if answer.status_code != 200 or not token:
            return False
        self._authorization = {"Authorization": f"Bearer {token}"}
        return True

    def _window(self) -> Window:
        """One request's time: ``timeout``, or what is left of the run when that is less."""
        seconds = self.timeout if self.run is None else min(self.timeout, self.run.left())
        return Window(max(0.05, seconds), self.clock)

    def _send(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """The answer, its body read within the request's time and ``max_bytes`` unless
        ``stream`` asks for it unread."""
        what = f"registry {self.host}: {method} /v2/{path}"
        headers = {**kwargs.pop("headers", {}), **self._authorization}
        stream = kwargs.pop("stream", False)
        window = self._window()
        if window.passed():
            raise RegistryError(f"{what}: timed out after {duration(window.seconds)}")
        try:
            with watch(window, self._sockets):   # headers that trickle in end at the window
                response = self.session.request(method, self.base + path,
                                                timeout=window.left(), headers=headers,
                                                stream=True, **kwargs)
        except requests.ConnectionError as exc:
            if isinstance(exc, requests.ReadTimeout) or window.passed():
                raise RegistryError(f"{what}: timed out after {duration(window.seconds)}") from None
            raise RegistryError(f"{what}: cannot connect (is the registry running?)") from None
        except requests.Timeout:
            raise RegistryError(f"{what}: timed out after {duration(window.seconds)}") from None
        except requests.RequestException as exc:
            raise RegistryError(f"{what}: {redact.text(str(exc))}") from None
        if window.passed():   # the watchdog shut it mid-headers: whatever parsed is no answer
            response.close()
            raise RegistryError(f"{what}: timed out after {duration(window.seconds)}")
        if not stream:
            _read_whole(response, window, self.max_bytes, self.base + path, what)
        return response

    def _get_realm(self, realm: str, fields: dict[str, str]) -> requests.Response:
        """The token service's answer, read like every other."""
        window = self._window()
        with watch(window, self._sockets):
            answer = self.session.get(realm, params=fields, auth=self._credentials,
                                      timeout=window.left(), stream=True)
        _read_whole(answer, window, self.max_bytes, realm, f"token service {realm}")
        return answer

    # ------------------------------------------------------------------ reading

    def manifest(self, repository: str, ref: str) -> tuple[dict[str, Any], str]:
        """The manifest (index or image) and its digest; a body that is not a manifest (not
        JSON, not an object, not of a manifest's media type and form) is an error, never a
        digest."""
        response = self._request("GET", f"{repository}/manifests/{ref}",
                                 headers={"Accept": ACCEPT})
        body = response.content
        where = f"registry {self.host}: manifest {repository}:{ref}" if not \
            ref.startswith("sha256:") else f"registry {self.host}: manifest {repository}@{ref}"
        document = manifest_document(body, response.headers.get("Content-Type", ""), where)
        digest = digest_of(body)
        if ref.startswith("sha256:") and digest != ref:
            raise RegistryError(f"{where} has digest {digest}")
        return document, digest

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
            try:
                items = response.json().get(key) or []
            except (ValueError, AttributeError):
                raise RegistryError(f"registry {self.host}: GET /v2/{path}: not a JSON object") \
                    from None
            if not isinstance(items, list):
                raise RegistryError(f"registry {self.host}: GET /v2/{path}: {key} is not a list")
            out += [str(item) for item in items]
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
                                    headers={"Content-Type": "application/octet-stream",
                                             **self._authorization},
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


def manifest_document(body: bytes, content_type: str, where: str) -> dict[str, Any]:
    """``body`` as a manifest: JSON, an object, schemaVersion 2, an index (``manifests``, each
    with a digest) or an image manifest (``config`` with a digest, ``layers``) by its
    ``mediaType``, else by the answer's Content-Type; RegistryError naming what it is not."""
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise RegistryError(f"{where}: not JSON ({len(body)} bytes): not a manifest") from None
    if not isinstance(document, dict):
        raise RegistryError(f"{where}: JSON {type(document).__name__}, not a manifest object")
    kind = document.get("mediaType") or content_type.split(";", maxsplit=1)[0].strip()
    if document.get("schemaVersion") != 2 or kind not in (*INDEX_TYPES, *IMAGE_TYPES):
        raise RegistryError(f"{where}: not an image manifest or index (schemaVersion "
                            f"{document.get('schemaVersion')!r}, media type {kind!r})")
    if kind in INDEX_TYPES:
        entries = document.get("manifests")
        good = isinstance(entries, list) and all(
            isinstance(e, dict) and _DIGEST.match(str(e.get("digest", ""))) for e in entries)
    else:
        config = document.get("config")
        good = isinstance(config, dict) and bool(_DIGEST.match(str(config.get("digest", "")))) \
            and isinstance(document.get("layers"), list)
    if not good:
        raise RegistryError(f"{where}: a {kind} without the form of one")
    return document


def _read_whole(response: requests.Response, window: Window, max_bytes: int, url: str,
                what: str) -> None:
    """The body of a streamed answer read within ``window`` and ``max_bytes``, kept as its
    content (``response.content``, ``.json()``)."""
    raw = response.raw
    sock = getattr(getattr(raw, "connection", None), "sock", None)
    read = getattr(raw, "read1", None) or raw.read   # urllib3 2: what is there; 1: up to size

    def read1(size: int) -> bytes:   # no blocking read outlasts the window
        if sock is not None:
            sock.settimeout(max(0.001, window.left()))
        return bytes(read(size))

    gzip = response.headers.get("Content-Encoding", "").strip().lower() == "gzip"
    try:
        body = Reader(read1, url, window, max_bytes, gzip).read()
    except TimeoutExceededError:
        response.close()
        raise RegistryError(f"{what}: timed out after {duration(window.seconds)}") from None
    except TooLargeError:
        response.close()
        raise RegistryError(f"{what}: answer over {megabytes(max_bytes)}") from None
    except NetError as exc:
        response.close()
        raise RegistryError(f"{what}: {exc}") from None
    except Exception as exc:   # urllib3's timeouts and protocol errors
        response.close()
        if window.passed() or "timed out" in str(exc):
            raise RegistryError(f"{what}: timed out after {duration(window.seconds)}") from None
        raise RegistryError(f"{what}: {type(exc).__name__}") from None
    response._content = body


def _watched_session(sockets: Sockets) -> requests.Session:
    """A session whose every connection's socket is recorded in ``sockets``, for the
    watchdog of each request (a proxy's connections are not: per-read timeouts bound them)."""
    session = requests.Session()
    for prefix in ("http://", "https://"):
        session.mount(prefix, _WatchedAdapter(sockets))
    return session


class _WatchedAdapter(HTTPAdapter):
    def __init__(self, sockets: Sockets) -> None:
        self._sockets = sockets
        super().__init__()

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False,
                         **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _recording_pool(urllib3.HTTPConnectionPool, self._sockets),
            "https": _recording_pool(urllib3.HTTPSConnectionPool, self._sockets)}


def _recording_pool(pool: type[urllib3.HTTPConnectionPool], sockets: Sockets,
                    ) -> type[urllib3.HTTPConnectionPool]:
    base = pool.ConnectionCls

    class Connection(base):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            super().connect()
            sockets.add(self.sock)

    return type(f"Watched{pool.__name__}", (pool,), {"ConnectionCls": Connection})


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
