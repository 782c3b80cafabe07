"""Per-pin policy: how far behind is tolerated (``allow_behind``) and dated waivers."""

from __future__ import annotations

from datetime import date

from rocm_bake_checks.drift.declarations import Policy
from rocm_bake_checks.drift.model import Finding, Status
from rocm_bake_checks.drift.verdicts import Outcome


def apply(outcome: Outcome, policy: Policy, today: date) -> Finding:
    finding = outcome.finding
    if finding.status == Status.BEHIND:
        allowed = _allowance(outcome, policy)
        if allowed:
            finding.status = Status.ALLOWED
            finding.policy_note = allowed
    if finding.status.is_drift and policy.waiver_until is not None:
        if today <= policy.waiver_until:
            finding.status = Status.WAIVED
            finding.policy_note = f"waived until {policy.waiver_until}: {policy.waiver_reason}"
        else:
            finding.policy_note = f"waiver expired on {policy.waiver_until}"
    return finding


def _allowance(outcome: Outcome, policy: Policy) -> str:
    behind = outcome.commits_behind
    if outcome.finding.kind == "commit" and policy.commits and 0 < behind <= policy.commits:
        return f"allowed: up to {policy.commits} commits behind"
    distance = outcome.distance
    if distance is None or distance.major:
        return ""
    if policy.minor and distance.minor <= policy.minor:
        return f"allowed: up to {policy.minor} minor behind"
    if policy.patch and not distance.minor and distance.patch <= policy.patch:
        return f"allowed: up to {policy.patch} patch behind"
    return ""
