"""inv list-vars / inv targets: what the bake file declares, computed by the bake model; inv
inspect: what made a published image, read from the registry."""

from __future__ import annotations

import json

from invoke.context import Context
from invoke.tasks import task

from tasks._cli import reports_errors, table, warn


@task(iterable=["file"], help={
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "json": "print the records of `docker buildx bake --list=type=variables,format=json`",
})
@reports_errors
def list_vars(c: Context, file: list[str], json_: bool = False) -> None:
    """List the bake variables in effect: name, type, value, description."""
    from rocm_bake.model import bakefile

    definition = bakefile.load(file or [bakefile.DEFAULT_FILE])
    warn(definition.warnings)
    records = [v.record() for v in definition.variables()]
    if json_:
        print(json.dumps(records, indent=2))
        return
    rows = [[r["name"], r.get("type", ""), r.get("value", ""), r.get("description", "")]
            for r in records]
    table(rows, ["name", "type", "value", "description"])


@task(iterable=["file", "arch"], help={
    "file": "bake file (repeatable; default: rocm-bake.hcl)",
    "arch": "GPU arches to show (repeatable or comma-separated; default: every supported arch)",
    "json": "print every cell as a JSON record (component, arch, target, depends, skipped, "
            "without_kernels), each text whole",
})
@reports_errors
def targets(c: Context, file: list[str], arch: list[str], json_: bool = False) -> None:
    """Show every component x arch cell: its target, what it depends on, or why it is skipped
    (and why a cell built without GPU kernels of its own is). The table fits the terminal (long
    reasons wrap); --json has every text whole."""
    from rocm_bake.builds.request import split_csv
    from rocm_bake.model import bakefile, graph

    cells = graph.cells(file or [bakefile.DEFAULT_FILE], split_csv(arch))
    if json_:
        print(json.dumps([{"component": cell.component, "arch": cell.arch,
                           "target": cell.target, "depends": list(cell.depends),
                           "skipped": cell.skipped, "without_kernels": cell.without_kernels}
                          for cell in cells], indent=2))
        return
    rows = [[cell.component, cell.arch, cell.target or "-",
             (", ".join(cell.depends) + (f"; without kernels: {cell.without_kernels}"
                                         if cell.without_kernels else ""))
             if cell.target else f"skipped: {cell.skipped}"]
            for cell in cells]
    table(rows, ["component", "arch", "target", "depends on / skipped"])


@task(positional=["image"], help={
    "image": "HOST[:PORT]/REPOSITORY:TAG, or a cell (e.g. vllm-gfx950) published as "
             "REGISTRY/PREFIX/CELL:TAG (with --tag)",
    "tag": "the tag a cell was published with (inv fleet.build --tag)",
    "registry": "registry of a cell, HOST[:PORT] (default: fleet.toml's)",
    "prefix": "repository prefix of a cell (default rocm-bake/fleet)",
    "fleet": "fleet file whose registry a cell is read from (default: fleet.toml)",
    "json": "print the records as JSON",
})
@reports_errors
def inspect(c: Context, image: str | None = None, tag: str = "", registry: str = "",
            prefix: str = "rocm-bake/fleet", fleet: str = "fleet.toml",
            json_: bool = False) -> None:
    """What made a published image, read from the registry (its SLSA provenance and versions
    statement, attached by inv push / inv fleet.build): pins, wheels, base image digest, build
    args, the Dockerfile's digest, this repository's commit, the arch audit of the push.

    Exit status: 0 read, 2 the image or its provenance cannot be read.
    """
    from rocm_bake.core.errors import UsageError
    from rocm_bake.oci import provenance
    from rocm_bake.oci.registry import Registry

    if not image:
        raise UsageError("inspect needs an IMAGE (a reference, or a cell with --tag)")
    host = registry
    if "/" not in image and not host:
        from rocm_bake.fleetbuild import config as fleets
        from rocm_bake.fleetbuild.runner import registry_host

        host = registry_host(fleets.load(fleet).registry)
    reference = provenance.reference_for(image, tag, host, prefix)
    made = provenance.read(Registry(reference.host), reference)
    if json_:
        print(json.dumps([m.to_json() for m in made], indent=2))
        return
    print("\n\n".join("\n".join(provenance.describe(m)) for m in made))
