"""``inv version-check``: options in, report out, exit status 0 / 1 / 2."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.core import redact
from rocm_bake.core.atomic import OutputError
from rocm_bake.core.clock import SYSTEM, Clock
from rocm_bake.core.errors import StoppedError, UsageError
from rocm_bake_checks.drift import explain, render, snapshot
from rocm_bake_checks.drift.model import Report
from rocm_bake_checks.drift.session import Session, Settings
from rocm_bake_checks.drift.snapshot import Snapshot
from rocm_bake_checks.drift.web import WebSettings

DEFAULT_GITHUB_API = "https://api.github.com"
DEFAULT_PYPI = "https://pypi.org"
CACHE_OFF = "off"
INTERRUPTED = "interrupted: every upstream request stopped, nothing written"


@dataclass
class Options:
    files: list[str] = field(default_factory=lambda: [_default_file()])
    output: str = "table"  # table | json | markdown
    explain: str = ""
    pr: str = ""
    record: str = ""
    offline: str = ""
    docs: bool = False
    docs_file: str = ""     # where --docs writes (default: docs/reference/variables.md)
    check: bool = False
    deadline: float = 120.0
    workers: int = 32
    timeout: float = 60.0
    retries: int = 2
    max_wait: float = 60.0
    rewrites: list[str] = field(default_factory=list)
    github_api: str = ""
    pypi: str = ""
    cache_dir: str = ""
    only: list[str] = field(default_factory=list)
    list_undeclared: bool = False
    images: str | None = None   # --images [HOST[/PREFIX]]: "" is fleet.toml's registry
    images_out: str = ""        # with --images: also write the JSON report here
    fleet: str = "fleet.toml"
    locks: bool = False         # --locks: the locks' pins against the index (lint.locknewer)


def run(options: Options, env: Mapping[str, str] | None = None, clock: Clock = SYSTEM) -> int:
    """Run the check, print what was asked for, return the exit status. ``clock`` is what
    waits (rate limits, retries) and keeps the deadline."""
    environ = dict(os.environ if env is None else env)
    settings = prepare(options, environ, clock)
    files = [Path(f) for f in options.files]
    session = Session(settings)
    if options.images is not None:
        return _images(options, session, environ, settings)
    try:
        if options.pr:
            report = _pr(session, files, options.pr, environ)
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
    if settings.record is not None:
        settings.record.save(Path(options.record))
    try:
        return _output(options, report, files[0].parent, environ, settings.offline)
    except BrokenPipeError:   # `inv version-check | head`: the reader left, keep the status
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return report.exit_code()


def _images(options: Options, session: Session, environ: Mapping[str, str],
            settings: Settings) -> int:
    """``--images [REGISTRY]``: every published cell image against the bake file and upstream."""
    from rocm_bake.oci.registry import Registry  # noqa: PLC0415 (--images only)
    from rocm_bake_checks.drift import images  # noqa: PLC0415 (--images only)

    host, _, prefix = (options.images or _fleet_registry(options.fleet)).partition("/")
    try:
        registry = Registry(host, timeout=options.timeout, clock=settings.clock,
                            run=session.deadline)   # --timeout per request, --deadline in all
        report = images.check(registry, options.files, environ,
                              lambda definition, names: session.check(definition,
                                                                      names).findings,
                              prefix.strip("/"))
    finally:
        session.close()
    if settings.record is not None:
        settings.record.save(Path(options.record))
    if options.images_out:
        images.write(report, Path(options.images_out))
    text = images.as_json(report) if options.output == "json" else images.table(report)
    print_report(text + "\n")
    return report.exit_code()


def _fleet_registry(path: str) -> str:
    from urllib.parse import urlparse  # noqa: PLC0415

    from rocm_bake.fleetbuild import config as fleet  # noqa: PLC0415 (--images without a registry only)

    url = fleet.load(path).registry
    host = urlparse(url).netloc
    if not host:
        raise UsageError(f"{path}: registry url {url!r} has no host")
    return host


def _pr(session: Session, files: list[Path], ref: str, environ: Mapping[str, str]) -> Report:
    """``--pr REF``: the pins this change adds or changes (value or source), and every
    coherence rule that reads a changed variable, checked on both sides; a pin it leaves as
    it was is not asked about (no drift of its making)."""
    from rocm_bake.model import bakefile  # noqa: PLC0415 (see run)
    from rocm_bake_checks.drift import prdiff  # noqa: PLC0415 (gitpython: --pr only)

    head = bakefile.load(files, environ)
    with prdiff.temporary() as tmp:
        base = prdiff.base_definition(files, ref, environ, Path(tmp),
                                      lambda line: print(f"warning: {line}", file=sys.stderr))
    changed, unchanged = prdiff.changed_pins(head, base)
    touched = {*changed, *prdiff.changed_variables(head, base)}   # the rules they touch
    report = prdiff.only_introduced(session.check(head, touched), session.check(base, touched))
    report.unchanged = unchanged
    return report


def _output(options: Options, report: Report, root: Path, env: Mapping[str, str],
            offline: Snapshot | None = None) -> int:
    """Print what was asked for; every text leaves with URL user-info masked."""
    if options.explain:
        text = explain.render(report, options.explain) + "\n"
    elif options.output == "json":
        text = render.as_json(report) + "\n"
    elif options.output == "markdown":
        text = render.markdown(report)
    else:
        text = render.table(report, options.list_undeclared) + "\n"
    if options.output == "markdown" and not options.explain:
        _step_summary(env.get("GITHUB_STEP_SUMMARY", ""), text)
    print_report(text)
    if options.docs:
        from rocm_bake_checks.drift import docs  # noqa: PLC0415 (lean start-up: --docs only)

        page = Path(options.docs_file) if options.docs_file else root / docs.PAGE
        replayed = (docs.Replayed(_shown(Path(options.offline), root), offline)
                    if offline is not None else None)
        if options.check:
            if docs.stale(report, page, replayed):
                print(f"error: {page} is stale: regenerate it with inv version-check --docs"
                      f"{' --offline ' + options.offline if options.offline else ''}",
                      file=sys.stderr)
                return 1
            return 0
        docs.write(report, page, replayed)
    return report.exit_code()


def print_report(text: str) -> None:
    """The report on stdout; a stdout that cannot take it (a full device, a closed file) is
    exit 2 naming it (a reader that left, BrokenPipeError, is the caller's)."""
    try:
        print(redact.text(text), end="", flush=True)
    except BrokenPipeError:
        raise
    except OSError as exc:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # no second complaint
        raise OutputError(f"cannot write the report to stdout: {exc.strerror or exc}") \
            from None


def _step_summary(path: str, markdown: str) -> None:
    """``--markdown`` in a GitHub Actions step: the report appended to the step summary (the
    file ``GITHUB_STEP_SUMMARY`` names), the step's earlier lines kept."""
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(redact.text(markdown))
    except OSError as exc:
        raise OutputError(f"cannot append to GITHUB_STEP_SUMMARY {path}: "
                          f"{exc.strerror or exc}") from None


def _shown(path: Path, root: Path) -> str:
    """A snapshot's path as a page names it: relative to the checkout when inside it, else
    its file name only (a page never names a path of the machine it was made on)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def _default_file() -> str:
    from rocm_bake.model.bakefile import DEFAULT_FILE  # noqa: PLC0415 (see run)

    return DEFAULT_FILE


def prepare(options: Options, env: Mapping[str, str], clock: Clock = SYSTEM) -> Settings:
    """The options checked (bad input: UsageError, exit 2), as the session's settings."""
    _validate(options)
    return _settings(options, env, clock)


def _validate(options: Options) -> None:
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


def _settings(options: Options, env: Mapping[str, str], clock: Clock) -> Settings:
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
                    progress=sys.stderr.isatty() and not options.explain,
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
