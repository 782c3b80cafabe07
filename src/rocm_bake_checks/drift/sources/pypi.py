"""PyPI's JSON API: every release of a project, its files, and which are yanked or have no
files (both dropped, as pip drops them)."""

from __future__ import annotations

import json
from typing import Any

from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources import Listing
from rocm_bake_checks.drift.web import JSON_ACCEPT, Web

YANKED = "yanked"
NO_FILES = "no files"


def releases(web: Web, project: str, log: Explanation) -> Listing:
    url = f"{web.settings.pypi}/pypi/{project}/json"
    response = web.get(url, JSON_ACCEPT, log)
    listing = Listing()
    for version, entries in _releases(response, web.where(url)).items():
        listing.names.append(version)
        listing.files[version] = [str(f.get("filename", "")) for f in entries]
        if not entries:   # nothing to install: pip skips it, and so does --locks
            listing.dropped[version] = f"{NO_FILES} (pip cannot install it)"
        elif all(f.get("yanked") for f in entries):
            listing.dropped[version] = YANKED
    return listing


def release_states(web: Web, project: str, log: Explanation) -> dict[str, str]:
    """Every release of ``project`` (as the index writes it) -> ``""``, ``yanked`` (every
    file of it is) or ``no files``; only this summary is kept, recorded and replayed."""
    url = f"{web.settings.pypi}/pypi/{project}/json"
    states = web.get_summary(url, JSON_ACCEPT, log, "releases", _states)
    if not isinstance(states, dict):
        raise UnavailableError(f"bad snapshot entry for {url} [releases]")
    return {str(version): str(state) for version, state in states.items()}


def _states(response: dict[str, Any], where: str) -> dict[str, str]:
    out = {}
    for version, entries in _releases(response, where).items():
        out[version] = "" if any(not f.get("yanked") for f in entries) else \
            YANKED if entries else NO_FILES
    return out


def _releases(response: dict[str, Any], where: str) -> dict[str, list[dict[str, Any]]]:
    """The ``releases`` object of a project's JSON: version -> its file entries."""
    try:
        data = json.loads(response["body"])
    except (ValueError, KeyError):
        raise UnavailableError(f"malformed JSON from {where}") from None
    found = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        raise UnavailableError(f"unexpected JSON from {where}: no 'releases' object")
    return {str(version): [f for f in files if isinstance(f, dict)]
            if isinstance(files, list) else [] for version, files in found.items()}
