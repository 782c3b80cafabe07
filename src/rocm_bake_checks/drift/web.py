"""HTTP GETs for the sources: bounded retries, rate limits honoured, ETag revalidation.

- 5xx and broken connections are retried (``retries`` times, short backoff), all attempts
  and back-offs of one URL within ``timeout`` (a request gets what is left of it, or of the
  total deadline when that ends first, so one that times out has used it all and is not
  retried; its message names the limit that fired); rate-limit waits are ``max_wait``'s;
- 403/429 with ``Retry-After`` or ``X-RateLimit-Remaining: 0`` + ``X-RateLimit-Reset`` wait
  until the reset when that is soon enough (``max_wait`` and the deadline), else the reason is
  reported ("rate limited until ..."), never retried blindly;
- a response with an ``ETag`` is cached on disk; the next run sends ``If-None-Match`` and a
  ``304`` is answered from the cache (GitHub does not count those against the rate limit);
- ``GITHUB_TOKEN`` is sent only to the GitHub API base and never printed or recorded;
- a URL's user-info is sent as Basic authorization (credentials.py), never stored: the ETag
  cache is keyed by the address without it, and every message names the address fetched
  (after ``--rewrite``), credentials masked.

The request itself is ``rocm_bake.net.http.get`` (the standard library's urllib, every answer
within its time and ``max_bytes``: a larger one is reported, never retried), imported at the
first request: an offline run never pays for it.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocm_bake.net.credentials import Address, Keyring, clean
from rocm_bake.net.polite import HostLimits
from rocm_bake_checks.drift.cache import DiskCache
from rocm_bake_checks.drift.fetch import Deadline, Fetcher, UnavailableError
from rocm_bake_checks.drift.model import Explanation

if TYPE_CHECKING:
    from rocm_bake.net.http import Response

JSON_ACCEPT = "application/json"
HTML_ACCEPT = "text/html, */*;q=0.1"
USER_AGENT = "rocm-bake-version-check/1"


@dataclass(frozen=True)
class WebSettings:
    github_api: str = "https://api.github.com"
    pypi: str = "https://pypi.org"
    token: str = ""
    timeout: float = 60.0
    max_bytes: int = 128 * 1024 * 1024   # one answer (PyPI's JSON of the largest: tens of MB)
    retries: int = 2
    max_wait: float = 60.0
    cache_dir: Path | None = None
    rewrites: tuple[tuple[str, str], ...] = ()
    keyring: Keyring = field(default_factory=Keyring, compare=False)
    # the option that put each rewrite there ("--pypi"), by position; "--rewrite PREFIX=" else
    origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for _, replacement in self.rewrites:
            self.keyring.learn(replacement)

    def fetched(self, url: str) -> Address:
        """Where a declared URL is asked: rewritten, split from its credentials."""
        return self.keyring.address(self.rewrite(url))

    def where(self, url: str) -> str:
        """The address a declared URL is fetched from, as messages name it."""
        return self.fetched(url).shown

    def via(self, url: str) -> str:
        """Which option sent a declared URL where it is asked ("" when it is asked as
        declared), for ``--explain``."""
        for number, (prefix, _) in enumerate(self.rewrites):
            if url.startswith(prefix):
                origin = self.origins[number] if number < len(self.origins) else ""
                return origin or f"--rewrite {clean(prefix)}="
        return ""

    def asked(self, url: str) -> str:
        """``asked ADDRESS (sent there by OPTION)``: where a declared URL was asked, and why
        there (``--explain`` names the address asked, not the declared one)."""
        origin = self.via(url)
        return f"asked {self.where(url)}" + (f" (sent there by {origin})" if origin else "")

    def rewrite(self, url: str) -> str:
        """The URL actually fetched for a declared one (``--rewrite PREFIX=REPLACEMENT``)."""
        for prefix, replacement in self.rewrites:
            if url.startswith(prefix):
                return replacement + url[len(prefix):]
        return url

    def unrewrite(self, url: str) -> str:
        """A fetched URL (a ``Link: rel=next``) back in the bake file's terms, without
        user-info (it is stored; its origin's credentials are applied when it is asked)."""
        for prefix, replacement in self.rewrites:
            for form in (replacement, clean(replacement)):
                if url.startswith(form):
                    return clean(prefix + url[len(form):])
        return clean(url)


class Web:
    """GETs through the fetcher: ``get(url)`` returns {status, url, content_type, body, next}."""

    def __init__(self, settings: WebSettings, fetcher: Fetcher, deadline: Deadline) -> None:
        self.settings = settings
        self.fetcher = fetcher
        self.deadline = deadline
        self.clock = deadline.clock
        self.hosts = HostLimits()
        cache = settings.cache_dir
        self.etags = DiskCache(cache / "http" if cache is not None else None)
        self.asked: set[tuple[str, str]] = set()   # every (URL, Accept) asked (warmup.py)

    def where(self, url: str) -> str:
        """The address a declared URL is fetched from, credentials masked (for messages)."""
        return self.settings.where(url)

    def get(self, url: str, accept: str, log: Explanation) -> dict[str, Any]:
        self.asked.add((url, accept))
        return self._answer_to(_key(url, accept), lambda: self._get(url, accept), log)

    def _answer_to(self, key: str, compute: Callable[[], tuple[Any, str]],
                   log: Explanation) -> dict[str, Any]:
        value = self.fetcher.ask(key, compute, log)
        if not isinstance(value, dict):
            raise UnavailableError(f"bad snapshot entry for {key}")
        return value

    def get_summary(self, url: str, accept: str, log: Explanation, label: str,
                    summarize: Callable[[dict[str, Any], str], Any],
                    read: Callable[[], tuple[str, str]] | None = None) -> Any:
        """GET ``url`` and keep only ``summarize(response, where)`` (JSON-able): the fetcher
        memoises, records and replays the summary under its own key (``[label]``), never the
        body, so a large answer (PyPI's JSON of a project with thousands of files) costs a
        snapshot only what it says. ``summarize`` raises UnavailableError for a bad body.
        ``read``: the caller holds the file (as ``held``), never asked over the network.
        (Not in ``asked``: the warm-up prefetches bodies, not summaries.)"""
        where = self.where(url)

        def compute() -> tuple[Any, str]:
            if read is not None:
                content_type, body = read()
                return summarize({"status": 200, "content_type": content_type, "body": body,
                                  "next": ""}, where), f"held by the caller ({len(body)} bytes)"
            response, outcome = self._get(url, accept)
            return summarize(response, where), outcome

        return self.fetcher.ask(f"{_key(url, accept)} [{label}]", compute, log)

    def held(self, url: str, accept: str, log: Explanation,
             read: Callable[[], tuple[str, str]]) -> dict[str, Any]:
        """The answer to a GET of ``url`` from what the caller already holds: ``read()`` gives
        its (content type, body), or raises UnavailableError. Memoised, recorded and replayed
        under the GET's own key (a snapshot cannot tell the two apart), never asked over the
        network (nor in ``asked``: there is nothing to prefetch)."""
        def compute() -> tuple[dict[str, Any], str]:
            content_type, body = read()
            return ({"status": 200, "content_type": content_type, "body": body, "next": ""},
                    f"held by the caller ({len(body)} bytes)")

        return self._answer_to(_key(url, accept), compute, log)

    def prefetch(self, url: str, accept: str) -> None:
        """GET ``url`` now, for the check that will ask (``get``)."""
        self.fetcher.prefetch(_key(url, accept), lambda: self._get(url, accept))

    # -- one request, retried within --timeout -------------------------------------------
    def _get(self, declared: str, accept: str) -> tuple[dict[str, Any], str]:
        address = self.settings.fetched(declared)
        budget = _Budget(self.settings.timeout)
        failed = _Failed("")
        attempts = 0
        for attempt in range(self.settings.retries + 1):
            pause = min(0.2 * 2 ** attempt, 2.0) if attempt else 0.0
            if budget.left <= pause:
                failed.why = " (no time left for another within --timeout " \
                             f"{self.settings.timeout:g} s)"
                break
            if pause:
                budget.left -= pause
                self._sleep(pause)
            attempts += 1
            outcome = self._attempt(address, declared, accept, budget)
            if not isinstance(outcome, _Failed):
                return outcome[0], f"{self.settings.asked(declared)}: {outcome[1]}"
            failed = outcome
            if failed.timed_out:   # it was given all that was left of the limit that fired
                failed.why = f" (the --deadline of {self.deadline.seconds:g} s bounds the whole " \
                    "run)" if failed.limit == "--deadline" else \
                    f" (--timeout {self.settings.timeout:g} s bounds this URL, every attempt " \
                    "and back-off included)"
                break
        plural = "s" if attempts != 1 else ""
        raise UnavailableError(f"{failed.reason} at {address.shown} after {attempts} "
                               f"attempt{plural}{failed.why}")

    def _attempt(self, address: Address, declared: str, accept: str, budget: _Budget,
                 ) -> tuple[dict[str, Any], str] | _Failed:
        from rocm_bake.net import http as httpget  # noqa: PLC0415 (offline runs never import it)

        url = address.url
        cached = self._cached(url, accept)
        headers = {"Accept": accept, "User-Agent": USER_AGENT}
        if cached:
            headers["If-None-Match"] = cached["etag"]
        if address.authorization():
            headers["Authorization"] = address.authorization()
        elif self.settings.token and declared.startswith(self.settings.github_api):
            headers["Authorization"] = f"Bearer {self.settings.token}"
        try:
            with self.hosts.slot(url):   # a wait for a free slot is no time of this source
                left = self.deadline.check()
                timeout = max(0.05, min(budget.left, left))
                limit = "--deadline" if left < budget.left else "--timeout"
                started = self.clock.monotonic()
                try:
                    response = httpget.get(url, headers, timeout, self.clock,
                                           self.settings.max_bytes)
                finally:
                    budget.left -= self.clock.monotonic() - started
        except httpget.RedirectLoopError:
            raise UnavailableError(f"redirect loop at {address.shown} (over "
                                   f"{httpget.MAX_REDIRECTS} redirects)") from None
        except httpget.TooLargeError as exc:
            raise UnavailableError(f"{exc} (not read further)") from None
        except httpget.TimeoutExceededError:
            return _Failed(f"timed out after {timeout:.1f} s", timed_out=True,
                           limit=limit)
        except httpget.ConnectionFailedError as exc:
            return _Failed(f"connection failed ({exc})")
        return self._answer(address, accept, cached, response, budget)

    def _answer(self, address: Address, accept: str, cached: dict[str, Any] | None,
                response: Response, budget: _Budget) -> tuple[dict[str, Any], str] | _Failed:
        status = response.status
        where = address.shown
        if status == 304 and cached:
            self.fetcher.count(from_cache=True)
            return cached["response"], "HTTP 304 Not Modified: answered from the ETag cache"
        self.fetcher.count(from_cache=False)
        if status in (403, 429):
            return _Failed(self._rate_limited(where, response, budget))
        if status >= 500:
            return _Failed(f"HTTP {status} {response.reason}")
        if status == 404:
            raise UnavailableError(f"HTTP 404 Not Found at {where} (unknown package, project or "
                                   "repository?)")
        if status != 200:
            raise UnavailableError(f"HTTP {status} {response.reason} at {where}")
        body = response.text
        data = {"status": status, "content_type": response.headers.get("Content-Type", ""),
                "body": body, "next": self.settings.unrewrite(response.next_url)}
        etag = response.headers.get("ETag")
        if etag:
            self._store(address.url, accept, etag, data)
        return data, f"HTTP 200 ({len(body)} bytes)"

    def _rate_limited(self, where: str, response: Response, budget: _Budget) -> str:
        wait = _rate_limit_wait(response, self.clock.time())
        if wait is None:
            raise UnavailableError(f"HTTP {response.status} {response.reason} at {where}")
        left = self.deadline.remaining()
        if wait <= self.settings.max_wait and wait < left - 1:
            self._sleep(wait)
            # a rate limit's wait is --max-wait's, not --timeout's
            return f"rate limited (waited {wait:.0f} s for the reset)"
        until = time.strftime("%H:%M:%S UTC", time.gmtime(self.clock.time() + wait))
        hint = "" if self.settings.token else "; set GITHUB_TOKEN for a higher limit"
        raise UnavailableError(f"rate limited at {where} until {until} (in {wait:.0f} s, "
                               f"longer than the {min(self.settings.max_wait, left):.0f} s this "
                               f"run may wait){hint}")

    def _sleep(self, seconds: float) -> None:
        left = self.deadline.remaining()
        self.clock.sleep(max(0.0, min(seconds, left)))

    # -- ETag cache ---------------------------------------------------------------------
    def _cached(self, url: str, accept: str) -> dict[str, Any] | None:
        entry = self.etags.get(f"{url}\0{accept}")
        if not isinstance(entry, dict) or not isinstance(entry.get("etag"), str):
            return None
        return entry if isinstance(entry.get("response"), dict) else None

    def _store(self, url: str, accept: str, etag: str, data: dict[str, Any]) -> None:
        self.etags.put(f"{url}\0{accept}", {"etag": etag, "response": data})


@dataclass
class _Failed:
    """An attempt that may be retried: why it failed."""

    reason: str
    timed_out: bool = False
    limit: str = ""   # the limit that cut a timed-out attempt: --timeout or --deadline
    why: str = ""   # why no further attempt was made, when that is not the retry count


@dataclass
class _Budget:
    """What is left of ``--timeout`` for one URL: its requests and back-offs spend it."""

    left: float


def _key(url: str, accept: str) -> str:
    kind = accept.split(",", maxsplit=1)[0]
    return f"GET {url}" + ("" if accept == JSON_ACCEPT else f" [{kind}]")


def _rate_limit_wait(response: Response, now: float) -> float | None:
    """Seconds from ``now`` until a rate limit resets, or None when the response is no rate
    limit."""
    retry_after = response.headers.get("Retry-After")
    if retry_after:
        if retry_after.strip().isdigit():
            return float(retry_after.strip())
        parsed = email.utils.parsedate_to_datetime(retry_after)
        return max(0.0, parsed.timestamp() - now)
    if response.headers.get("X-RateLimit-Remaining") == "0":
        reset = response.headers.get("X-RateLimit-Reset", "")
        if reset.isdigit():
            return max(0.0, float(reset) - now)
    return None

