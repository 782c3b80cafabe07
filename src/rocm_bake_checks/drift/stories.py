"""One story per component: when two rows of one component (``LMCACHE_COMMIT`` and
``LMCACHE_REF``) name different newest versions, each row says exactly why (git tag vs
GitHub release, pre-release dropped by the rules, branch head vs releases)."""

from __future__ import annotations

from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from rocm_bake_checks.drift.declarations import PinSpec
from rocm_bake_checks.drift.model import Finding

SOURCES = {"git": "git tags", "github": "GitHub releases", "pypi": "PyPI releases",
           "index": "the wheel index", "listing": "the file listing"}


def component(name: str) -> str:
    """The component a variable belongs to: its first word (``LMCACHE_REF`` -> LMCACHE)."""
    return name.split("_", maxsplit=1)[0]


def reconcile(findings: Sequence[Finding], specs: Sequence[PinSpec]) -> None:
    """Fill ``story`` on each pin row whose newest differs from a sibling row's."""
    by_name = {s.name: s for s in specs}
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.name in by_name and finding.newest:
            groups.setdefault(component(finding.name), []).append(finding)
    for rows in groups.values():
        if len(rows) > 1:
            _tell(rows, by_name)


def _tell(rows: list[Finding], specs: dict[str, PinSpec]) -> None:
    released = [r for r in rows if _version(r) is not None]
    branch_rows = [r for r in rows if _version(r) is None and specs[r.name].branch]
    if released:
        top = max(released, key=lambda r: _version(r) or Version("0"))
        for row in released:
            if _version(row) != _version(top):
                row.story = _lower(row, top, specs)
                top.story = _join(top.story, f"{row.name} reads {_source(specs[row.name])}, "
                                              f"whose newest is {row.newest}")
        for row in branch_rows:
            row.story = (f"follows the head of {specs[row.name].branch}, not releases "
                         f"({top.name}: newest {top.newest} from {_source(specs[top.name])})")
            top.story = _join(top.story, f"{row.name} follows the head of "
                                         f"{specs[row.name].branch} instead")


def _lower(row: Finding, top: Finding, specs: dict[str, PinSpec]) -> str:
    """Why ``row`` does not count ``top``'s newest."""
    wanted = _version(top)
    for candidate in row.explanation.candidates:
        if candidate.version and _same(candidate.version, wanted) and candidate.dropped:
            return f"{candidate.raw} is not counted here: {candidate.dropped}"
    return (f"{top.newest} ({top.name}, from {_source(specs[top.name])}) is not among "
            f"{_source(specs[row.name])}")


def _source(spec: PinSpec) -> str:
    where = SOURCES.get(spec.upstream, spec.upstream)
    return f"{where} of {spec.location}" if spec.upstream in ("github", "pypi") else where


def _version(row: Finding) -> Version | None:
    try:
        return Version(row.newest_version) if row.newest_version else None
    except InvalidVersion:
        return None


def _same(text: str, wanted: Version | None) -> bool:
    try:
        return wanted is not None and Version(text) == wanted
    except InvalidVersion:
        return False


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second
