"""The lint's committed policy file (``lint/policy.toml``): deliberate exceptions, each
with a reason. An exception without a reason, or one that matches nothing, is itself an error
or a finding -- the file cannot silently grow stale."""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from rocm_bake_checks.lint.findings import Finding, LintError

POLICY = Path(__file__).with_name("policy.toml")


@dataclass(frozen=True)
class Waiver:
    rule: str
    file: str
    contains: str
    reason: str

    def matches(self, finding: Finding) -> bool:
        return (finding.rule == self.rule and finding.file == self.file
                and self.contains in finding.message)


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


def load(path: Path = POLICY) -> Policy:
    if not path.is_file():
        return Policy()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    excludes = [_reasoned(e, f"{path} [hadolint].exclude", ("path", "reason"))["path"]
                for e in data.get("hadolint", {}).get("exclude", [])]
    exceptions = []
    for entry in data.get("exception", []):
        fields = _reasoned({"contains": "", **entry} if isinstance(entry, dict) else entry,
                           f"{path} [[exception]]", ("rule", "file", "contains", "reason"))
        exceptions.append(Waiver(**fields))
    return Policy(tuple(excludes), tuple(exceptions))


def apply(policy: Policy, findings: list[Finding], policy_file: str,
          checked: Collection[str] | None = None) -> list[Finding]:
    """Drop excepted findings; report exceptions that excuse nothing -- of the files this
    run ``checked`` (None: every file), since an exception for a file no rule read cannot
    be judged."""
    kept = [f for f in findings if not any(e.matches(f) for e in policy.exceptions)]
    for exception in policy.exceptions:
        if checked is not None and exception.file not in checked:
            continue
        if not any(exception.matches(f) for f in findings):
            kept.append(Finding(policy_file, 1, "lint-policy",
                                f"exception for {exception.rule} in {exception.file} "
                                "matches no finding: remove it"))
    return kept
