"""The steps of a GitHub Actions workflow's one job, as ``scripts/lane.sh`` runs them: each
``run:`` with its environment (workflow, job, step), ``actions/checkout`` as the clone,
``actions/upload-artifact`` as a copy into the lane's artifacts folder, ``if: ${{ always() }}``
or ``${{ !cancelled() }}`` (the step runs after an earlier one failed), and the few ``${{ }}``
expressions a copied lane needs. Anything else is an error naming it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CHECKOUT = "actions/checkout@"
UPLOAD = "actions/upload-artifact@"
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
_STEP_KEYS = {"name", "run", "env", "uses", "with", "if"}
_CHECKOUT_WITH = {"fetch-depth"}
_UPLOAD_WITH = {"name", "path", "if-no-files-found", "retention-days"}
# The conditions a lane may put on a step: both run it whatever the earlier steps did (this
# lane is never cancelled but by stopping it whole).
_ALWAYS = {"${{ always() }}", "${{ !cancelled() }}"}
# Job keys that change nothing here: the runner and its container are this machine.
_JOB_KEYS = {"name", "runs-on", "container", "timeout-minutes", "env", "steps"}


class WorkflowError(Exception):
    """The workflow asks for something the lane cannot do here."""


@dataclass(frozen=True)
class Upload:
    """``actions/upload-artifact``: the file or folder ``path`` (in the workspace) kept as the
    artifact ``name``; ``required`` when ``if-no-files-found: error``."""

    name: str
    path: str
    required: bool


@dataclass(frozen=True)
class Step:
    """One step: a shell script (``run``) with its own environment, an upload, or (neither)
    the checkout. ``always``: it runs even after an earlier step failed."""

    name: str
    run: str | None
    env: dict[str, str] = field(default_factory=dict)
    always: bool = False
    upload: Upload | None = None


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
    condition = raw.get("if")
    if condition is not None and str(condition).strip() not in _ALWAYS:
        raise WorkflowError(f"{where}: cannot evaluate if: {condition} here (known: "
                            f"{', '.join(sorted(_ALWAYS))})")
    always = condition is not None
    uses = raw.get("uses")
    if uses is not None and "run" not in raw:
        if str(uses).startswith(CHECKOUT):
            return _checkout(name, raw.get("with") or {}, where)
        if str(uses).startswith(UPLOAD):
            return Step(name, None, always=always,
                        upload=_upload(raw.get("with") or {}, context, where))
    if uses is not None:
        raise WorkflowError(f"{where}: only {CHECKOUT}... (as the clone) and {UPLOAD}... are "
                            "run here")
    if "with" in raw or not isinstance(raw.get("run"), str):
        raise WorkflowError(f"{where}: a step needs `run:` or `uses: {CHECKOUT}...`")
    return Step(name, expand(raw["run"], context, where), _env(raw.get("env"), context, where),
                always=always)


def _checkout(name: str, options: Mapping[str, Any], where: str) -> Step:
    if set(options) - _CHECKOUT_WITH or options.get("fetch-depth", 1) not in (0, 1):
        raise WorkflowError(f"{where}: checkout options other than fetch-depth 0 or 1: "
                            f"{dict(options)}")
    return Step(name, None)


def _upload(options: Mapping[str, Any], context: Mapping[str, str], where: str) -> Upload:
    unknown = set(options) - _UPLOAD_WITH
    if unknown or "name" not in options or "path" not in options:
        raise WorkflowError(f"{where}: upload-artifact needs name and path (and knows only "
                            f"{', '.join(sorted(_UPLOAD_WITH))}): {dict(options)}")
    path = expand(str(options["path"]), context, where)
    if "\n" in path.strip() or any(c in path for c in "*?!"):
        raise WorkflowError(f"{where}: upload-artifact of one file or folder only: {path!r}")
    return Upload(expand(str(options["name"]), context, where), path.strip(),
                  options.get("if-no-files-found", "warn") == "error")


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
