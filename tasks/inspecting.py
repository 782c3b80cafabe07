"""inv list-vars / inv targets: what the bake file declares, computed by the bake model."""

from __future__ import annotations

import json

from invoke.context import Context
from invoke.tasks import task

from tasks._cli import reports_errors, warn


@task(iterable=["file"], help={
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "json": "print the records of `docker buildx bake --list=type=variables,format=json`",
})
@reports_errors
def list_vars(c: Context, file: list[str], json_: bool = False) -> None:
    """List the bake variables in effect: name, type, value, description."""
    from rocm_bake import bakefile

    definition = bakefile.load(file or [bakefile.DEFAULT_FILE])
    warn(definition.warnings)
    records = [v.record() for v in definition.variables()]
    if json_:
        print(json.dumps(records, indent=2))
        return
    from tabulate import tabulate

    rows = [[r["name"], r.get("type", ""), r.get("value", ""), r.get("description", "")]
            for r in records]
    print(tabulate(rows, headers=["name", "type", "value", "description"],
                   maxcolwidths=[None, None, 48, 60]))


@task(iterable=["file", "arch"], help={
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "arch": "GPU arches to show (repeatable or comma-separated; default: every supported arch)",
})
@reports_errors
def targets(c: Context, file: list[str], arch: list[str]) -> None:
    """Show every component x arch cell: its target, what it depends on, or why it is skipped."""
    from tabulate import tabulate

    from rocm_bake import bakefile, graph
    from rocm_bake.build import split_csv

    cells = graph.cells(file or [bakefile.DEFAULT_FILE], split_csv(arch))
    rows = [[cell.component, cell.arch, cell.target or "-",
             ", ".join(cell.depends) if cell.target else f"skipped: {cell.skipped}"]
            for cell in cells]
    print(tabulate(rows, headers=["component", "arch", "target", "depends on / skipped"]))
