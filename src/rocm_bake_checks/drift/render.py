"""The report as a terminal table, JSON, or Markdown (for PR comments and step summaries)."""

from __future__ import annotations

import json

from tabulate import tabulate

from rocm_bake_checks.drift.model import Finding, Report, Status

MARKS = {Status.UP_TO_DATE: "ok", Status.BEHIND: "DRIFT", Status.NOT_FOUND: "DRIFT",
         Status.INCOHERENT: "DRIFT", Status.UNCHECKED: "ERROR", Status.AHEAD: "note",
         Status.WAIVED: "waived", Status.ALLOWED: "allowed", Status.UNTRACKED: "-"}
VERDICT = {0: "no drift beyond policy", 1: "drift found",
           2: "could not check everything (see ERROR rows)"}


def short(value: str) -> str:
    return value[:12] if len(value) == 40 and all(c in "0123456789abcdef" for c in value) \
        else value


def _detail(finding: Finding) -> str:
    return f"{finding.detail} [{finding.policy_note}]" if finding.policy_note else finding.detail


def _rows(report: Report) -> list[list[str]]:
    return [[MARKS[f.status], f.name, short(f.value), f.status.value, short(f.newest),
             _detail(f)] for f in report.all()]


def table(report: Report) -> str:
    body = tabulate(_rows(report), headers=["", "pin", "value", "status", "newest", "detail"],
                    maxcolwidths=[None, 32, 14, 22, 16, 72])
    return f"{body}\n\n{summary(report)}"


def summary(report: Report) -> str:
    code = report.exit_code()
    counts: dict[str, int] = {}
    for finding in report.all():
        counts[finding.status.value] = counts.get(finding.status.value, 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    lines = [f"version-check ({report.mode}, checked {report.checked_at}): {VERDICT[code]} "
             f"- {parts}; exit {code}"]
    if report.not_reported:
        lines.append(f"not reported (already drifting on the base ref): "
                     f"{', '.join(report.not_reported)}")
    if report.untracked:
        lines.append(f"{len(report.untracked)} variables declare no source (not pins or not "
                     "checked): " + ", ".join(report.untracked))
    return "\n".join(lines)


def as_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2)


def markdown(report: Report) -> str:
    lines = ["### rocm-bake pin drift", "", f"**{VERDICT[report.exit_code()]}** "
             f"({report.mode}, checked {report.checked_at}, exit {report.exit_code()})", "",
             "| | pin | value | status | newest | detail |", "|---|---|---|---|---|---|"]
    for row in _rows(report):
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    if report.not_reported:
        lines += ["", f"Not reported (already drifting on the base ref): "
                      f"{', '.join(report.not_reported)}"]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or " "
