"""Wheel indexes: PEP 691 JSON and PEP 503 HTML simple indexes, and plain directory
listings (one page listing every file, like repo.radeon.com's). File names matter, and
whether a file is yanked (PEP 592: ``yanked`` in PEP 691 JSON, ``data-yanked`` in PEP 503
HTML), as the PyPI source honours it."""

from __future__ import annotations

import json
import posixpath
import urllib.parse
from html.parser import HTMLParser

from packaging.utils import canonicalize_name

from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources import Listing
from rocm_bake_checks.drift.web import HTML_ACCEPT, PEP691_ACCEPT, Web

PEP691 = "application/vnd.pypi.simple.v1+json"


def project_files(web: Web, root: str, package: str, log: Explanation) -> list[str]:
    """File names of ``package`` under a simple index root, yanked files left out."""
    return project_listing(web, root, package, log).names


def project_listing(web: Web, root: str, package: str, log: Explanation) -> Listing:
    """Every file of ``package`` under a simple index root; yanked ones in ``dropped``.
    Tries the normalized name first, then the spellings some indexes really use
    (``amd_aiter/``)."""
    base = root.rstrip("/")
    spellings = list(dict.fromkeys([canonicalize_name(package), package,
                                    package.replace("-", "_"), package.lower()]))
    failures: list[str] = []
    for name in spellings:
        try:
            response = web.get(f"{base}/{name}/", PEP691_ACCEPT, log)
        except UnavailableError as exc:
            if "HTTP 404" not in str(exc):
                raise
            failures.append(name)
            continue
        return parse_project_listing(response["body"], response.get("content_type", ""),
                                     web.where(f"{base}/{name}/"))
    where = web.where(f"{base}/{failures[0]}/")
    raise UnavailableError(f"HTTP 404 Not Found at {where} (also tried "
                           f"{', '.join(failures[1:]) or 'no other spelling'}): unknown package?")


def listing_files(web: Web, url: str, log: Explanation) -> list[str]:
    response = web.get(url, HTML_ACCEPT, log)
    return [name for name, _ in _html_files(response["body"], web.where(url)) if name]


def parse_project_listing(body: str, content_type: str, url: str) -> Listing:
    """Every file a project page lists; yanked files (PEP 592) in ``dropped``."""
    if content_type.split(";", maxsplit=1)[0].strip() == PEP691:
        try:
            files = json.loads(body)["files"]
            entries = [(str(f["filename"]), f.get("yanked", False)) for f in files]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise UnavailableError(f"malformed PEP 691 JSON from {url}") from None
    else:
        entries = list(_html_files(body, url))
    listing = Listing()
    for name, yanked in entries:
        if yanked is False or yanked is None:
            listing.names.append(name)
        else:
            reason = yanked if isinstance(yanked, str) and yanked else ""
            listing.dropped[name] = f"yanked ({reason})" if reason else "yanked"
    return listing


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[tuple[str, str | bool]] = []   # (href, yanked: reason or False)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            found = dict(attrs)
            href = found.get("href")
            if href:
                yanked: str | bool = (found["data-yanked"] or True) if "data-yanked" in found \
                    else False
                self.hrefs.append((href, yanked))


def _html_files(body: str, url: str) -> list[tuple[str, str | bool]]:
    lowered = body.lower()
    if "<html" in lowered and "</html>" not in lowered:
        raise UnavailableError(f"truncated HTML from {url} (no closing </html>)")
    parser = _Anchors()
    parser.feed(body)
    parser.close()
    names: list[tuple[str, str | bool]] = []
    for href, yanked in parser.hrefs:
        path = urllib.parse.urlsplit(href).path
        names.append((urllib.parse.unquote(posixpath.basename(path)), yanked))
    return names
