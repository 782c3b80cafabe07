"""One HTTP GET through the standard library's ``urllib.request``, bounded: proxies from the
environment (``https_proxy``, ``no_proxy``), the certificate authorities requests would trust
(``REQUESTS_CA_BUNDLE`` or ``CURL_CA_BUNDLE`` when set, else certifi's bundle), at most
``MAX_REDIRECTS`` redirects (an ``Authorization`` header never follows one to another origin),
gzip, and for the whole request ``timeout`` and a size cap:

- the body is read as it streams in (``body.Reader``): every read is checked against the
  request's end on the injected clock, and the answer against ``max_bytes``;
- a watchdog on the real clock shuts the connection at the end, so a read that blocks (a
  server that connected and stalls, headers that trickle in) is cut there, not at a
  per-read socket timeout that each trickled byte would restart.

The checker makes a handful of requests per run, most of them in parallel to different hosts,
so a keep-alive pool buys nothing; importing ``urllib.request`` costs about a third of what
importing requests does, and start-up is most of a warm run.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import os
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from typing import IO, Any

import certifi

from rocm_bake.core import redact
from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.net.body import MAX_BYTES, Reader, Window
from rocm_bake.net.credentials import same_origin
from rocm_bake.net.errors import (
    ConnectionFailedError,
    RedirectLoopError,
    TimeoutExceededError,
    TooLargeError,
    short_reason,
)
from rocm_bake.net.watchdog import Sockets, watch

__all__ = ["MAX_BYTES", "MAX_REDIRECTS", "Answer", "ConnectionFailedError", "RedirectLoopError",
           "Response", "TimeoutExceededError", "TooLargeError", "get", "open_url"]

MAX_REDIRECTS = 10
_NEXT = re.compile(r'<([^>]*)>[^,]*;\s*rel="?next"?')


@dataclass(frozen=True)
class Response:
    status: int
    reason: str
    headers: Message
    text: str

    @property
    def next_url(self) -> str:
        """The ``Link: <...>; rel="next"`` URL (GitHub's pagination), or ""."""
        found = _NEXT.search(self.headers.get("Link", ""))
        return found.group(1) if found else ""


@dataclass
class Answer:
    """An answer whose body is still to be read (``body.chunks()``, ``body.read()``)."""

    status: int
    reason: str
    headers: Message
    url: str
    body: Reader


class _Redirects(urllib.request.HTTPRedirectHandler):
    """At most ``MAX_REDIRECTS``; credentials (Basic or a token) never follow a redirect to
    another origin (scheme, host and port)."""

    max_redirections = MAX_REDIRECTS
    max_repeats = MAX_REDIRECTS

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int,
                         msg: str, headers: http.client.HTTPMessage, newurl: str,
                         ) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and not same_origin(new.full_url, req.full_url):
            new.remove_header("Authorization")
        return new


@functools.cache
def _tls() -> ssl.SSLContext:
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    return ssl.create_default_context(cafile=bundle or certifi.where())


def _recording(base: type[http.client.HTTPConnection], sockets: Sockets,
               ) -> type[http.client.HTTPConnection]:
    class Recorded(base):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            super().connect()
            sockets.add(self.sock)

    return Recorded


class _Http(urllib.request.HTTPHandler):
    def __init__(self, sockets: Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_recording(http.client.HTTPConnection, self.sockets), req)


class _Https(urllib.request.HTTPSHandler):
    """Loads the certificate bundle (about 20 ms) at the first https request, not before."""

    def __init__(self, sockets: Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_recording(http.client.HTTPSConnection, self.sockets), req,
                            context=_tls())


@contextlib.contextmanager
def open_url(url: str, headers: dict[str, str], timeout: float, clock: Clock = SYSTEM,
             max_bytes: int = MAX_BYTES, method: str = "GET") -> Iterator[Answer]:
    """``GET url`` (or ``method``), whatever its status (a 304 or a 500 is an answer too), its
    body to be read within ``timeout`` (from now, the request's whole time) and
    ``max_bytes``."""
    if redact.has_credentials(url):   # they travel apart, to their origin only
        raise ConnectionFailedError(f"{redact.text(url)}: a URL with user-info is not fetched")
    window = Window(timeout, clock)
    sockets = Sockets()
    opener = urllib.request.build_opener(_Redirects(), _Http(sockets), _Https(sockets))
    request = urllib.request.Request(url, headers={**headers, "Accept-Encoding": "gzip"},
                                     method=method)
    with watch(window, sockets):
        answer, status, reason = _open(opener, request, window, url)
        with contextlib.closing(answer):
            gzip = answer.headers.get("Content-Encoding", "").strip().lower() == "gzip"
            read = getattr(answer, "read1", None) or answer.read
            yield Answer(status, reason, answer.headers, answer.geturl() or url,
                         Reader(read, url, window, max_bytes, gzip))


def _open(opener: urllib.request.OpenerDirector, request: urllib.request.Request,
          window: Window, url: str) -> tuple[Any, int, str]:
    try:
        answer = opener.open(request, timeout=max(0.001, window.left()))
        return answer, answer.status, answer.reason
    except urllib.error.HTTPError as error:
        if error.msg.startswith(urllib.request.HTTPRedirectHandler.inf_msg):
            raise RedirectLoopError(f"redirect loop at {redact.text(url)} (over "
                                    f"{MAX_REDIRECTS} redirects)") from None
        return error, error.code, str(error.reason)
    except TimeoutError:
        raise TimeoutExceededError(window.seconds, url) from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError) or window.passed():
            raise TimeoutExceededError(window.seconds, url) from None
        raise ConnectionFailedError(short_reason(error.reason)) from None
    except (http.client.HTTPException, OSError, ValueError) as error:   # InvalidURL too
        if window.passed():
            raise TimeoutExceededError(window.seconds, url) from None
        raise ConnectionFailedError(short_reason(error)) from None


def get(url: str, headers: dict[str, str], timeout: float, clock: Clock = SYSTEM,
        max_bytes: int = MAX_BYTES) -> Response:
    """The answer to ``GET url`` read whole (within ``timeout`` and ``max_bytes``), its body
    decoded as its charset says (UTF-8 else)."""
    with open_url(url, headers, timeout, clock, max_bytes) as answer:
        try:
            raw = answer.body.read()
        except (http.client.HTTPException, OSError) as error:
            raise ConnectionFailedError(short_reason(error)) from None
        return Response(answer.status, answer.reason, answer.headers,
                        _decode(raw, answer.headers))


def _decode(raw: bytes, headers: Message) -> str:
    charset = headers.get_content_charset() or "utf-8"
    try:
        return raw.decode(charset, "replace")
    except LookupError:
        return raw.decode("utf-8", "replace")
