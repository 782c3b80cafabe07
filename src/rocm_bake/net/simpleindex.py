"""A package index's project page, read one way for every caller (drift's ``index`` and
``[wheel]`` sources, ``inv lock``'s metadata, the rehearsal's mirror): PEP 691 JSON
(``application/vnd.pypi.simple.v1+json``) or PEP 503 HTML (a plain directory listing too:
every link to a file), each file with its address, its sha256 when the page gives one, and
whether it is yanked (PEP 592: ``yanked`` in JSON, ``data-yanked`` in HTML, with the reason
when the page gives one).

Which yanked file a caller may take is PEP 592's rule as pip applies it (``installable``):
none, unless the requirement pins its version exactly (``==``) and every file that satisfies
it is yanked.
"""

from __future__ import annotations

import json
import posixpath
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from rocm_bake.core import redact
from rocm_bake.net.errors import NetError

PEP691 = "application/vnd.pypi.simple.v1+json"
ACCEPT = f"{PEP691}, text/html;q=0.2"   # JSON preferred, HTML understood


class PageError(NetError):
    """A project page that is not one (malformed JSON, HTML cut short); one line naming it."""


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str                   # absolute, without its fragment
    sha256: str = ""           # "" when the page gives none
    yanked: str | None = None  # None: not yanked; else the reason ("" when none is given)

    @property
    def why_yanked(self) -> str:
        """``yanked (REASON)``, ``yanked``, or "" for a file that is not."""
        if self.yanked is None:
            return ""
        return f"yanked ({self.yanked})" if self.yanked else "yanked"


def parse(body: str, content_type: str, url: str) -> list[IndexFile]:
    """Every file the page at ``url`` lists (its links resolved against ``url``), in its
    order; PageError for a page that is not one."""
    if content_type.split(";", maxsplit=1)[0].strip() == PEP691:
        return _json(body, url)
    return _html(body, url)


def installable(files: Sequence[IndexFile], exact: bool) -> list[IndexFile]:
    """PEP 592 as pip applies it to the files that satisfy a requirement: the yanked ones left
    out, unless the requirement pins exactly (``exact``) and every one of them is yanked."""
    kept = [f for f in files if f.yanked is None]
    return kept if kept or not exact else list(files)


def _json(body: str, url: str) -> list[IndexFile]:
    try:
        files = json.loads(body)["files"]
        return [IndexFile(str(f["filename"]), _absolute(url, str(f["url"])),
                          str((f.get("hashes") or {}).get("sha256", "")),
                          _yanked(f.get("yanked", False))) for f in files]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise PageError(f"malformed PEP 691 JSON from {redact.text(url)}") from None


def _yanked(value: object) -> str | None:
    """PEP 691's ``yanked``: false, true, or the reason (a string: yanked)."""
    if value is False or value is None:
        return None
    return value if isinstance(value, str) else ""


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str | None]] = []   # (href, yanked: reason, or None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        href = found.get("href")
        if tag == "a" and href:
            self.links.append((href, (found["data-yanked"] or "") if "data-yanked" in found
                               else None))


def _html(body: str, url: str) -> list[IndexFile]:
    lowered = body.lower()
    if "<html" in lowered and "</html>" not in lowered:
        raise PageError(f"truncated HTML from {redact.text(url)} (no closing </html>)")
    parser = _Anchors()
    parser.feed(body)
    parser.close()
    out = []
    for href, yanked in parser.links:
        link, fragment = urllib.parse.urldefrag(urllib.parse.urljoin(url, href))
        name = urllib.parse.unquote(posixpath.basename(urllib.parse.urlsplit(link).path))
        if name:   # a link to a directory ("../") is no file
            digest = fragment.removeprefix("sha256=") if fragment.startswith("sha256=") else ""
            out.append(IndexFile(name, link, digest, yanked))
    return out


def _absolute(page: str, link: str) -> str:
    return urllib.parse.urldefrag(urllib.parse.urljoin(page, link)).url
