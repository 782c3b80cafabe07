"""Content pins of a release's sdist (``sdist = INDEX``, ``package``, ``version``): the file's
address (``pin = "url"``) and its sha256 (``pin = "sha256"``), each compared with what the
index's project page lists for ``version`` (``sources.index.sdists``: PEP 691/503 read by the
one parser, ``rocm_bake.net.simpleindex``).

The sdist of ``version`` is the one file of it the page lists, a ``.tar.gz`` before a legacy
``.zip``; a yanked one is taken only when every sdist of the version is (PEP 592's rule for an
exact pin, ``simpleindex.installable``), and the row says so. A URL pin must name that file by
its name and be the index's address of it; a sha256 pin must be the index's sha256 of it.
Otherwise: drift, the row naming the variable and both values. An index that cannot be read is
"could not check" (the caller's)."""

from __future__ import annotations

import posixpath
import urllib.parse

from rocm_bake.net import simpleindex
from rocm_bake.net.simpleindex import IndexFile
from rocm_bake_checks.drift.declarations import PinSpec
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Candidate, Finding, Status
from rocm_bake_checks.drift.sources import index
from rocm_bake_checks.drift.versions import parse
from rocm_bake_checks.drift.web import Web


def verdict(web: Web, spec: PinSpec, finding: Finding) -> Finding:
    """``finding`` filled: the pin against the index's sdist of ``spec.version``."""
    wanted = parse(spec.version)
    if wanted is None:
        raise UnavailableError(f"version {spec.version!r} is not a PEP 440 version")
    log = finding.explanation
    files = index.sdists(web, spec.location, spec.package, log)
    of_version = [f for f in files if index.sdist_version(f.filename, spec.package) == wanted]
    log.candidates = [Candidate(f.filename, str(index.sdist_version(f.filename, spec.package)),
                                "" if f in of_version else f"not {spec.version}") for f in files]
    taken = simpleindex.installable(of_version, exact=True)
    chosen = min(taken, key=lambda f: not f.filename.endswith(".tar.gz"), default=None)
    what = f"{spec.package} {spec.version}"
    if chosen is None:
        finding.status = Status.NOT_FOUND
        finding.detail = f"{web.where(spec.location)} lists no sdist of {what} " \
                         f"({len(files)} sdists seen)"
        log.winner = f"none: no sdist of {what}"
        return finding
    log.winner = f"{chosen.filename}: the sdist of {what}"
    yanked = f" ({chosen.why_yanked}: taken only for the exact pin, as pip takes it)" \
        if chosen.yanked is not None else ""
    if spec.pin == "sha256":
        return _sha256(spec, finding, chosen, yanked)
    return _url(spec, finding, chosen, yanked)


def _url(spec: PinSpec, finding: Finding, chosen: IndexFile, yanked: str) -> Finding:
    finding.newest = chosen.url
    named = urllib.parse.unquote(posixpath.basename(urllib.parse.urlsplit(spec.value).path))
    if named != chosen.filename:
        finding.status = Status.NOT_FOUND
        finding.detail = f"{spec.name} names {named or 'no file'}, not {chosen.filename}, the " \
                         f"sdist of {spec.package} {spec.version}: {spec.name} is " \
                         f"{spec.value}; the index lists {chosen.url}"
        return finding
    if spec.value != chosen.url:
        finding.status = Status.DIFFERS
        finding.detail = f"{spec.name} is {spec.value}; the index lists {chosen.filename} at " \
                         f"{chosen.url}"
        return finding
    finding.status = Status.UP_TO_DATE
    finding.detail = f"the index's {chosen.filename}{yanked}"
    return finding


def _sha256(spec: PinSpec, finding: Finding, chosen: IndexFile, yanked: str) -> Finding:
    if not chosen.sha256:
        raise UnavailableError(f"the index gives no sha256 of {chosen.filename}")
    finding.newest = chosen.sha256
    if spec.value != chosen.sha256:
        finding.status = Status.DIFFERS
        finding.detail = f"{spec.name} is {spec.value}; the index lists sha256 " \
                         f"{chosen.sha256} for {chosen.filename}"
        return finding
    finding.status = Status.UP_TO_DATE
    finding.detail = f"the index's sha256 of {chosen.filename}{yanked}"
    return finding
