"""inv lint: hadolint, bake <-> Dockerfile consistency and the pin policy
(rocm_bake_checks.lint)."""

from __future__ import annotations

import sys
from pathlib import Path

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors

EXIT_FINDINGS = 1


@task(iterable=["file", "only"], help={
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "only": "run only these rule families (repeatable): hadolint, consistency, pins, "
            "downloads, caching",
})
@reports_errors
def lint(c: Context, file: list[str], only: list[str]) -> None:
    """Lint Dockerfiles and the bake file; one `file:line: rule: message` per finding.

    Exit status: 0 clean, 1 findings, 2 the lint could not run.
    """
    from rocm_bake import bakefile, extras

    extras.require("lint", "inv lint")
    from rocm_bake_checks import lint as lint_checks

    files = [Path(f) for f in (file or [bakefile.DEFAULT_FILE])]
    findings = lint_checks.run(Path.cwd(), files, tuple(only) or lint_checks.FAMILIES)
    for finding in findings:
        print(finding)
    if findings:
        raise Exit(f"lint: {len(findings)} finding(s)", code=EXIT_FINDINGS)
    print("lint: clean", file=sys.stderr)
