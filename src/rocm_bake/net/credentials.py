"""Credentials of private mirrors: in memory only, never in a URL that is stored or printed.

A URL given with user-info (``https://user:password@mirror/simple``, in the bake file, a
``--rewrite`` replacement or ``--pypi``) is split at once into its address, which is what
every cache file, plan, snapshot key and message holds, and its credentials, which stay in
this process: HTTP sends them as a ``Basic`` Authorization header, git receives them in the
environment of the one git process that needs them (``GIT_CONFIG_*``, an ``http.<origin>/.
extraHeader``: never on a command line, never in a repository's config). A URL of the same
origin without user-info (a ``Link: rel=next`` page, a plan entry) is given the credentials
learnt for that origin."""

from __future__ import annotations

import base64
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from rocm_bake.core import redact

_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Address:
    """A URL as asked: ``url`` without user-info, the credentials beside it."""

    url: str
    user: str = ""
    password: str = ""

    @property
    def shown(self) -> str:
        """The address for messages: user-info, when there is any, masked."""
        if not self.user and not self.password:
            return self.url
        scheme, _, rest = self.url.partition("://")
        return f"{scheme}://{redact.MASK}@{rest}"

    def authorization(self) -> str:
        """The ``Authorization`` header value for these credentials, or ""."""
        if not self.user and not self.password:
            return ""
        pair = f"{self.user}:{self.password}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")

    def authorization_for(self, url: str) -> str:
        """The ``Authorization`` header value for a request to ``url``: these credentials when
        ``url`` is of this address's origin (scheme, host, port), else "" (a link an answer
        names elsewhere never receives them)."""
        return self.authorization() if same_origin(url, self.url) else ""

    def git_environment(self, base: dict[str, str]) -> dict[str, str]:
        """Config for one git process, through its environment: the Authorization header for
        this address's origin (git sends it with every request to that origin)."""
        header = self.authorization()
        if not header:
            return {}
        count = int(base.get("GIT_CONFIG_COUNT", "0") or "0")
        return {"GIT_CONFIG_COUNT": str(count + 1),
                f"GIT_CONFIG_KEY_{count}": f"http.{origin(self.url)}/.extraHeader",
                f"GIT_CONFIG_VALUE_{count}": f"Authorization: {header}"}


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.rpartition('@')[2].lower()}"


def same_origin(one: str, other: str) -> bool:
    """Whether two URLs have one origin: scheme, host and port (a scheme's default port
    spelt out or not)."""
    return _origin_key(one) == _origin_key(other)


def _origin_key(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    return scheme, (parts.hostname or "").lower(), _PORTS.get(scheme) if port is None else port


def clean(url: str) -> str:
    """``url`` without its user-info (what may be stored)."""
    return redact.split_credentials(url)[0] if redact.has_credentials(url) else url


class Keyring:
    """The credentials learnt in this run, by origin (memory only)."""

    def __init__(self) -> None:
        self._by_origin: dict[str, tuple[str, str]] = {}
        self._lock = threading.Lock()

    def learn(self, url: str) -> None:
        if "://" in url and redact.has_credentials(url):
            address, user, password = redact.split_credentials(url)
            with self._lock:
                self._by_origin[origin(address)] = (user, password)

    def address(self, url: str) -> Address:
        """``url`` split into its address and credentials: its own, else its origin's."""
        self.learn(url)
        if "://" not in url:
            return Address(url)
        address = clean(url)
        with self._lock:
            user, password = self._by_origin.get(origin(address), ("", ""))
        return Address(address, user, password)
