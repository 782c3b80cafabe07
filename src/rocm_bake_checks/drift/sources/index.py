"""Wheel indexes: PEP 691 JSON and PEP 503 HTML simple indexes, and plain directory
listings (one page listing every file, like repo.radeon.com's), read by the one parser of
project pages (``rocm_bake.net.simpleindex``). File names matter, and whether a file is
yanked (PEP 592): a version listing (``index`` pins) sees a yanked file and drops it, as the
PyPI source does; the wheel verdict takes one only for its exact pin (``drift.wheels``).
``sdists``: a project's sdists with their addresses and sha256s (``drift.sdists``' pins)."""

from __future__ import annotations

from typing import Any

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import InvalidVersion, Version

from rocm_bake.net import simpleindex
from rocm_bake.net.simpleindex import IndexFile
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Explanation
from rocm_bake_checks.drift.sources import Listing
from rocm_bake_checks.drift.web import HTML_ACCEPT, Web


def project_listing(web: Web, root: str, package: str, log: Explanation) -> Listing:
    """Every file of ``package`` under a simple index root; yanked ones in ``dropped``."""
    listing = Listing()
    for file in project_page(web, root, package, log):
        if file.yanked is None:
            listing.names.append(file.filename)
        else:
            listing.dropped[file.filename] = file.why_yanked
    return listing


def listing_files(web: Web, url: str, log: Explanation) -> list[str]:
    response = web.get(url, HTML_ACCEPT, log)
    return [f.filename for f in _parse(response["body"], "text/html", web.where(url))]


def project_page(web: Web, root: str, package: str, log: Explanation) -> list[IndexFile]:
    """Every file of ``package`` under a simple index root (``rocm_bake.net.simpleindex``),
    yanked ones marked. Tries the normalized name first, then the spellings some indexes
    really use (``amd_aiter/``)."""
    base = root.rstrip("/")
    spellings = list(dict.fromkeys([canonicalize_name(package), package,
                                    package.replace("-", "_"), package.lower()]))
    failures: list[str] = []
    for name in spellings:
        try:
            response = web.get(f"{base}/{name}/", simpleindex.ACCEPT, log)
        except UnavailableError as exc:
            if "HTTP 404" not in str(exc):
                raise
            failures.append(name)
            continue
        return _parse(response["body"], response.get("content_type", ""),
                      web.where(f"{base}/{name}/"))
    where = web.where(f"{base}/{failures[0]}/")
    raise UnavailableError(f"HTTP 404 Not Found at {where} (also tried "
                           f"{', '.join(failures[1:]) or 'no other spelling'}): unknown package?")


def _parse(body: str, content_type: str, url: str) -> list[IndexFile]:
    try:
        return simpleindex.parse(body, content_type, url)
    except simpleindex.PageError as exc:
        raise UnavailableError(str(exc)) from None


def sdists(web: Web, root: str, package: str, log: Explanation) -> list[IndexFile]:
    """The sdists of ``package`` its project page under ``root`` lists (PEP 691 JSON
    preferred, PEP 503 HTML understood; yanked ones marked): only they are kept, recorded
    and replayed, not the page (PyPI's page of a project lists thousands of wheels)."""
    url = f"{root.rstrip('/')}/{canonicalize_name(package)}/"
    kept = web.get_summary(url, simpleindex.ACCEPT, log, "sdists",
                           lambda response, where: _sdists(response, package, where))
    if not isinstance(kept, list) or not all(isinstance(f, dict) for f in kept):
        raise UnavailableError(f"bad snapshot entry for {url} [sdists]")
    return [IndexFile(str(f.get("filename", "")), str(f.get("url", "")),
                      str(f.get("sha256", "")),
                      None if f.get("yanked") is None else str(f["yanked"])) for f in kept]


def _sdists(response: dict[str, Any], package: str, where: str) -> list[dict[str, Any]]:
    files = _parse(str(response.get("body", "")), str(response.get("content_type", "")), where)
    return [{"filename": f.filename, "url": f.url, "sha256": f.sha256, "yanked": f.yanked}
            for f in files if sdist_version(f.filename, package) is not None]


def sdist_version(filename: str, package: str) -> Version | None:
    """The version of ``filename`` when it is an sdist of ``package`` (PEP 625's
    ``NAME-VERSION.tar.gz``, or a legacy ``.zip``), else None."""
    try:
        name, version = parse_sdist_filename(filename)
    except (InvalidSdistFilename, InvalidVersion):
        return None
    return version if name == canonicalize_name(package) else None
