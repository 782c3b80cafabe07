"""GitHub's REST API: releases (name, pre-release flag, assets) and tags, every page."""

from __future__ import annotations

import json
from typing import Any

from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources import Listing
from rocm_bake_checks.drift.web import JSON_ACCEPT, Web

MAX_PAGES = 10


def releases(web: Web, repo: str, log: Explanation) -> Listing:
    """Release tag names; drafts are dropped, pre-releases marked, assets kept as files."""
    listing = Listing()
    for item in _pages(web, f"{web.settings.github_api}/repos/{repo}/releases?per_page=100", log):
        name = item.get("tag_name")
        if not isinstance(name, str):
            continue
        listing.names.append(name)
        assets = item.get("assets")
        listing.files[name] = [a["name"] for a in assets if isinstance(a, dict)
                               and isinstance(a.get("name"), str)] if isinstance(assets,
                                                                                   list) else []
        if item.get("draft"):
            listing.dropped[name] = "draft release"
        elif item.get("prerelease"):
            listing.dropped[name] = "marked pre-release on GitHub"
    return listing


def tags(web: Web, repo: str, log: Explanation) -> Listing:
    listing = Listing()
    for item in _pages(web, f"{web.settings.github_api}/repos/{repo}/tags?per_page=100", log):
        name = item.get("name")
        commit = item.get("commit")
        if isinstance(name, str):
            listing.names.append(name)
            if isinstance(commit, dict) and isinstance(commit.get("sha"), str):
                listing.commits[name] = commit["sha"]
    return listing


def _pages(web: Web, url: str, log: Explanation) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for number in range(1, MAX_PAGES + 1):
        response = web.get(url, JSON_ACCEPT, log)
        if number > 1 and log.queries:   # --explain: where this page's address came from
            log.queries[-1].outcome += f" (page {number}: the Link rel=next of page " \
                                       f"{number - 1})"
        try:
            page = json.loads(response["body"])
        except (ValueError, KeyError):
            raise UnavailableError(f"malformed JSON from {web.where(url)}") from None
        if not isinstance(page, list):
            raise UnavailableError(f"unexpected JSON from {web.where(url)}: not a list")
        items.extend(i for i in page if isinstance(i, dict))
        url = response.get("next") or ""
        if not url:
            return items
    raise UnavailableError(f"more than {MAX_PAGES} pages at {web.where(url)}")
