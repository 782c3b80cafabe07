"""inv version-check: compare every pin of rocm-bake.hcl with its declared upstream."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from invoke.context import Context
from invoke.exceptions import Exit

from rocm_bake_checks.drift.settings import DriftSettings
from tasks._cli import (
    flags_task,
    from_flags,
    print_report,
    progress_line,
    reports_errors,
    step_summary,
)

if TYPE_CHECKING:
    from rocm_bake.core.clock import Clock


@flags_task(DriftSettings)
@reports_errors
def version_check(c: Context, **flags: Any) -> None:
    """Pin drift: compare every pin with upstream; exit 0 ok, 1 drift, 2 could not check.

    Ctrl-C stops at once: every upstream request abandoned, one line, exit 130.

    With --locks: the locks' pins against the index's newest releases; report only, exit 0, or
    2 when the index could not be asked.

    With --images: every published cell image (its provenance in the registry) against the bake
    file and upstream; exit 0 all current, 1 one stale, 2 one could not be checked.
    """
    from rocm_bake.core.errors import StoppedError
    from rocm_bake_checks.drift import run

    try:
        code = check(from_flags(DriftSettings, flags))
    except (KeyboardInterrupt, StoppedError) as exc:
        _stop(str(exc) if isinstance(exc, StoppedError) else run.INTERRUPTED)
    if code:
        raise Exit(code=code)


def check(settings: DriftSettings, env: Mapping[str, str] | None = None,
          clock: Clock | None = None) -> int:
    """``inv version-check`` with these settings: the report on stdout as asked (Markdown in
    the step summary too), warnings and the progress line (on a terminal) on stderr; the exit
    status. ``clock`` waits and keeps the deadline (a test drives it)."""
    from rocm_bake.core.clock import SYSTEM
    from rocm_bake_checks.drift import run

    environ = dict(os.environ if env is None else env)
    clock = clock or SYSTEM
    progress = progress_line if sys.stderr.isatty() and not settings.explain else None
    if settings.locks:
        from rocm_bake_checks.lint.locks import newer as locknewer

        locks = locknewer.run(settings, environ, clock, progress)
        print_report(locknewer.render_report(settings, locks))
        return locks.exit_code()
    if settings.images is not None:
        images = run.check_images(settings, environ, clock, progress=progress)
        print_report(run.render_images(settings, images))
        return images.exit_code()
    checked = run.check(settings, environ, clock, progress=progress,
                        warn=lambda line: print(f"warning: {line}", file=sys.stderr))
    text = run.render_report(settings, checked.report)
    if settings.output == "markdown" and not settings.explain:
        step_summary(environ, text)
    if not print_report(text) or not settings.docs:   # a reader that left: nothing more
        return checked.report.exit_code()
    if not settings.check:
        run.write_docs(settings, checked)
        return checked.report.exit_code()
    if run.docs_stale(settings, checked):
        replay = f" --offline {settings.offline}" if settings.offline else ""
        print(f"error: {run.docs_page(settings, checked)} is stale: regenerate it with inv "
              f"version-check --docs{replay}", file=sys.stderr)
        return 1
    return 0


def _stop(message: str) -> NoReturn:
    """Ctrl-C: one line and exit status 130 now. The requests still in flight are on worker
    threads the interpreter would wait for at exit (each until its timeout): the process
    ends without waiting (the git processes are killed already)."""
    from rocm_bake_checks.drift.sources import gitrun

    gitrun.stop_all()
    print(f"error: {message}", file=sys.stderr, flush=True)
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    os._exit(130)   # 128 + SIGINT, StoppedError's exit status
