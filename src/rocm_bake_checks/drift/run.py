"""``inv version-check``'s check: its settings (``settings.DriftSettings``) in, a report out
(``check``; ``check_images`` for ``--images``), and the report's text as asked
(``render_report``, ``render_images``); ``--docs``' page written or compared. The task prints
the text, appends it to the step summary and exits with the report's status
(``tasks/versions.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_bake.core import redact
from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import StoppedError, UsageError
from rocm_bake_checks.drift import explain, render, snapshot
from rocm_bake_checks.drift.model import Report
from rocm_bake_checks.drift.session import Session, Settings
from rocm_bake_checks.drift.settings import DriftSettings
from rocm_bake_checks.drift.snapshot import Snapshot
from rocm_bake_checks.drift.web import WebSettings

if TYPE_CHECKING:
    from rocm_bake_checks.drift.docs import Replayed
    from rocm_bake_checks.drift.images import ImagesReport

DEFAULT_GITHUB_API = "https://api.github.com"
DEFAULT_PYPI = "https://pypi.org"
CACHE_OFF = "off"
INTERRUPTED = "interrupted: every upstream request stopped, nothing written"

Say = Callable[[str], None]   # a line for the task to show (a warning, the progress line)


def _unsaid(line: str) -> None:
    """What a caller that shows nothing passes."""


@dataclass
class Checked:
    """A check's report, and what ``--docs`` needs of the run that made it."""

    report: Report
    root: Path                   # the first bake file's directory: where the page lives
    offline: Snapshot | None     # the snapshot replayed (--offline), which the page names


def check(settings: DriftSettings, env: Mapping[str, str] | None = None,
          clock: Clock = SYSTEM, *, warn: Say = _unsaid, progress: Say | None = None
          ) -> Checked:
    """Every pin (with ``--pr``: the drift the change introduced) against upstream; the
    snapshot written with ``--record``. ``clock`` is what waits (rate limits, retries) and
    keeps the deadline; ``warn`` gets ``--pr``'s warning lines, ``progress`` the progress
    line (None: none). Ctrl-C: StoppedError, every request abandoned."""
    environ = dict(os.environ if env is None else env)
    prepared = prepare(settings, environ, clock, progress)
    files = [Path(f) for f in settings.files]
    session = Session(prepared)
    try:
        if settings.pr:
            report = _pr(session, files, settings.pr, environ, warn)
        else:
            session.warm_up(files)
            from rocm_bake.model import bakefile  # noqa: PLC0415 (loads while the warm-up is in flight)

            report = session.check(bakefile.load(files, environ))
            session.remember(files)
    except KeyboardInterrupt:
        session.abort()
        raise StoppedError(INTERRUPTED) from None
    finally:
        session.close()
    if prepared.record is not None:
        prepared.record.save(Path(settings.record))
    return Checked(report, files[0].parent, prepared.offline)


def render_report(settings: DriftSettings, report: Report) -> str:
    """The report as asked: ``--explain``'s story, JSON, Markdown or the table (the renderer
    the task calls; it prints the text)."""
    if settings.explain:
        return explain.render(report, settings.explain) + "\n"
    if settings.output == "json":
        return render.as_json(report) + "\n"
    if settings.output == "markdown":
        return render.markdown(report)
    return render.table(report, settings.list_undeclared) + "\n"


def docs_page(settings: DriftSettings, checked: Checked) -> Path:
    """Where ``--docs`` writes (``--docs-file``, else the checkout's variables page)."""
    from rocm_bake_checks.drift import docs  # noqa: PLC0415 (lean start-up: --docs only)

    return Path(settings.docs_file) if settings.docs_file else checked.root / docs.PAGE


def docs_stale(settings: DriftSettings, checked: Checked) -> bool:
    """``--docs --check``: whether the page differs from what this run makes of it."""
    from rocm_bake_checks.drift import docs  # noqa: PLC0415

    return docs.stale(checked.report, docs_page(settings, checked), _replayed(settings, checked))


def write_docs(settings: DriftSettings, checked: Checked) -> Path:
    """``--docs``: the variables page written from this run's report; its path."""
    from rocm_bake_checks.drift import docs  # noqa: PLC0415

    page = docs_page(settings, checked)
    docs.write(checked.report, page, _replayed(settings, checked))
    return page


def _replayed(settings: DriftSettings, checked: Checked) -> Replayed | None:
    from rocm_bake_checks.drift import docs  # noqa: PLC0415

    if checked.offline is None:
        return None
    return docs.Replayed(_shown(Path(settings.offline), checked.root), checked.offline)


def check_images(settings: DriftSettings, env: Mapping[str, str] | None = None,
                 clock: Clock = SYSTEM, *, progress: Say | None = None) -> ImagesReport:
    """``--images [REGISTRY]``: every published cell image against the bake file and upstream
    (with ``--images-out``: its JSON written there too)."""
    from rocm_bake.oci.registry import Registry  # noqa: PLC0415 (--images only)
    from rocm_bake_checks.drift import images  # noqa: PLC0415 (--images only)

    environ = dict(os.environ if env is None else env)
    prepared = prepare(settings, environ, clock, progress)
    host, _, prefix = (settings.images or _fleet_registry(settings.fleet)).partition("/")
    session = Session(prepared)
    try:
        registry = Registry(host, timeout=settings.timeout, clock=prepared.clock,
                            run=session.deadline)   # --timeout per request, --deadline in all
        report = images.check(registry, settings.files, environ,
                              lambda definition, names: session.check(definition,
                                                                      names).findings,
                              prefix.strip("/"))
    finally:
        session.close()
    if prepared.record is not None:
        prepared.record.save(Path(settings.record))
    if settings.images_out:
        images.write(report, Path(settings.images_out))
    return report


def render_images(settings: DriftSettings, report: ImagesReport) -> str:
    """``--images``' report as asked: JSON or the table."""
    from rocm_bake_checks.drift import images  # noqa: PLC0415

    return (images.as_json(report) if settings.output == "json" else images.table(report)) \
        + "\n"


def _fleet_registry(path: str) -> str:
    from urllib.parse import urlparse  # noqa: PLC0415

    from rocm_bake.fleetbuild import config as fleet  # noqa: PLC0415 (--images without a registry only)

    url = fleet.load(path).registry
    host = urlparse(url).netloc
    if not host:
        raise UsageError(f"{path}: registry url {url!r} has no host")
    return host


def _pr(session: Session, files: list[Path], ref: str, environ: Mapping[str, str],
        warn: Say) -> Report:
    """``--pr REF``: the pins this change adds or changes (value or source), and every
    coherence rule that reads a changed variable, checked on both sides; a pin it leaves as
    it was is not asked about (no drift of its making)."""
    from rocm_bake.model import bakefile  # noqa: PLC0415 (see check)
    from rocm_bake_checks.drift import prdiff  # noqa: PLC0415 (gitpython: --pr only)

    head = bakefile.load(files, environ)
    with prdiff.temporary() as tmp:
        base = prdiff.base_definition(files, ref, environ, Path(tmp), warn)
    changed, unchanged = prdiff.changed_pins(head, base)
    touched = {*changed, *prdiff.changed_variables(head, base)}   # the rules they touch
    report = prdiff.only_introduced(session.check(head, touched), session.check(base, touched))
    report.unchanged = unchanged
    return report


def _shown(path: Path, root: Path) -> str:
    """A snapshot's path as a page names it: relative to the checkout when inside it, else
    its file name only (a page never names a path of the machine it was made on)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def prepare(options: DriftSettings, env: Mapping[str, str], clock: Clock = SYSTEM,
            progress: Say | None = None) -> Settings:
    """The settings checked (bad input: UsageError, exit 2), as the session's; ``progress``
    gets the progress line (None: none)."""
    _validate(options)
    return _settings(options, env, clock, progress)


def _validate(options: DriftSettings) -> None:
    if options.locks and (options.pr or options.images is not None or options.docs
                          or options.only or options.output == "markdown"):
        raise UsageError("--locks asks the package index about the locks' pins: it goes with "
                         "neither --pr, --images, --docs, --only nor --markdown")
    if options.offline and options.record:
        raise UsageError("--offline and --record exclude each other (replay or record, not both)")
    if options.images is not None and (options.pr or options.docs or options.explain
                                       or options.output == "markdown"):
        raise UsageError("--images reads the registry: it goes with neither --pr, --docs, "
                         "--explain nor --markdown")
    if options.images_out and options.images is None:
        raise UsageError("--images-out is the report of --images: use it with --images")
    if options.check and not options.docs:
        raise UsageError("--check compares the docs page: use it with --docs")
    if options.docs_file and not options.docs:
        raise UsageError("--docs-file says where --docs writes: use it with --docs")
    if options.output not in ("table", "json", "markdown"):
        raise UsageError(f"unknown output {options.output!r}")
    for number, name in ((options.deadline, "--deadline"), (options.timeout, "--timeout")):
        if number <= 0:
            raise UsageError(f"{name} must be a positive number of seconds, not {number:g}")
    if options.workers < 1 or options.retries < 0:
        raise UsageError("--workers must be >= 1 and --retries >= 0")
    if not options.max_wait >= 0:
        raise UsageError(f"--max-wait must be a number of seconds >= 0, not "
                         f"{options.max_wait:g}")
    for value, name in ((options.pypi, "--pypi"), (options.github_api, "--github-api")):
        if value:
            _http_base(value, name)


def _http_base(value: str, option: str) -> None:
    """``--pypi`` / ``--github-api``: an http(s) base URL with a host, or exit 2 saying so."""
    from urllib.parse import urlsplit  # noqa: PLC0415

    try:
        parts = urlsplit(value)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and \
            (parts.port is None or parts.port > 0)   # a bad port raises ValueError here
    except ValueError:
        usable = False
    if not usable:
        raise UsageError(f"{option} {redact.text(value)!r}: expected an http:// or https:// "
                         "base URL with a host, e.g. http://127.0.0.1:8080")


def _settings(options: DriftSettings, env: Mapping[str, str], clock: Clock,
              progress: Say | None = None) -> Settings:
    rewrites = [_rewrite(r) for r in options.rewrites]
    origins = [f"--rewrite {redact.text(prefix)}=" for prefix, _ in rewrites]
    if options.github_api:
        rewrites.append((DEFAULT_GITHUB_API, options.github_api.rstrip("/")))
        origins.append("--github-api")
    if options.pypi:
        rewrites.append((DEFAULT_PYPI, options.pypi.rstrip("/")))
        origins.append("--pypi")
    cache = _cache(options.cache_dir) if options.cache_dir else _default_cache(env)
    if cache is not None:
        _usable_cache(cache, "--cache-dir" if options.cache_dir else
                      "ROCM_BAKE_DRIFT_CACHE" if env.get("ROCM_BAKE_DRIFT_CACHE") else
                      "the default cache directory")
    web = WebSettings(github_api=DEFAULT_GITHUB_API, pypi=DEFAULT_PYPI,
                      token=env.get("GITHUB_TOKEN", ""), timeout=options.timeout,
                      retries=options.retries, max_wait=options.max_wait, cache_dir=cache,
                      rewrites=tuple(rewrites), origins=tuple(origins))
    offline = snapshot.load(Path(options.offline)) if options.offline else None
    record = Snapshot("") if options.record else None
    return Settings(web=web, deadline=options.deadline, workers=options.workers,
                    cache_dir=cache, offline=offline, record=record,
                    progress=progress,
                    only=tuple(options.only), explain=options.explain,
                    clock=clock)


REWRITE_SCHEMES = ("http", "https", "git", "ssh", "file")


def _rewrite(text: str) -> tuple[str, str]:
    prefix, sep, replacement = text.partition("=")
    if not sep or not prefix or not replacement:
        raise UsageError(f"--rewrite {redact.text(text)!r}: expected PREFIX=REPLACEMENT, e.g. "
                         "https://github.com/=git://127.0.0.1:9418/")
    if "://" not in prefix:
        # An image reference (HOST[/PATH], as inv bump asks the base image's registry): its
        # replacement is another registry host and path, never a URL.
        if "://" in replacement:
            raise UsageError(f"--rewrite {redact.text(text)!r}: an image prefix is replaced by "
                             "a registry HOST[:PORT]/PATH, not a URL")
        return prefix, replacement
    scheme, colon, _ = replacement.partition("://")
    if not colon or scheme not in REWRITE_SCHEMES:
        raise UsageError(f"--rewrite {redact.text(text)!r}: the replacement must be a "
                         f"{', '.join(s + '://' for s in REWRITE_SCHEMES)} URL")
    return prefix, replacement


def _cache(value: str) -> Path | None:
    """``--cache-dir`` / ``ROCM_BAKE_DRIFT_CACHE``: a directory, or ``off`` for none."""
    return None if value == CACHE_OFF else Path(value)


def _usable_cache(path: Path, option: str) -> None:
    """The cache directory, or where it will be made: every part of it that exists is a
    directory (a regular file there is exit 2 in one line, before anything is asked)."""
    for part in (path, *path.parents):
        if part.exists():
            if not part.is_dir():
                raise UsageError(f"{option} {path}: {part} is not a directory")
            return


def _default_cache(env: Mapping[str, str]) -> Path | None:
    configured = env.get("ROCM_BAKE_DRIFT_CACHE")
    if configured:
        return _cache(configured)
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".cache")
    return Path(base) / "rocm-bake" / "drift"
