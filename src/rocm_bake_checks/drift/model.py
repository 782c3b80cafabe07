"""The one data model every output is rendered from: pins, candidates, verdicts, the report."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Status(enum.Enum):
    """A pin's verdict. ``failing`` statuses are drift; UNCHECKED makes the run exit 2."""

    UP_TO_DATE = "up to date"
    BEHIND = "behind"
    AHEAD = "ahead"
    NOT_FOUND = "pin not found upstream"
    UNCHECKED = "could not check"
    INCOHERENT = "incoherent"
    WAIVED = "waived"
    ALLOWED = "behind (within policy)"
    UNTRACKED = "no source declared"
    AVAILABLE = "wheel available"   # a wheel of the pin exists; a newer one does too
    DIFFERS = "differs from upstream"   # a content pin (sdist URL, sha256) upstream lists otherwise

    @property
    def is_drift(self) -> bool:
        return self in (Status.BEHIND, Status.NOT_FOUND, Status.INCOHERENT, Status.DIFFERS)


def rule_status(status: Status) -> str:
    """A coherence rule's status as every output names it: a rule that is up to date holds."""
    return "holds" if status == Status.UP_TO_DATE else status.value


@dataclass
class Candidate:
    """One thing seen upstream (a tag, a release, a file) and what the rules made of it."""

    raw: str
    version: str = ""
    dropped: str = ""  # the rule that dropped it; empty = kept

    def to_json(self) -> dict[str, str]:
        out = {"raw": self.raw, "version": self.version}
        if self.dropped:
            out["dropped"] = self.dropped
        return out


@dataclass
class Query:
    """One request made (or replayed) for a pin, for ``--explain``."""

    key: str
    outcome: str

    def to_json(self) -> dict[str, str]:
        return {"query": self.key, "outcome": self.outcome}


@dataclass
class Explanation:
    queries: list[Query] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    winner: str = ""
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"queries": [q.to_json() for q in self.queries],
                "candidates": [c.to_json() for c in self.candidates],
                "winner": self.winner, "notes": list(self.notes)}


@dataclass
class Finding:
    """The verdict for one pin (or one coherence rule)."""

    name: str
    value: str
    kind: str
    status: Status
    detail: str
    upstream: str = ""
    newest: str = ""
    behind: str = ""
    explanation: Explanation = field(default_factory=Explanation)
    policy_note: str = ""
    newest_version: str = ""   # PEP 440 form of ``newest`` (compares rows of one component)
    story: str = ""            # why this row's newest differs from a sibling row's

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "kind": self.kind,
                "status": self.status.value, "drift": self.status.is_drift,
                "detail": self.detail, "upstream": self.upstream, "newest": self.newest,
                "behind": self.behind, "policy": self.policy_note, "story": self.story}


@dataclass
class Report:
    findings: list[Finding]
    coherence: list[Finding]
    checked_at: str
    mode: str
    cache_hits: int = 0
    requests: int = 0
    descriptions: dict[str, str] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    untracked: list[str] = field(default_factory=list)
    upstreams: dict[str, str] = field(default_factory=dict)
    not_reported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)   # --pr: pins the change leaves as is

    def all(self) -> list[Finding]:
        return [*self.findings, *self.coherence]

    def exit_code(self) -> int:
        """0 = no drift beyond policy, 1 = drift, 2 = something could not be checked."""
        statuses = [f.status for f in self.all()]
        if Status.UNCHECKED in statuses:
            return 2
        return 1 if any(s.is_drift for s in statuses) else 0

    def to_json(self) -> dict[str, Any]:
        return {"checked_at": self.checked_at, "mode": self.mode,
                "exit_code": self.exit_code(),
                "pins": [f.to_json() for f in self.findings],
                "coherence": [{**f.to_json(), "status": rule_status(f.status)}
                              for f in self.coherence],
                "untracked": list(self.untracked), "not_reported": list(self.not_reported),
                "unchanged": list(self.unchanged),
                "requests": self.requests, "answered_from_cache": self.cache_hits}
