"""One HTTP GET through the standard library's ``urllib.request``: proxies from the environment
(``https_proxy``, ``no_proxy``), the certificate authorities requests would trust
(``REQUESTS_CA_BUNDLE`` or ``CURL_CA_BUNDLE`` when set, else certifi's bundle), at most
``MAX_REDIRECTS`` redirects, gzip, and ``timeout`` for the whole request.

The checker makes a handful of requests per run, most of them in parallel to different hosts,
so a keep-alive pool buys nothing; importing ``urllib.request`` costs about a third of what
importing requests does, and start-up is most of a warm run.
"""

from __future__ import annotations

import functools
import gzip
import http.client
import os
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import IO

import certifi

from rocm_bake.core.clock import SYSTEM, Clock

MAX_REDIRECTS = 10
_NEXT = re.compile(r'<([^>]*)>[^,]*;\s*rel="?next"?')


class RedirectLoopError(Exception):
    """More than ``MAX_REDIRECTS`` redirects."""


class TimeoutExceededError(Exception):
    """A connect or a read took longer than the timeout."""


class ConnectionFailedError(Exception):
    """No answer: refused, reset, cut short; the message is the short reason."""


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


class _Redirects(urllib.request.HTTPRedirectHandler):
    """At most ``MAX_REDIRECTS``; credentials (Basic or a token) never follow a redirect to
    another host."""

    max_redirections = MAX_REDIRECTS
    max_repeats = MAX_REDIRECTS

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int,
                         msg: str, headers: http.client.HTTPMessage, newurl: str,
                         ) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _host(new.full_url) != _host(req.full_url):
            new.remove_header("Authorization")
        return new


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc.rpartition("@")[2].lower()


@functools.cache
def _tls() -> ssl.SSLContext:
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    return ssl.create_default_context(cafile=bundle or certifi.where())


class _Https(urllib.request.HTTPSHandler):
    """Loads the certificate bundle (about 20 ms) at the first https request, not before."""

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(http.client.HTTPSConnection, req, context=_tls())


_OPENER = urllib.request.build_opener(_Redirects(), _Https())


def get(url: str, headers: dict[str, str], timeout: float, clock: Clock = SYSTEM) -> Response:
    """The answer to ``GET url``, whatever its status (a 304 or a 500 is a response too),
    within ``timeout`` in all: each blocking operation is bounded by it, and a body still
    trickling in when it has passed (on ``clock``) is given up."""
    request = urllib.request.Request(url, headers={**headers, "Accept-Encoding": "gzip"})
    end = clock.monotonic() + timeout
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            return _response(answer.status, answer.reason, answer.headers,
                             _read(answer, end, clock))
    except urllib.error.HTTPError as error:
        if error.msg.startswith(urllib.request.HTTPRedirectHandler.inf_msg):
            raise RedirectLoopError from None
        with error:
            return _response(error.code, str(error.reason), error.headers, _body(error))
    except TimeoutError:
        raise TimeoutExceededError from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            raise TimeoutExceededError from None
        raise ConnectionFailedError(_short(error.reason)) from None
    except (http.client.HTTPException, OSError) as error:
        raise ConnectionFailedError(_short(error)) from None


def _read(answer: http.client.HTTPResponse, end: float, clock: Clock) -> bytes:
    chunks = []
    while chunk := answer.read1(65536):
        chunks.append(chunk)
        if clock.monotonic() > end:
            raise TimeoutExceededError
    return b"".join(chunks)


def _body(error: urllib.error.HTTPError) -> bytes:
    try:
        return error.read()
    except (http.client.HTTPException, OSError):
        return b""


def _response(status: int, reason: str, headers: Message, raw: bytes) -> Response:
    if headers.get("Content-Encoding", "").strip().lower() == "gzip" and raw:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise ConnectionFailedError(f"bad gzip body ({error})") from None
    charset = headers.get_content_charset() or "utf-8"
    try:
        text = raw.decode(charset, "replace")
    except LookupError:
        text = raw.decode("utf-8", "replace")
    return Response(status, reason, headers, text)


def _short(error: object) -> str:
    """The reason in a few words: the exception's class name for a cut-short answer."""
    if isinstance(error, http.client.IncompleteRead | http.client.RemoteDisconnected):
        return type(error).__name__
    if isinstance(error, ConnectionRefusedError):
        return "Connection refused"
    if isinstance(error, ConnectionResetError):
        return "Connection reset"
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:160]
