"""One run of the checker: every pin, wheel and coherence rule as a task in a bounded pool,
under one total deadline, with a progress line (on a TTY, the task's).

Network first: the last run's questions are put in flight before the bake file is loaded
(``warm_up``, warmup.py), this run's git operations (history fetches, then ref listings)
before the verdict code is imported; the bake model and the verdict code load while the
network answers. Hence their imports inside the methods."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import shutil
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import UsageError
from rocm_bake_checks.drift import warmup
from rocm_bake_checks.drift.cache import DiskCache
from rocm_bake_checks.drift.fetch import Deadline, Fetcher, UnavailableError
from rocm_bake_checks.drift.model import Finding, Report, Status
from rocm_bake_checks.drift.snapshot import Snapshot
from rocm_bake_checks.drift.sources.git import GitSource
from rocm_bake_checks.drift.web import Web, WebSettings

if TYPE_CHECKING:
    from rocm_bake.model.bakefile import Definition
    from rocm_bake_checks.drift.coherence import Rule
    from rocm_bake_checks.drift.declarations import PinSpec
    from rocm_bake_checks.drift.verdicts import Checker

Task = Callable[[], list[Finding]]


@dataclass
class Settings:
    web: WebSettings = field(default_factory=WebSettings)
    deadline: float = 120.0
    workers: int = 32
    cache_dir: Path | None = None
    offline: Snapshot | None = None
    record: Snapshot | None = None
    progress: Callable[[str], None] | None = None   # the progress line goes there (the task's)
    only: tuple[str, ...] = ()
    explain: str = ""
    clock: Clock = SYSTEM


class Session:
    """Shares one fetcher (so ``--pr`` checks base and head without asking twice)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.deadline = Deadline(settings.deadline, settings.clock)
        self.fetcher = Fetcher(self.deadline, settings.offline, settings.record,
                               settings.cache_dir / "answers" if settings.cache_dir else None)
        self.web = Web(settings.web, self.fetcher, self.deadline)
        # commit history needs a repository to fetch into: with no cache, a temporary one
        self.scratch = tempfile.mkdtemp(prefix="rocm-bake-drift-") if \
            settings.cache_dir is None and settings.offline is None else ""
        self.git = GitSource(self.fetcher, self.deadline,
                             Path(self.scratch) if self.scratch else settings.cache_dir,
                             settings.web.fetched, settings.web.timeout, settings.web.via)
        if settings.offline is not None:
            self.checked_at = settings.offline.recorded_at
        else:
            self.checked_at = datetime.now(UTC).replace(microsecond=0).isoformat()
        if settings.record is not None:
            settings.record.recorded_at = self.checked_at
        self.pool = cf.ThreadPoolExecutor(max_workers=max(1, settings.workers),
                                          thread_name_prefix="drift")
        self.aborted = False

    def close(self) -> None:
        """Stop the pool; with a temporary git directory, wait for the git processes still
        at work in it (each bounded by --timeout and the deadline), then remove it."""
        self.pool.shutdown(wait=bool(self.scratch) and not self.aborted, cancel_futures=True)
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def abort(self) -> None:
        """Stop now (Ctrl-C): every git process killed, no new one started, nothing waited
        for; the requests in flight are left to the process's end (``close`` waits for none)."""
        from rocm_bake_checks.drift.sources import gitrun  # noqa: PLC0415

        self.aborted = True
        gitrun.stop_all()
        self.close()

    # -- the plan of the last run (warmup.py) ----------------------------------------------
    def _planned(self) -> bool:
        settings = self.settings
        return settings.cache_dir is not None and settings.offline is None and \
            settings.record is None and not settings.only and not settings.explain

    def warm_up(self, files: Sequence[Path]) -> None:
        """Put the last run's questions about ``files`` in flight (before they are loaded)."""
        if not self._planned():
            return
        plan = warmup.load(self._plans(), files)
        for url in plan.git:
            self.pool.submit(self.git.prefetch, url)
        for url, accept in plan.http:
            self.pool.submit(self.web.prefetch, url, accept)

    def remember(self, files: Sequence[Path]) -> None:
        """Keep this run's questions about ``files`` for the next run's ``warm_up``."""
        if self._planned():
            warmup.save(self._plans(), files,
                        warmup.Plan(list(self.git.listed), list(self.web.asked)))

    def _plans(self) -> DiskCache:
        assert self.settings.cache_dir is not None
        return DiskCache(self.settings.cache_dir / "plan")

    @property
    def today(self) -> date:
        return datetime.fromisoformat(self.checked_at).date()

    def check(self, definition: Definition, names: Collection[str] | None = None) -> Report:
        """Check ``definition``'s pins (only those in ``names`` when given; its coherence
        rules then only those that read a named variable, each with what it needs of the
        pins it does not name: ``--pr`` runs every rule a change touches)."""
        from rocm_bake.model.bake.variables import display  # noqa: PLC0415 (see the module's doc)
        from rocm_bake_checks.drift import declarations  # noqa: PLC0415
        from rocm_bake_checks.drift.coherence import Coherence  # noqa: PLC0415

        specs, untracked = declarations.read(definition)
        _known(self.settings.only, [s.name for s in specs], "--only", "pin")
        if self.settings.only:
            specs = [s for s in specs if s.name in self.settings.only]
        coherence = Coherence(definition, specs, self.git)
        rules = [] if self.settings.only else coherence.rules()
        if names is not None:
            specs = [s for s in specs if s.name in names]
            rules = [r for r in rules if coherence.reads(r[0]) & set(names)]
        wheels_only = False
        if self.settings.explain:
            specs, rules, wheels_only = _explained(self.settings.explain, specs, rules)
        self._start_git(specs, coherence.repositories(rules))
        from rocm_bake_checks.drift import stories  # noqa: PLC0415 (see the module's doc)
        from rocm_bake_checks.drift.verdicts import Checker  # noqa: PLC0415

        checker = Checker(self.web, self.git)
        tasks: list[tuple[str, Task]] = []
        for spec in specs:
            if not wheels_only:
                tasks.append((spec.name,
                              lambda s=spec: [self._pin(checker, s)]))  # type: ignore[misc]
            if spec.wheels is not None:
                tasks.append((f"{spec.name}[wheel]",
                              lambda s=spec: [self._wheel(s)]))  # type: ignore[misc]
        for rule in rules:
            tasks.append((rule[0], lambda r=rule: _some(Coherence.run(r))))  # type: ignore[misc]
        results = self.run(tasks)
        pins = [f for name, _ in tasks[:len(tasks) - len(rules)] for f in results[name]]
        pinned = {name: s.value for s in specs for name in (s.name, f"{s.name}[wheel]")}
        for finding in pins:   # a row its task could not fill still shows the pinned value
            finding.value = finding.value or pinned.get(finding.name, "")
        stories.reconcile(pins, specs)
        checks = [f for name, _ in tasks[len(tasks) - len(rules):] for f in results[name]]
        report = Report(pins, checks, self.checked_at,
                        "offline" if self.settings.offline else "live",
                        self.fetcher.cache_hits, self.fetcher.requests)
        for variable in definition.variables():
            report.values[variable.name] = display(variable.value) if variable.value is not \
                None else ""
            report.descriptions[variable.name] = variable.description or ""
        report.untracked = untracked
        report.upstreams = {s.name: s.display_upstream for s in specs}
        return report

    def _start_git(self, specs: list[PinSpec], coherence_repositories: list[str]) -> None:
        """Put the git operations in flight: first each history fetch (commit pins and the
        repositories coherence rules read; a first fetch also lists the refs), then the ref
        listing of every git pin, commit pins first (their history waits on it)."""
        for spec in specs:
            if spec.upstream == "git" and spec.pin == "commit":
                self.git.plan(spec.location, spec.branch)
        for url in coherence_repositories:
            self.git.plan(url)
        for spec in specs:   # a fetched repository lists the branches the pins name
            if spec.upstream == "git" and spec.pin == "branch" and \
                    spec.location in self.git.planned():
                self.git.plan(spec.location, spec.value)
        for url in self.git.planned():
            self.pool.submit(_quietly, self.git.sync, url)
        listed = sorted((s for s in specs if s.upstream == "git"), key=lambda s: s.pin != "commit")
        for url in dict.fromkeys(s.location for s in listed):
            self.pool.submit(self.git.prefetch, url)

    def _pin(self, checker: Checker, spec: PinSpec) -> Finding:
        from rocm_bake_checks.drift import policy  # noqa: PLC0415 (see the module's doc)

        return policy.apply(checker.check(spec), spec.policy, self.today)

    def _wheel(self, spec: PinSpec) -> Finding:
        from rocm_bake_checks.drift import wheels  # noqa: PLC0415 (see the module's doc)
        from rocm_bake_checks.drift.verdicts import pinned_version  # noqa: PLC0415

        assert spec.wheels is not None
        return wheels.verdict(self.web, spec, pinned_version(spec), spec.wheels)

    def run(self, tasks: list[tuple[str, Task]]) -> dict[str, list[Finding]]:
        """Every task in the pool under the deadline; one not done by then is UNCHECKED."""
        results: dict[str, list[Finding]] = {}
        pool = self.pool
        futures = {pool.submit(task): name for name, task in tasks}
        total = len(futures)
        try:
            for done_count, future in enumerate(
                    cf.as_completed(futures, timeout=max(0.0, self.deadline.remaining()) + 2),
                    start=1):
                results[futures[future]] = _result(future, futures[future])
                self._progress(done_count, total, futures[future])
        except cf.TimeoutError:
            pass
        finally:
            self._progress(0, 0, "")
        for name, _ in tasks:
            if name not in results:
                results[name] = [Finding(name, "", "", Status.UNCHECKED,
                                         f"the --deadline of {self.settings.deadline:g} s "
                                         "(the whole run) ran out before this was checked")]
        return results

    def _progress(self, done: int, total: int, name: str) -> None:
        """``[done/total] name`` to the settings' progress (``""`` when the run is over)."""
        if self.settings.progress is not None:
            self.settings.progress(f"[{done}/{total}] {name}" if total else "")


def _explained(name: str, specs: list[PinSpec], rules: list[Rule],
               ) -> tuple[list[PinSpec], list[Rule], bool]:
    """``--explain NAME``: only what NAME needs (the pin, its wheel, or the rule), checked;
    an unknown NAME is exit 2 with the names that apply to this bake file."""
    valid = [*(s.name for s in specs), *(f"{s.name}[wheel]" for s in specs if s.wheels),
             *(r[0] for r in rules)]
    _known([name], valid, "--explain", "pin or rule")
    pin = name.removesuffix("[wheel]")
    return [s for s in specs if s.name == pin], [r for r in rules if r[0] == name], \
        name != pin


def _known(asked: Sequence[str], names: Sequence[str], option: str, what: str) -> None:
    """Exit 2 with the valid names when ``option`` names something that is not checked."""
    unknown = [name for name in asked if name not in names]
    if unknown:
        raise UsageError(f"{option} {', '.join(unknown)}: no such {what} (valid: "
                         f"{', '.join(sorted(names))})")


def _result(future: cf.Future[list[Finding]], name: str) -> list[Finding]:
    """A task's findings; a bug in a task is 'could not check' (exit 2), never a pass."""
    try:
        return future.result()
    except Exception as exc:
        return [Finding(name, "", "", Status.UNCHECKED,
                        f"internal error: {type(exc).__name__}: {exc}")]


def _quietly(action: Callable[[str], None], url: str) -> None:
    with contextlib.suppress(UnavailableError):   # reported by whoever needs the history
        action(url)


def _some(finding: Finding | None) -> list[Finding]:
    return [finding] if finding is not None else []
