"""PyPI's JSON API: every release of a project, its files, and which are yanked."""

from __future__ import annotations

import json

from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources import Listing
from rocm_bake_checks.drift.web import JSON_ACCEPT, Web


def releases(web: Web, project: str, log: Explanation) -> Listing:
    url = f"{web.settings.pypi}/pypi/{project}/json"
    response = web.get(url, JSON_ACCEPT, log)
    try:
        data = json.loads(response["body"])
    except (ValueError, KeyError):
        raise UnavailableError(f"malformed JSON from {web.where(url)}") from None
    found = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        raise UnavailableError(f"unexpected JSON from {web.where(url)}: no 'releases' object")
    listing = Listing()
    for version, files in found.items():
        listing.names.append(version)
        entries = [f for f in files if isinstance(f, dict)] if isinstance(files, list) else []
        listing.files[version] = [str(f.get("filename", "")) for f in entries]
        if entries and all(f.get("yanked") for f in entries):
            listing.dropped[version] = "yanked"
    return listing
