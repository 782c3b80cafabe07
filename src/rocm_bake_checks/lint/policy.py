"""The lint's committed policy file (``lint/policy.toml``): deliberate exceptions, each
with a reason. An exception without a reason, or one that matches nothing, is itself an error
or a finding -- the file cannot silently grow stale.

A waiver states a deliberate difference and the reason it is kept; an open question is no
reason.  A reason is *open* when (case-insensitively) its first word is one of ``OPEN_WORDS``
(``OPEN``, ``TODO``, ``TBD``, ``FIXME``, ``XXX``, also as ``OPEN:`` or ``(OPEN ...)``) or it
contains one of ``OPEN_PHRASES`` ("not seen here", "no build here has shown", ...: the
difference is kept because nothing has failed yet).  An open waiver excuses nothing: its
finding stays, and the waiver is a ``lint-policy`` finding at its own line."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from rocm_bake_checks.lint.findings import Finding, LintError

POLICY = Path(__file__).with_name("policy.toml")
OPEN_WORDS = ("OPEN", "TODO", "TBD", "FIXME", "XXX")
OPEN_PHRASES = ("not seen here", "no build here has shown", "not been seen", "has not shown",
                "to be decided", "not yet decided", "unknown whether", "not yet known")
_FIRST_WORD = re.compile(r"^\W*([A-Za-z]+)\b")
_HEADER = re.compile(r"^\s*\[\[\s*exception\s*\]\]\s*(?:#.*)?$")


@dataclass(frozen=True)
class Waiver:
    rule: str
    file: str
    contains: str
    reason: str
    line: int = 1               # its [[exception]] header in the policy file

    def matches(self, finding: Finding) -> bool:
        return (finding.rule == self.rule and finding.file == self.file
                and self.contains in finding.message)

    def open_question(self) -> str:
        """What makes the reason an open question ("" when it states a reason)."""
        return open_question(self.reason)


def open_question(reason: str) -> str:
    """The word or phrase that makes ``reason`` an open question, "" when there is none."""
    first = _FIRST_WORD.match(reason)
    if first and first.group(1).upper() in OPEN_WORDS:
        return first.group(1)
    lowered = reason.lower()
    return next((p for p in OPEN_PHRASES if p in lowered), "")


@dataclass(frozen=True)
class Policy:
    hadolint_exclude: tuple[str, ...] = ()
    exceptions: tuple[Waiver, ...] = ()


def _reasoned(entry: object, where: str, keys: tuple[str, ...]) -> dict[str, str]:
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in keys):
        raise LintError(f"{where}: each entry needs string fields {', '.join(keys)}")
    if not str(entry["reason"]).strip():
        raise LintError(f"{where}: an exception needs a non-empty reason")
    return {k: str(entry[k]) for k in keys}


def header_lines(text: str, pattern: re.Pattern[str] = _HEADER) -> list[int]:
    """The 1-based line of each array-of-tables header ``pattern`` matches, in order (the
    n-th is the n-th entry tomllib reads)."""
    return [n for n, line in enumerate(text.splitlines(), 1) if pattern.match(line)]


def load(path: Path = POLICY) -> Policy:
    if not path.is_file():
        return Policy()
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    excludes = [_reasoned(e, f"{path} [hadolint].exclude", ("path", "reason"))["path"]
                for e in data.get("hadolint", {}).get("exclude", [])]
    exceptions = []
    lines = header_lines(text)
    for index, entry in enumerate(data.get("exception", [])):
        line = lines[index] if index < len(lines) else 1
        fields = _reasoned({"contains": "", **entry} if isinstance(entry, dict) else entry,
                           f"{path}:{line} [[exception]]", ("rule", "file", "contains", "reason"))
        exceptions.append(Waiver(**fields, line=line))
    return Policy(tuple(excludes), tuple(exceptions))


def apply(policy: Policy, findings: list[Finding], policy_file: str,
          checked: Collection[str] | None = None) -> list[Finding]:
    """Drop excepted findings; report exceptions whose reason is an open question (they
    excuse nothing) and exceptions that excuse nothing -- of the files this run ``checked``
    (None: every file), since an exception for a file no rule read cannot be judged."""
    held = [e for e in policy.exceptions if not e.open_question()]
    kept = [f for f in findings if not any(e.matches(f) for e in held)]
    for exception in policy.exceptions:
        word = exception.open_question()
        if word:
            kept.append(Finding(policy_file, exception.line, "lint-policy",
                                f"exception for {exception.rule} in {exception.file} gives an "
                                f"open question ({word!r}) as its reason, so it waives "
                                "nothing: fix what it waives, or state the deliberate "
                                "difference and why it is kept"))
            continue
        if checked is not None and exception.file not in checked:
            continue
        if not any(exception.matches(f) for f in findings):
            kept.append(Finding(policy_file, exception.line, "lint-policy",
                                f"exception for {exception.rule} in {exception.file} "
                                "matches no finding: remove it"))
    return kept
