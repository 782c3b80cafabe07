"""The steps of a GitHub Actions workflow's one job, as ``scripts/lane.sh`` runs them: each
``run:`` with its environment (workflow, job, step), ``actions/checkout`` as the clone, and the
few ``${{ }}`` expressions a copied lane needs. Anything else is an error naming it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CHECKOUT = "actions/checkout@"
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
_STEP_KEYS = {"name", "run", "env", "uses", "with"}
_CHECKOUT_WITH = {"fetch-depth"}
# Job keys that change nothing here: the runner and its container are this machine.
_JOB_KEYS = {"name", "runs-on", "container", "timeout-minutes", "env", "steps"}


class WorkflowError(Exception):
    """The workflow asks for something the lane cannot do here."""


@dataclass(frozen=True)
class Step:
    """One step: a shell script (``run``) with its own environment, or the checkout."""

    name: str
    run: str | None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Job:
    name: str
    env: dict[str, str]
    steps: list[Step]


def expand(text: str, context: Mapping[str, str], where: str) -> str:
    """``${{ NAME }}`` replaced from ``context``; an unknown expression is an error."""
    def value(match: re.Match[str]) -> str:
        if match.group(1) not in context:
            raise WorkflowError(f"{where}: cannot evaluate ${{{{ {match.group(1)} }}}} here "
                                f"(known: {', '.join(sorted(context))})")
        return context[match.group(1)]
    return _EXPRESSION.sub(value, text)


def _env(mapping: Any, context: Mapping[str, str], where: str) -> dict[str, str]:
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise WorkflowError(f"{where}: env is not a mapping")
    return {str(k): expand(str(v).lower() if isinstance(v, bool) else str(v), context,
                           f"{where}: env {k}") for k, v in mapping.items()}


def _step(raw: Any, number: int, context: Mapping[str, str], job: str) -> Step:
    if not isinstance(raw, dict):
        raise WorkflowError(f"job {job}: step {number} is not a mapping")
    name = str(raw.get("name") or raw.get("uses") or f"run {number}")
    where = f"job {job}: step {number} ({name})"
    unknown = set(raw) - _STEP_KEYS
    if unknown:
        raise WorkflowError(f"{where}: cannot run {', '.join(sorted(unknown))} here")
    uses = raw.get("uses")
    if uses is not None:
        if not str(uses).startswith(CHECKOUT) or "run" in raw:
            raise WorkflowError(f"{where}: only {CHECKOUT}... is run here (as the clone)")
        options = raw.get("with") or {}
        if set(options) - _CHECKOUT_WITH or options.get("fetch-depth", 1) not in (0, 1):
            raise WorkflowError(f"{where}: checkout options other than fetch-depth 0 or 1: "
                                f"{options}")
        return Step(name, None)
    if "with" in raw or not isinstance(raw.get("run"), str):
        raise WorkflowError(f"{where}: a step needs `run:` or `uses: {CHECKOUT}...`")
    return Step(name, expand(raw["run"], context, where), _env(raw.get("env"), context, where))


def load(path: Path, context: Mapping[str, str]) -> Job:
    """The workflow's only job: its environment (workflow's then job's) and steps."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise WorkflowError(f"{path}: {exc}") from None
    jobs = data.get("jobs") if isinstance(data, dict) else None
    if not isinstance(jobs, dict) or len(jobs) != 1:
        raise WorkflowError(f"{path}: expected exactly one job")
    (job_id, job), = jobs.items()
    unknown = set(job) - _JOB_KEYS
    if unknown:
        raise WorkflowError(f"{path}: job {job_id}: cannot run {', '.join(sorted(unknown))} "
                            "here")
    env = {**_env(data.get("env"), context, f"{path}: env"),
           **_env(job.get("env"), context, f"job {job_id}: env")}
    steps = [_step(raw, n, context, job_id) for n, raw in enumerate(job.get("steps") or [], 1)]
    return Job(str(job.get("name") or job_id), env, steps)
