"""inv lint: hadolint, bake <-> Dockerfile consistency and the pin policy
(rocm_bake_checks.lint)."""

from __future__ import annotations

import sys
from pathlib import Path

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors, warn_lines

EXIT_FINDINGS = 1


@task(iterable=["file", "only", "rewrite"], auto_shortflags=False, help={
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "only": "run only these rule families (repeatable): hadolint, consistency, pins, "
            "downloads, caching, recipes, conformance, locks, resolution",
    "online": "conformance and locks: fetch upstream build metadata instead of replaying the "
              "committed snapshot (src/rocm_bake_checks/lint/upstream-metadata.json)",
    "offline": "conformance: replay this snapshot file (default: the committed one)",
    "record": "conformance, with --online: write everything fetched to this snapshot file",
    "rewrite": "conformance, with --online: PREFIX=REPLACEMENT applied to every upstream URL "
               "(mirrors, local servers)",
})
@reports_errors
def lint(c: Context, file: list[str], only: list[str], rewrite: list[str],
         online: bool = False, offline: str = "", record: str = "") -> None:
    """Lint Dockerfiles and the bake file; one `file:line: rule: message` per finding.

    Every abbreviated pin (the bake file's ABBREVIATED) is a warning on stderr naming the
    command that replaces it with the full commit (`inv bump --resolve`).

    Exit status: 0 clean, 1 findings, 2 the lint could not run.
    """
    import os

    from rocm_bake.compilercache import settings as cache_settings
    from rocm_bake.core import extras
    from rocm_bake.model import bakefile

    extras.require("lint", "inv lint")
    from rocm_bake_checks import lint as lint_checks

    # A deprecated cache name set in the environment: a warning naming its new name.
    warn_lines(cache_settings.deprecations(os.environ))

    files = [Path(f) for f in (file or [bakefile.DEFAULT_FILE])]
    metadata = lint_checks.metadata_settings(online=online, offline=offline, record=record,
                                             rewrites=rewrite)
    findings = lint_checks.run(Path.cwd(), files, tuple(only) or lint_checks.FAMILIES,
                               metadata=metadata)
    for finding in findings:
        print(finding)
    from rocm_bake_checks.bump import abbreviated
    from rocm_bake_checks.lint import conformance, upstream
    from rocm_bake_checks.lint.locks import built as builtmeta

    definition = bakefile.load(files)
    built = conformance.with_components(upstream.load_config(metadata.config), definition)
    for line in [*abbreviated.warnings(definition), *builtmeta.unread(built)]:
        print(f"warning: {line}", file=sys.stderr)
    if findings:
        raise Exit(f"lint: {len(findings)} finding(s)", code=EXIT_FINDINGS)
    print("lint: clean", file=sys.stderr)


@task(iterable=["component", "file"], auto_shortflags=False, help={
    "component": "lock only this component (repeatable; default: every component with a lock)",
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "index_url": "the package index to resolve against (default: https://pypi.org/simple)",
    "upgrade": "resolve every lock afresh, to the newest versions the inputs allow (default: "
               "only locks whose inputs changed, keeping their other versions)",
})
@reports_errors
def lock(c: Context, component: list[str], file: list[str], index_url: str = "",
         upgrade: bool = False) -> None:
    """Regenerate the hashed lock of each component, dockerfiles/locks/*.txt (uv pip compile).

    Each lock pins, by version and sha256, every distribution the component's stages install,
    resolved for the image's Python and platform from its inputs: dockerfiles/requirements,
    the upstream requirement files at the pinned commits (the committed snapshot of `inv
    lint`'s conformance family) and the runtime requirements of the cell's own wheels.
    A lock whose inputs did not change is kept; a missing or stale one made from the very same
    inputs as another component's lock takes that lock's pins (no index asked); any other is
    resolved again from its own versions, so only what the change needs moves (--upgrade: all
    afresh).
    """
    import time

    from rocm_bake.core import extras
    from rocm_bake.model import bakefile

    extras.require("lock", "inv lock")
    from rocm_bake_checks.lint.locks import file as lockfile
    from rocm_bake_checks.lint.locks import metadata as lockmeta
    from rocm_bake_checks.lint.locks import rules as locks

    files = [Path(f) for f in (file or [bakefile.DEFAULT_FILE])]
    start = time.monotonic()
    for written in locks.lock(Path.cwd(), files, tuple(component),
                              index_url or lockfile.DEFAULT_INDEX, upgrade):
        print(f"{written.path.relative_to(Path.cwd())}: {written.pins} distributions "
              f"({written.state()})")
    fetched = locks.record_metadata(Path.cwd(), index_url or lockfile.DEFAULT_INDEX,
                                    dists=locks.built_of(files))
    print(f"{lockmeta.SNAPSHOT}: the locked distributions' metadata ({fetched} read from the "
          "index)")
    print(f"lock: done in {time.monotonic() - start:.1f}s", file=sys.stderr)
