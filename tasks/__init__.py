"""rocm-bake's tasks: thin invoke wrappers over the rocm_bake library (``inv --list``)."""

import atexit
import gc

from invoke.collection import Collection

from rocm_bake.core import redact
from tasks import (
    auditing,
    building,
    bumping,
    documenting,
    health,
    inspecting,
    linting,
    perf,
    rehearsing,
    repro,
    versions,
)
from tasks import fleet as fleet_module
from tasks import reports as reports_module
from tasks._cli import help_after_positionals

redact.guard_output()   # no URL credential reaches the terminal, whatever prints it
help_after_positionals()   # `inv TASK --help` is the task's help, positional arguments or not
ns = Collection()
for module in (auditing, building, bumping, documenting, health, inspecting, linting, perf,
               rehearsing, repro, versions):
    for task in Collection.from_module(module).tasks.values():
        ns.add_task(task)
ns.add_collection(Collection.from_module(fleet_module, name="fleet"))
ns.add_collection(Collection.from_module(reports_module, name="reports"))
# What is loaded by now (invoke, the task wrappers) lives as long as the process: the cyclic
# garbage collector need not walk it again at every full collection while a task builds its own
# objects (the bake model alone makes tens of thousands): about 60 ms of `inv list-vars`' CPU.
gc.freeze()
# And when the task is done, the interpreter's last full collection would walk every object
# still alive only to find no garbage (module teardown frees them by reference counting): about
# 60 ms of every `inv` run's exit.
atexit.register(gc.freeze)
