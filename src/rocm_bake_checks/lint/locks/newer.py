"""``inv version-check --locks``: every distribution the locks pin
(``dockerfiles/locks/<component>.txt``) against its newest release on the package index.

The index is asked through the drift checker's fetcher (PyPI's JSON API,
``drift.sources.pypi``): cached, recorded with ``--record``, replayed with ``--offline``,
bounded by ``--timeout`` and ``--deadline``, each distribution once however many locks pin
it.  A release counts as pip counts it: not when every file of it is yanked (PEP 592), not
when it has no file, not a pre-release or dev release unless a lock pins one of that
distribution.  Versions print as the lock and the index write them.

The ``inputs`` column says whether the lock's own inputs (``locks.inputs``) allow the newest
release: ``allows`` (every requirement naming it that applies to the images' Python and
platform admits it), ``excludes: NAME SPECIFIERS`` (the first that does not), ``indirect``
(no input names it: it is locked for what needs it, whose own requirements decide).

Report only: a newer release of a locked distribution is no drift (exit 0). A lock is frozen
on purpose and moves when someone runs ``inv lock --upgrade``; its hundreds of distributions
publish releases every week, so a failing status would be noise. Exit 2 when the index could
not be asked for a distribution (one line when it could be asked for none).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import UsageError
from rocm_bake_checks.drift import render
from rocm_bake_checks.drift import run as drift
from rocm_bake_checks.drift.fetch import UnavailableError
from rocm_bake_checks.drift.model import Candidate, Finding, Report, Status
from rocm_bake_checks.drift.session import Session, Task
from rocm_bake_checks.drift.settings import DriftSettings
from rocm_bake_checks.drift.sources import pypi
from rocm_bake_checks.drift.web import Web
from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.findings import LintError
from rocm_bake_checks.lint.locks import file as lockfile
from rocm_bake_checks.lint.locks import inputs as lockinputs
from rocm_bake_checks.lint.upstream import canonical

HEADERS = ["component", "distribution", "locked", "newest", "inputs"]


class IndexUnavailableError(LintError):
    """The index could not be asked about any locked distribution (exit status 2)."""


@dataclass(frozen=True)
class Lock:
    """One component's lock: its pins (canonical name -> version as written) and the
    requirement lines of its inputs that apply to the images' Python and platform."""

    component: str
    pins: dict[str, str]
    requirements: tuple[Requirement, ...]


@dataclass(frozen=True)
class Row:
    component: str
    distribution: str
    locked: str
    newest: str
    inputs: str

    def to_json(self) -> dict[str, str]:
        return {"component": self.component, "distribution": self.distribution,
                "locked": self.locked, "newest": self.newest, "inputs": self.inputs}


@dataclass
class LockReport:
    checked_at: str
    mode: str
    locks: list[Lock]
    asked: list[Finding]
    rows: list[Row] = field(default_factory=list)
    requests: int = 0
    cache_hits: int = 0

    @property
    def unchecked(self) -> list[Finding]:
        return [f for f in self.asked if f.status == Status.UNCHECKED]

    def exit_code(self) -> int:
        """0: every distribution asked (newer releases or not); 2: one could not be."""
        return 2 if self.unchecked else 0

    def to_json(self) -> dict[str, Any]:
        return {"checked_at": self.checked_at, "mode": self.mode,
                "exit_code": self.exit_code(),
                "locks": {lock.component: len(lock.pins) for lock in self.locks},
                "distributions": len(self.asked),
                "newer": [row.to_json() for row in self.rows],
                "unchecked": [{"distribution": f.name, "reason": f.detail}
                              for f in self.unchecked],
                "requests": self.requests, "answered_from_cache": self.cache_hits}


def run(options: DriftSettings, env: Mapping[str, str] | None = None,
        clock: Clock = SYSTEM, progress: drift.Say | None = None) -> LockReport:
    """Read the locks, ask the index; the report (``render`` makes its text)."""
    environ = dict(os.environ if env is None else env)
    settings = drift.prepare(options, environ, clock, progress)
    files = [Path(f) for f in options.files]
    locks = read(files)
    names = sorted({name for lock in locks for name in lock.pins})
    if options.explain:
        if canonical(options.explain) not in names:
            raise UsageError(f"--explain {options.explain}: no lock pins it (the locks pin "
                             f"{len(names)} distributions, e.g. {', '.join(names[:5])})")
        names = [canonical(options.explain)]
    session = Session(settings)
    try:
        report = check(session, locks, names)
    finally:
        session.close()
    if settings.record is not None:
        settings.record.save(Path(options.record))
    if names and len(report.unchecked) == len(names):
        raise IndexUnavailableError(
            f"the index could not be asked about any of the {len(names)} locked "
            f"distributions: {report.unchecked[0].detail}")
    return report


def render_report(options: DriftSettings, report: LockReport) -> str:
    """The report as asked: ``--explain``'s distribution, JSON or the table."""
    if options.explain:
        return _explain(report)
    if options.output == "json":
        return json.dumps(report.to_json(), indent=2) + "\n"
    return table(report)


def read(files: Sequence[Path]) -> list[Lock]:
    """Every component's lock, with its inputs (as ``inv lint`` derives them)."""
    root = files[0].parent
    definition = bakemodel.load(files)
    targets = bakemodel.targets(definition, root)
    every = lockinputs.derive(definition, list(files), targets, root,
                              upstream.Metadata(upstream.Settings()))
    out = []
    for inputs in every:
        path = inputs.lock_path(root)
        if not path.is_file():
            raise LintError(f"{relative(path, root)}: component {inputs.component} has no lock: "
                            "run `inv lock`")
        out.append(Lock(inputs.component, lockfile.pins(path.read_text(encoding="utf-8")),
                        _applying(inputs)))
    if not out:
        raise LintError(f"{files[0]}: no component installs from a lock (nothing to ask)")
    return out


def _applying(inputs: lockinputs.Inputs) -> tuple[Requirement, ...]:
    """The inputs' requirements whose markers hold for the images' Python and platform."""
    machine = inputs.platform.split("-", maxsplit=1)[0]
    environment = {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
                   "platform_machine": machine, "implementation_name": "cpython",
                   "platform_python_implementation": "CPython",
                   "python_version": inputs.python, "python_full_version": f"{inputs.python}.0",
                   "extra": ""}
    out = []
    for line in inputs.requirements:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(environment):
            out.append(requirement)
    return tuple(out)


def check(session: Session, locks: list[Lock], names: list[str]) -> LockReport:
    """Ask the index about ``names`` (concurrently, each once) and list every pin of a lock
    that has a newer release."""
    pinned: dict[str, set[str]] = {}
    for lock in locks:
        for name, version in lock.pins.items():
            pinned.setdefault(name, set()).add(version)
    tasks: list[tuple[str, Task]] = [
        (name, functools.partial(_newest, session.web, name, sorted(pinned[name])))
        for name in names]
    results = session.run(tasks)
    asked = [results[name][0] for name in names]
    report = LockReport(session.checked_at, "offline" if session.settings.offline else "live",
                        locks, asked, requests=session.fetcher.requests,
                        cache_hits=session.fetcher.cache_hits)
    found = {f.name: f for f in asked}
    for lock in locks:
        for name, version in sorted(lock.pins.items()):
            finding = found.get(name)
            if finding is None or not finding.newest or not _newer(finding.newest, version):
                continue
            report.rows.append(Row(lock.component, name, version, finding.newest,
                                   allowed(lock.requirements, name, Version(finding.newest))))
    return report


def _newest(web: Web, name: str, pinned: list[str]) -> list[Finding]:
    return [newest(web, name, pinned)]


def newest(web: Web, name: str, pinned: list[str]) -> Finding:
    """``name``'s newest release as pip would pick it (``Finding.newest``, as the index
    writes it), every release seen in its explanation."""
    finding = Finding(name, ", ".join(pinned), "lock", Status.UNCHECKED, "",
                      upstream=web.where(f"{web.settings.pypi}/pypi/{name}/json"))
    log = finding.explanation
    try:
        states = pypi.release_states(web, name, log)
    except UnavailableError as exc:
        finding.detail = str(exc)
        return finding
    pre = any(_is_pre(version) for version in pinned)
    best: tuple[Version, str] | None = None
    for raw, state in states.items():
        dropped = _dropped(raw, state, pre)
        log.candidates.append(Candidate(raw, "", dropped))
        if not dropped and (best is None or Version(raw) > best[0]):
            best = (Version(raw), raw)
    if best is None:
        finding.detail = "no release on the index counts (every one yanked, file-less or a " \
                         "pre-release)"
        return finding
    finding.newest = best[1]
    behind = [v for v in pinned if _newer(best[1], v)]
    finding.status = Status.BEHIND if behind else Status.UP_TO_DATE
    finding.detail = f"newer release {best[1]} than {', '.join(behind)}" if behind else \
        "the newest release is locked"
    log.winner = f"{best[1]}: the highest release pip would take"
    return finding


def _dropped(raw: str, state: str, pre: bool) -> str:
    """Why pip would not take release ``raw`` (``state``: pypi.release_states'), or ''."""
    try:
        version = Version(raw)
    except InvalidVersion:
        return "not PEP 440"
    if state == pypi.YANKED:
        return "yanked (every file)"
    if state:
        return state
    if version.is_prerelease and not pre:
        kind = "dev release" if version.is_devrelease else "pre-release"
        return f"{kind} (no lock pins one)"
    return ""


def _is_pre(text: str) -> bool:
    try:
        return Version(text).is_prerelease
    except InvalidVersion:
        return False


def _newer(candidate: str, locked: str) -> bool:
    try:
        return Version(candidate) > Version(locked)
    except InvalidVersion:
        return False


def allowed(requirements: Sequence[Requirement], name: str, version: Version) -> str:
    """Whether the inputs' requirements on ``name`` admit ``version``."""
    naming = [r for r in requirements if canonical(r.name) == name]
    if not naming:
        return "indirect"
    for requirement in naming:
        if not requirement.specifier.contains(version, prereleases=True):
            extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
            return f"excludes: {requirement.name}{extras}{requirement.specifier}"
    return "allows"


def table(report: LockReport) -> str:
    order = {lock.component: index for index, lock in enumerate(report.locks)}
    rows = sorted(report.rows, key=lambda r: (order[r.component], r.distribution))
    parts = [render.text_table([[r.component, r.distribution, r.locked, r.newest, r.inputs]
                                for r in rows], HEADERS)] if rows else []
    parts += [f"ERROR {f.name}: {f.detail}" for f in report.unchecked]
    parts.append(summary(report))
    return "\n".join(parts) + "\n"


def summary(report: LockReport) -> str:
    pins = sum(len(lock.pins) for lock in report.locks)
    names = len({row.distribution for row in report.rows})
    line = (f"version-check --locks ({report.mode}, checked {report.checked_at}): "
            f"{len(report.rows)} of {pins} pins in {len(report.locks)} locks have a newer "
            f"release ({names} of {len(report.asked)} distributions asked)")
    if report.unchecked:
        return line + f"; {len(report.unchecked)} could not be asked (exit 2)"
    return line + "; report only (exit 0)"


def _explain(report: LockReport) -> str:
    from rocm_bake_checks.drift import explain  # noqa: PLC0415 (--explain only)

    finding = report.asked[0]
    where = [f"{lock.component} {lock.pins[finding.name]}" for lock in report.locks
             if finding.name in lock.pins]
    finding.explanation.notes.append(f"locked by: {', '.join(where)}")
    finding.explanation.notes += [f"{row.component}: inputs {row.inputs}"
                                  for row in report.rows]
    text = explain.render(Report([finding], [], report.checked_at, report.mode), finding.name)
    return text + "\n"
