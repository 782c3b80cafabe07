"""``--explain NAME``: the queries made for a pin, every candidate seen, the rule that dropped
each, and why the winner won."""

from __future__ import annotations

from rocm_bake.core.errors import UsageError
from rocm_bake_checks.drift.model import Finding, Report


def find(report: Report, name: str) -> list[Finding]:
    found = [f for f in report.all() if f.name in (name, f"{name}[wheel]")]
    if not found:
        known = ", ".join(f.name for f in report.all())
        raise UsageError(f"--explain {name}: no such pin or rule (known: {known})")
    return found


def render(report: Report, name: str) -> str:
    return "\n\n".join(_one(f) for f in find(report, name))


def _one(finding: Finding) -> str:
    log = finding.explanation
    status = finding.status.value
    detail = finding.detail.removeprefix(f"{status}: ")   # a detail that starts with it
    lines = [f"{finding.name} = {finding.value}", f"  upstream: {finding.upstream or '-'}",
             f"  verdict:  {status}: {detail}" if detail else f"  verdict:  {status}"]
    if finding.policy_note:
        lines.append(f"  policy:   {finding.policy_note}")
    lines.append(f"  queries ({len(log.queries)}):")
    lines += [f"    {q.key}  ->  {q.outcome}" for q in log.queries] or ["    (none)"]
    kept = [c for c in log.candidates if not c.dropped]
    lines.append(f"  candidates ({len(log.candidates)} seen, {len(kept)} kept):")
    for candidate in log.candidates:
        mark = "kept" if not candidate.dropped else f"dropped: {candidate.dropped}"
        version = f" -> {candidate.version}" if candidate.version else ""
        lines.append(f"    {candidate.raw}{version}  [{mark}]")
    lines += [f"  note: {n}" for n in log.notes]
    lines.append(f"  winner: {log.winner or '(none)'}")
    return "\n".join(lines)
