"""The report as a terminal table, JSON, or Markdown (for PR comments and step summaries).

Every output shows a pin's text as the bake file spells it: tabulate is only ever called
through ``_tabulate``, which turns its number parsing off (``7.10`` stays ``7.10``, never
``7.1``). tabulate is imported by the tables that use it: a ``--json`` run never loads it."""

from __future__ import annotations

import json
from typing import Any

from rocm_bake_checks.drift.model import Finding, Report, Status, rule_status

MARKS = {Status.UP_TO_DATE: "ok", Status.BEHIND: "DRIFT", Status.NOT_FOUND: "DRIFT",
         Status.INCOHERENT: "DRIFT", Status.UNCHECKED: "ERROR", Status.AHEAD: "note",
         Status.WAIVED: "waived", Status.ALLOWED: "allowed", Status.UNTRACKED: "-",
         Status.AVAILABLE: "ok", Status.DIFFERS: "DRIFT"}
VERDICT = {0: "no drift beyond policy", 1: "drift found",
           2: "could not check everything (see ERROR rows)"}
EXIT_CODES = "0 no drift, 1 drift, 2 could not check"


def short(value: str) -> str:
    """A commit id or a sha256 (40 or 64 hex) as its first 12 characters; anything else as
    it is."""
    return value[:12] if len(value) in (40, 64) and \
        all(c in "0123456789abcdef" for c in value) else value


def shown(finding: Finding, value: str) -> str:
    """A pin's value (or newest) as a table cell: ``short``, and an sdist pin's URL as
    ``…/FILE`` (the row's detail names it in full when it differs)."""
    if finding.kind == "url" and "://" in value:
        return "…/" + value.rstrip("/").rsplit("/", 1)[-1]
    return short(value)


HEADERS = ["check", "pin", "pinned", "status", "newest", "detail"]
RULE_HEADERS = ["check", "coherence rule", "value", "status", "detail"]
WIDTHS = [None, 24, 14, 16, 16, 64]


def _detail(finding: Finding) -> str:
    parts = [finding.detail]
    if finding.story:
        parts.append(f"differs: {finding.story}")
    if finding.policy_note:
        parts.append(f"[{finding.policy_note}]")
    return "; ".join(parts[:2]) + (f" {parts[2]}" if len(parts) > 2 else "")


def _rows(findings: list[Finding]) -> list[list[str]]:
    return [[MARKS[f.status], f.name, shown(f, f.value), f.status.value, shown(f, f.newest),
             _detail(f)] for f in findings]


def _rule_rows(findings: list[Finding]) -> list[list[str]]:
    return [[MARKS[f.status], f.name, short(f.value), _rule_status(f), _detail(f)]
            for f in findings]


def _rule_status(finding: Finding) -> str:
    return rule_status(finding.status)


def table(report: Report, list_undeclared: bool = False) -> str:
    """The pins, then the coherence rules, each under headed columns, then the summary."""
    parts = [_tabulate(_rows(report.findings), HEADERS, maxcolwidths=WIDTHS)] \
        if report.findings or not report.unchanged else []
    if report.coherence:
        parts.append(_tabulate(_rule_rows(report.coherence), RULE_HEADERS,
                               maxcolwidths=[None, 24, 14, 16, 82]))
    parts.append(summary(report, list_undeclared))
    return "\n\n".join(parts)


def summary(report: Report, list_undeclared: bool = False) -> str:
    code = report.exit_code()
    parts = f"pins: {_counts([f.status.value for f in report.findings]) or 'none checked'}"
    if report.coherence:
        parts += f"; rules: {_counts([_rule_status(f) for f in report.coherence])}".replace(
            " holds", " hold")
    lines = [f"version-check ({report.mode}, checked {report.checked_at}): {VERDICT[code]} "
             f"- {parts}; exit {code} ({EXIT_CODES})"]
    if report.not_reported:
        lines.append(f"not reported (already drifting on the base ref): "
                     f"{', '.join(report.not_reported)}")
    if report.unchanged:
        lines.append(f"not checked (unchanged since the base ref): {', '.join(report.unchanged)}")
    if report.untracked:
        count = len(report.untracked)
        declare = f"{count} variable declares" if count == 1 else f"{count} variables declare"
        lines.append(f"{declare} no source (not pins, or not checked): " + (
            ", ".join(report.untracked) if list_undeclared else
            "list them with --list-undeclared"))
    return "\n".join(lines)


def _counts(statuses: list[str]) -> str:
    counts: dict[str, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


def as_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2)


def markdown(report: Report) -> str:
    lines = ["### rocm-bake pin drift", "", f"**{VERDICT[report.exit_code()]}** "
             f"({report.mode}, checked {report.checked_at}, exit {report.exit_code()})"]
    if report.findings or not report.unchanged:
        lines += ["", pipe_table(_rows(report.findings), HEADERS)]
    if report.coherence:
        lines += ["", pipe_table(_rule_rows(report.coherence), RULE_HEADERS)]
    if report.not_reported:
        lines += ["", f"Not reported (already drifting on the base ref): "
                      f"{', '.join(report.not_reported)}"]
    if report.unchanged:
        lines += ["", f"Not checked (unchanged since the base ref): "
                      f"{', '.join(report.unchanged)}"]
    return "\n".join(lines) + "\n"


def pipe_table(rows: list[list[str]], headers: list[str]) -> str:
    """A GitHub-flavoured Markdown table by tabulate; cells escaped for Markdown."""
    return _tabulate([[_cell(c) for c in row] for row in rows], headers, tablefmt="github")


def text_table(rows: list[list[str]], headers: list[str]) -> str:
    """A plain headed table of text cells, printed as they are."""
    return _tabulate(rows, headers)


def _tabulate(rows: list[list[str]], headers: list[str], **options: Any) -> str:
    """The one call of tabulate: cells are text, printed as they are (no number parsing,
    no float formatting)."""
    from tabulate import tabulate  # noqa: PLC0415 (see the module's doc)

    return str(tabulate(rows, headers=headers, disable_numparse=True, **options))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or " "
