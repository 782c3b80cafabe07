"""inv audit-arch: which GPU archs the ELF files of wheels, directories or images carry."""

from __future__ import annotations

import json

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import reports_errors


@task(positional=["path"], iterable=["source", "expect"], help={
    "source": "a wheel, a directory (e.g. dist/gfx950), an ELF file, a `docker image save` "
              ".tar, an image reference in the engine, or docker://REGISTRY/NAME:TAG read "
              "from its registry (repeatable; also positional)",
    "expect": "the archs every ELF with GPU code must carry, exactly (repeatable, or "
              "gfx950,gfx1201 / gfx950;gfx1201); without it the audit only lists",
    "path": "what to audit (see --source)",
    "json": "print the audit as JSON instead of a table",
})
@reports_errors
def audit_arch(c: Context, path: str | None = None, source: list[str] | None = None,
               expect: list[str] | None = None, json_: bool = False) -> None:
    """List the GPU code objects (offload bundle entries, ELF e_flags) of every ELF in PATH.

    Exit status: 0 every ELF with GPU code carries exactly the expected archs (or none were
    expected), 1 one lacks an expected arch or carries another (or, with --expect, there is
    no GPU code at all), 2 an input cannot be read or is past the audit's limits (8 GiB for
    one file inflated, 64 GiB for one archive; ROCM_BAKE_AUDIT_MAX_MEMBER_BYTES and
    ROCM_BAKE_AUDIT_MAX_ARCHIVE_BYTES override them).
    """
    from rocm_bake import archaudit
    from rocm_bake.core.errors import UsageError

    sources = [s for s in [path, *(source or [])] if s]
    if not sources:
        raise UsageError("audit-arch needs a PATH (a wheel, a directory or an image)")
    result = archaudit.audit(sources, archaudit.split_archs(expect or []))
    if json_:
        print(json.dumps(result.as_json(), indent=2))
    else:
        if result.reports:
            print(result.table())
        for problem in result.problems():
            print(problem)
        print(result.summary())
    if result.exit_code:
        raise Exit(code=result.exit_code)
