"""rocm-bake's tasks: thin invoke wrappers over the rocm_bake library (``inv --list``)."""

from invoke.collection import Collection

from rocm_bake import redact
from tasks import (
    auditing,
    building,
    documenting,
    health,
    inspecting,
    linting,
    perf,
    repro,
    versions,
)
from tasks import fleet as fleet_module
from tasks import reports as reports_module

redact.guard_output()   # no URL credential reaches the terminal, whatever prints it
ns = Collection()
for module in (auditing, building, documenting, health, inspecting, linting, perf, repro, versions):
    for task in Collection.from_module(module).tasks.values():
        ns.add_task(task)
ns.add_collection(Collection.from_module(fleet_module, name="fleet"))
ns.add_collection(Collection.from_module(reports_module, name="reports"))
