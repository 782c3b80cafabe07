"""One verdict per pin: what the source holds, which names the rules keep, who wins, and how
the pin compares (up to date / behind / ahead / pin not found upstream / could not check)."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from rocm_bake_checks.drift import sdists, versions, wheels
from rocm_bake_checks.drift.declarations import PinSpec
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Candidate, Explanation, Finding, Status
from rocm_bake_checks.drift.sources import Listing, github, index, pypi
from rocm_bake_checks.drift.sources.git import GitSource
from rocm_bake_checks.drift.versions import Distance, Pick
from rocm_bake_checks.drift.web import Web


@dataclass
class Outcome:
    """A verdict and what policy needs to judge it."""

    finding: Finding
    distance: Distance | None = None
    commits_behind: int = 0


@dataclass(frozen=True)
class Release:
    raw: str
    version: Version


class Checker:
    def __init__(self, web: Web, git: GitSource) -> None:
        self.web = web
        self.git = git

    # -- entry point --------------------------------------------------------------------
    def check(self, spec: PinSpec) -> Outcome:
        finding = Finding(spec.name, spec.value, spec.pin, Status.UNCHECKED, "",
                          upstream=spec.display_upstream)
        try:
            return self._check(spec, finding)
        except UnavailableError as exc:
            finding.status = Status.UNCHECKED
            finding.detail = str(exc)
            return Outcome(finding)

    def _check(self, spec: PinSpec, finding: Finding) -> Outcome:
        if spec.upstream == "sdist":   # a content pin: the index's file, not a version
            return Outcome(sdists.verdict(self.web, spec, finding))
        log = finding.explanation
        listing = self.listing(spec, log)
        pinned = pinned_version(spec)
        releases = self.releases(spec, listing, pinned, log)
        if spec.pin == "commit":
            return self._commit(spec, finding, listing, releases)
        if spec.pin == "branch":
            return _branch(spec, finding, listing)
        if spec.pin == "tag" and spec.value not in listing.names:
            finding.status = Status.NOT_FOUND
            finding.detail = f"tag {spec.value} does not exist upstream ({len(listing.names)} " \
                             "names seen)"
            _newest(spec, finding, releases)
            return Outcome(finding)
        return _compare(spec, finding, pinned, releases, listing)

    # -- what the source holds ----------------------------------------------------------
    def listing(self, spec: PinSpec, log: Explanation) -> Listing:
        if spec.upstream == "git":
            return self.git.listing(spec.location, log)
        if spec.upstream == "github":
            return github.releases(self.web, spec.location, log)
        if spec.upstream == "pypi":
            return pypi.releases(self.web, spec.location, log)
        listing = Listing()
        for location in spec.locations:
            if spec.upstream == "index":
                found = index.project_listing(self.web, location, spec.package, log)
                listing.names.extend([*found.names, *found.dropped])   # yanked: seen, dropped
                listing.dropped.update(found.dropped)
            else:
                listing.names.extend(index.listing_files(self.web, location, log))
        return listing

    def releases(self, spec: PinSpec, listing: Listing, pinned: Version | None,
                 log: Explanation) -> list[Release]:
        """The names the rules keep, newest first; every name seen goes to the explanation."""
        kept: list[Release] = []
        skipped = 0
        for name in listing.names:
            pick = self._pick(spec, name, listing, pinned)
            if pick.dropped.startswith("not PEP 440"):
                skipped += 1
            log.candidates.append(Candidate(name, str(pick.version or ""), pick.dropped))
            if not pick.dropped and pick.version is not None:
                kept.append(Release(name, pick.version))
        kept.sort(key=lambda r: (versions.sort_key(r.version), r.raw), reverse=True)
        dropped = len(listing.names) - len(kept)
        log.notes.append(f"{len(listing.names)} names seen, {len(kept)} kept, {dropped} dropped "
                         f"({skipped} not PEP 440)")
        if kept:
            log.winner = (f"{kept[0].raw} ({kept[0].version}): highest by PEP 440 public "
                          "version, then by the ROCm version of the local label")
        return kept

    def _pick(self, spec: PinSpec, name: str, listing: Listing, pinned: Version | None) -> Pick:
        if name in listing.dropped:
            return Pick(name, None, listing.dropped[name])
        if spec.upstream in ("git", "github"):
            pick = versions.from_name(name, spec.tags)
        elif spec.upstream == "pypi":
            version = versions.parse(name)
            pick = Pick(name, version, "" if version else f"not PEP 440 ({name!r})")
        else:
            pick = wheels.judge(name, spec.package, spec.wheel_filter)
        return versions.admit(pick, pinned, spec.prerelease, spec.wheel_filter.variant)

    # -- commit pins --------------------------------------------------------------------
    def _commit(self, spec: PinSpec, finding: Finding, listing: Listing,
                releases: list[Release]) -> Outcome:
        if spec.upstream != "git":
            raise UnavailableError("a commit pin needs a git source (git = URL)")
        if spec.branch and spec.branch not in listing.heads:
            finding.status = Status.NOT_FOUND
            finding.detail = f"branch {spec.branch} does not exist upstream"
            _newest(spec, finding, releases)
            return Outcome(finding)
        asked = self.git.where(spec.location)   # the address asked, as messages name it
        _not_a_tag_object(spec, listing, asked)
        if not releases and not spec.branch:
            raise UnavailableError("no tag matches the release pattern and no branch is declared")
        names = [r.raw for r in releases]
        history = self.git.history(spec.location, spec.value, names, listing.commits,
                                   spec.branch, listing.heads.get(spec.branch, ""),
                                   finding.explanation)
        if history.get("tag_object"):
            raise UnavailableError(
                f"{spec.value[:12]} is an annotated tag object in {asked}, not a "
                f"commit: pin the commit it tags, {str(history['tag_object'])[:12]}")
        if not history.get("present"):
            finding.status = Status.NOT_FOUND
            _newest(spec, finding, releases)
            where = f"tags or {spec.branch}" if spec.branch else "tags"
            finding.detail = f"commit {spec.value[:12]} is not in {asked} ({where} " \
                             "fetched, and not fetchable by id)"
            return Outcome(finding)
        outcome = _judge_commit(spec, finding, releases, history,
                                listing.heads.get(spec.branch, ""))
        if not finding.newest and spec.branch:   # no release: the branch head is the newest
            finding.newest = listing.heads.get(spec.branch, "")
        return outcome


def _newest(spec: PinSpec, finding: Finding, releases: list[Release]) -> None:
    """A pin not found upstream still names the newest release (what to pin instead)."""
    if releases:
        finding.newest = spelled(spec, releases[0])
        finding.newest_version = str(releases[0].version)


def _not_a_tag_object(spec: PinSpec, listing: Listing, asked: str) -> None:
    """A commit pin holding the id of an annotated tag object is named as such."""
    for tag, oid in listing.tag_objects.items():
        if oid == spec.value:
            raise UnavailableError(
                f"{spec.value[:12]} is the annotated tag object of {tag} in {asked}, "
                f"not a commit: pin the commit it tags, {listing.commits.get(tag, '?')[:12]}")


def pinned_version(spec: PinSpec) -> Version | None:
    match = spec.tags.match(spec.value)
    return versions.parse(match["version"] if match else spec.value)


def _compare(spec: PinSpec, finding: Finding, pinned: Version | None, releases: list[Release],
             listing: Listing) -> Outcome:
    if not releases:
        seen = finding.explanation.notes[-1] if finding.explanation.notes else ""
        raise UnavailableError(f"none of the {len(listing.names)} upstream names is a release "
                               f"under the declared rules ({seen})")
    if pinned is None:
        raise UnavailableError(f"pin {spec.value!r} is not a PEP 440 version under the pattern "
                               f"{spec.tags.pattern}")
    newest = releases[0]
    finding.newest = spelled(spec, newest)
    finding.newest_version = str(newest.version)
    named = finding.newest if finding.newest == newest.raw else \
        f"{finding.newest} ({_kind(spec)} {newest.raw})"
    key, top = versions.sort_key(pinned), versions.sort_key(newest.version)
    published = any(versions.sort_key(r.version) == key for r in releases)
    if key == top:
        finding.status = Status.UP_TO_DATE
        finding.detail = f"newest release is {named}"
        return Outcome(finding)
    if key > top:
        finding.status = Status.AHEAD
        note = "" if published else " (the pinned version is not published upstream)"
        finding.detail = f"newer than every upstream release (newest {named}){note}"
        return Outcome(finding)
    distance = versions.distance(pinned, newest.version, [r.version for r in releases])
    if not published and spec.pin == "version":
        finding.status = Status.NOT_FOUND
        finding.detail = f"{pinned} is not a release upstream (newest {named})"
        return Outcome(finding, distance)
    finding.status = Status.BEHIND
    finding.behind = distance.describe()
    finding.detail = f"newest {named}: {finding.behind}"
    return Outcome(finding, distance)


def spelled(spec: PinSpec, newest: Release) -> str:
    """``newest`` in the pin's own spelling: a tag as tagged (``v3.0.0.r1-cktile``), a
    version as versioned (``7.3.0`` for the tag ``rocm-7.3.0``); a name that is no tag of
    ours takes the pin's form (``v0.28.0`` pin, PyPI ``0.33.0`` -> ``v0.33.0``); a wheel
    file is named by its version and variant (``2.12.1+rocm7.2``)."""
    if spec.upstream in ("index", "listing"):
        return str(newest.version)
    found = spec.tags.match(newest.raw)
    if spec.pin in ("tag", "commit") and (found or spec.pin == "commit"):
        return newest.raw
    text = found["version"] if found else newest.raw
    own = spec.tags.match(spec.value)
    if own is None:
        return text
    start, end = own.span("version")
    return spec.value[:start] + text + spec.value[end:]


def _kind(spec: PinSpec) -> str:
    return {"git": "tag", "github": "release", "pypi": "PyPI"}.get(spec.upstream, "file")


def _branch(spec: PinSpec, finding: Finding, listing: Listing) -> Outcome:
    head = listing.heads.get(spec.value)
    if head is None:
        finding.status = Status.NOT_FOUND
        finding.detail = f"branch {spec.value} does not exist upstream"
        return Outcome(finding)
    finding.status = Status.UP_TO_DATE
    finding.newest = head[:12]
    finding.detail = f"floating branch, head now {head[:12]} (not reproducible: pin a commit)"
    return Outcome(finding)


def _judge_commit(spec: PinSpec, finding: Finding, releases: list[Release],
                  history: dict[str, object], branch_head: str = "") -> Outcome:
    """Where a commit pin stands: behind the newest release, behind its branch's head (when
    it declares one), ahead of every release (how many commits past which), or up to date."""
    merged = _strs(history.get("merged"))
    contained = _strs(history.get("contained_in"))
    newest_counts = _counts(history.get("newest"))
    branch_counts = _counts(history.get("branch"))
    facts = []
    if merged:
        facts.append(f"based on {merged[0]}")
    facts.append(f"first released in {contained[-1]}" if contained else "in no release yet")
    by_name = {r.raw: r for r in releases}
    distance = None
    if releases and merged:
        distance = versions.distance(by_name[merged[0]].version, releases[0].version,
                                     [r.version for r in releases])
    if releases:
        finding.newest = releases[0].raw
        finding.newest_version = str(releases[0].version)
    behind = newest_counts.get("behind", 0)
    branch_behind = branch_counts.get("behind", 0)
    ahead = newest_counts.get("ahead", 0) if releases and not behind else 0
    moved = f"{spec.branch} head moved: {_commits(branch_behind)} since the pin" \
        if spec.branch and branch_behind else ""
    past = f"{_commits(ahead)} ahead of {releases[0].raw}" if ahead else ""
    if releases and behind:
        finding.status = Status.BEHIND
        finding.behind = f"{_commits(behind)} behind {releases[0].raw}"
    elif moved:   # a declared branch is what the pin follows: behind its head is drift
        finding.status = Status.BEHIND
        finding.behind = moved
        if past:
            facts.insert(0, past)
            finding.newest = branch_head
    elif past and not spec.branch:
        finding.status = Status.AHEAD
        finding.behind = past
    else:
        finding.status = Status.UP_TO_DATE
        at = f"head of {spec.branch}" if spec.branch else f"at {releases[0].raw}"
        finding.behind = f"{at}, {past}" if past else at
    finding.detail = "; ".join([finding.behind, *facts])
    commits = max(behind, branch_behind)
    return Outcome(finding, distance if finding.status == Status.BEHIND else None, commits)


def _commits(count: int) -> str:
    return f"{count} commit{'s' if count != 1 else ''}"


def _strs(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _counts(value: object) -> dict[str, int]:
    if not isinstance(value, dict):
        return {}
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int)}
