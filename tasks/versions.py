"""inv version-check: compare every pin of rocm-bake.hcl with its declared upstream."""

from __future__ import annotations

import contextlib
from typing import NoReturn

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors

_HELP = {
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "json": "print the report as JSON",
    "markdown": "print the report as Markdown, and append it to the file $GITHUB_STEP_SUMMARY "
                "names when set (only --markdown does; a summary that cannot be written: "
                "exit 2)",
    "explain": "show the queries, candidates, dropping rules and winner for one pin (or "
               "NAME[wheel], or a coherence rule): only it is checked, and the exit status "
               "is its own (with --locks: one locked distribution)",
    "pr": "report only drift introduced since this git ref (e.g. origin/main): the pins added or "
          "changed since it, and every coherence rule that reads a changed variable (e.g. "
          "X_REF~COMMIT when only X_REF changed), checked on both sides; unchanged pins are "
          "not reported; a ref that moved on since the change forked (not an ancestor of "
          "HEAD) is read at their merge base, with a warning saying so",
    "record": "write a snapshot of everything fetched to this file",
    "offline": "check against a snapshot file instead of the network (deterministic)",
    "docs": "write docs/reference/variables.md (with --check: fail if it is stale)",
    "docs_file": "with --docs: write (or --check) this file instead of "
                 "docs/reference/variables.md (the lanes' live page)",
    "check": "with --docs: exit 1 when the committed page differs, write nothing",
    "deadline": "total time budget in seconds (default 120); unfinished pins: exit 2",
    "workers": "concurrent requests (default 32)",
    "timeout": "seconds one upstream address may take in all, not per attempt: an HTTP URL "
               "with its retries and back-offs (each page or index URL has its own), a git "
               "repository's operations (git is not retried, any transport); a request that "
               "times out has used it all; --deadline still bounds the whole run "
               "(default 60: a cold blob-less fetch of a large repository fits)",
    "retries": "retries for 5xx and broken connections, within --timeout (default 2)",
    "max_wait": "longest rate-limit reset to wait for, in seconds >= 0 (default 60)",
    "rewrite": "PREFIX=REPLACEMENT applied to every upstream URL (mirrors, local servers); "
               "user:password@ in a URL is sent as Basic auth, masked, never stored",
    "github_api": "GitHub API base URL, http(s) (default https://api.github.com)",
    "pypi": "PyPI base URL, http(s) (default https://pypi.org)",
    "cache_dir": "git/ETag cache (default $XDG_CACHE_HOME/rocm-bake/drift; env "
                 "ROCM_BAKE_DRIFT_CACHE); 'off': none (commit pins fetch into a temporary "
                 "directory, removed after the run)",
    "only": "check only these pins (repeatable or comma-separated; skips coherence)",
    "list_undeclared": "list the variables that declare no source (default: only their count)",
    "images": "check the published cell images instead: the pins each was built from (its "
              "provenance in the registry HOST[:PORT], only repositories under /PREFIX when "
              "given; default: fleet.toml's registry) against the bake file and upstream; "
              "exit 1 when one is stale",
    "images_out": "with --images: also write the report as JSON to this file (the nightly "
                  "page shows it)",
    "fleet": "with --images and no registry: the fleet file naming it (default: fleet.toml)",
    "locks": "check the locks instead: every distribution they pin against its newest release "
             "on the index (--pypi; yanked and pre-releases left out as pip does), and whether "
             "the lock's inputs allow it; report only: exit 0, or 2 when the index could not "
             "be asked",
}


@task(iterable=["file", "rewrite", "only"], optional=["images"], help=_HELP,
      auto_shortflags=False)
@reports_errors
def version_check(c: Context, file: list[str], rewrite: list[str], only: list[str],
                  json_: bool = False, markdown: bool = False, explain: str = "", pr: str = "",
                  record: str = "", offline: str = "", docs: bool = False, docs_file: str = "",
                  check: bool = False,
                  deadline: float = 120.0, workers: int = 32, timeout: float = 60.0,
                  retries: int = 2, max_wait: float = 60.0, github_api: str = "",
                  pypi: str = "", cache_dir: str = "", list_undeclared: bool = False,
                  images: str | bool | None = None, images_out: str = "",
                  fleet: str = "fleet.toml", locks: bool = False) -> None:
    """Pin drift: compare every pin with upstream; exit 0 ok, 1 drift, 2 could not check.

    Ctrl-C stops at once: every upstream request abandoned, one line, exit 130.

    With --locks: the locks' pins against the index's newest releases; report only, exit 0, or
    2 when the index could not be asked.

    With --images: every published cell image (its provenance in the registry) against the bake
    file and upstream; exit 0 all current, 1 one stale, 2 one could not be checked.
    """
    from rocm_bake.core.errors import StoppedError
    from rocm_bake_checks.drift import cli

    options = cli.Options(
        files=list(file) or ["rocm-bake.hcl"], output="json" if json_ else
        "markdown" if markdown else "table", explain=explain, pr=pr, record=record,
        offline=offline, docs=docs, docs_file=docs_file, check=check, deadline=deadline,
        workers=workers,
        timeout=timeout, retries=retries, max_wait=max_wait, rewrites=list(rewrite),
        github_api=github_api, pypi=pypi, cache_dir=cache_dir,
        only=[p.strip() for value in only for p in value.split(",") if p.strip()],
        list_undeclared=list_undeclared,
        images=None if images is None or images is False else
        "" if images is True else str(images),
        images_out=images_out, fleet=fleet, locks=locks)
    try:
        if locks:
            from rocm_bake_checks.lint import locknewer

            code = locknewer.run(options)
        else:
            code = cli.run(options)
    except (KeyboardInterrupt, StoppedError) as exc:
        _stop(str(exc) if isinstance(exc, StoppedError) else cli.INTERRUPTED)
    if code:
        raise Exit(code=code)


def _stop(message: str) -> NoReturn:
    """Ctrl-C: one line and exit status 130 now. The requests still in flight are on worker
    threads the interpreter would wait for at exit (each until its timeout): the process
    ends without waiting (the git processes are killed already)."""
    import os
    import sys

    from rocm_bake_checks.drift.sources import gitrun

    gitrun.stop_all()
    print(f"error: {message}", file=sys.stderr, flush=True)
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    os._exit(130)   # 128 + SIGINT, StoppedError's exit status
