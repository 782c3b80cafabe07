"""``--pr BASE_REF``: only the drift a pull request introduces. The bake files are read at
BASE_REF through gitpython; only the pins the change adds or changes (their value or their
``_SOURCE``) are checked, on both sides with the same fetcher (nothing is asked twice), and a
head finding that was already drift on the base is left out of the verdict. A change that
touches no pin asks upstream nothing."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import git
from git.exc import GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from rocm_bake.core.errors import HCLError, UsageError
from rocm_bake.model import bakefile
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.drift.model import Finding, Report


def base_definition(files: Sequence[Path], ref: str, env: Mapping[str, str],
                    workdir: Path, note: Callable[[str], None] = lambda line: None
                    ) -> Definition:
    """The bake files as they are at ``ref``, evaluated with the same environment. ``ref``
    must name a commit (never read as an option); when it is not an ancestor of HEAD (the
    base branch moved on since the change forked), the files are read at their merge base,
    so the base's own later changes are not reported as the change's, and ``note`` is told
    so in one line."""
    first = files[0].resolve()
    try:
        repo = git.Repo(first.parent, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise UsageError(f"--pr {ref}: {first.parent} is not in a git repository") from None
    top = Path(str(repo.working_tree_dir)).resolve()
    commit = _base_commit(repo, ref, note, first.relative_to(top).as_posix())
    copies: list[Path] = []
    for path in files:
        relative = path.resolve().relative_to(top).as_posix()
        try:
            text = repo.git.show(f"{commit}:{relative}", "--")
        except GitCommandError as exc:
            reason = str(exc.stderr).strip().splitlines()[-1:] or ["unknown revision"]
            raise UsageError(f"--pr {ref}: cannot read {relative} at {ref} "
                             f"({reason[0].strip().strip(chr(39))})") from None
        copy = workdir / relative
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(text + "\n", encoding="utf-8")
        copies.append(copy)
    return bakefile.load(copies, env)


def _base_commit(repo: git.Repo, ref: str, note: Callable[[str], None], first: str) -> str:
    """The commit ``ref`` names (``git rev-parse --verify --end-of-options REF^{commit}``), or
    its merge base with HEAD when it is not an ancestor of HEAD."""
    try:
        commit = str(repo.git.rev_parse("--verify", "--quiet", "--end-of-options",
                                        f"{ref}^{{commit}}")).strip()
    except GitCommandError:
        raise UsageError(f"--pr {ref}: cannot read {first} at {ref} (it names no commit of "
                         "this repository)") from None
    try:
        repo.git.merge_base("--is-ancestor", commit, "HEAD")
        return commit
    except GitCommandError as exc:
        if exc.status != 1:
            raise UsageError(f"--pr {ref}: cannot compare it with HEAD "
                             f"({_last_line(exc)})") from None
    try:
        base = str(repo.git.merge_base(commit, "HEAD")).strip()
    except GitCommandError:
        raise UsageError(f"--pr {ref}: it shares no history with HEAD") from None
    note(f"--pr {ref}: {commit[:12]} is not an ancestor of HEAD (it moved on since this change "
         f"forked): compared with their merge base {base[:12]}")
    return base


def _last_line(exc: GitCommandError) -> str:
    lines = str(exc.stderr).strip().splitlines()
    return lines[-1].strip() if lines else f"exit status {exc.status}"


def changed_pins(head: Definition, base: Definition) -> tuple[list[str], list[str]]:
    """The head's pins that are new or differ from the base (value or declared source), and
    those that are as they were."""
    from rocm_bake_checks.drift import declarations  # noqa: PLC0415 (the bake model's reader)

    before = {spec.name: spec for spec in declarations.read(base)[0]}
    changed: list[str] = []
    unchanged: list[str] = []
    for spec in declarations.read(head)[0]:
        (unchanged if before.get(spec.name) == spec else changed).append(spec.name)
    return changed, unchanged


def changed_variables(head: Definition, base: Definition) -> list[str]:
    """The head's variables that are new or whose value differs from the base (what the
    coherence rules read besides the pins)."""
    changed: list[str] = []
    for variable in head.variables():
        try:
            before = base.value(variable.name)
        except HCLError:
            changed.append(variable.name)
            continue
        if before != head.value(variable.name):
            changed.append(variable.name)
    return changed


def only_introduced(head: Report, base: Report) -> Report:
    """Drop head drift that the base already had; keep everything else."""
    was_drift = {f.name for f in base.all() if f.status.is_drift}
    keep: list[Finding] = []
    pre_existing: list[Finding] = []
    for finding in head.findings:
        (pre_existing if finding.status.is_drift and finding.name in was_drift
         else keep).append(finding)
    coherence: list[Finding] = []
    for finding in head.coherence:
        (pre_existing if finding.status.is_drift and finding.name in was_drift
         else coherence).append(finding)
    head.findings, head.coherence = keep, coherence
    head.not_reported = [f.name for f in pre_existing]
    return head


def temporary() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="rocm-bake-pr-")
