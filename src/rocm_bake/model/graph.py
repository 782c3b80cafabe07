"""The build graph of rocm-bake.hcl: every component x arch cell, what it depends on through
``target:`` contexts, or why the per-arch table skips it.

It reads the top-level attributes of the bake file ``ALL_ARCHS`` (the supported arches),
``ARCHS`` (component -> the arches it is built for), ``SKIP`` (``"<arch>/<component>"`` ->
reason) and, where it has one, ``TRITON_ONLY`` (``"<arch>/<component>"`` -> why the cell is
built without GPU kernels of its own). Cells are named ``<component>-<arch>``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rocm_bake.core.errors import HCLError
from rocm_bake.model import bakefile
from rocm_bake.model.bakefile import ARCH_VARIABLE
from rocm_bake.model.components import hinted
from rocm_bake.model.hcl.values import Value


@dataclass(frozen=True)
class Cell:
    component: str
    arch: str
    target: str | None
    depends: tuple[str, ...] = ()
    skipped: str | None = None
    without_kernels: str | None = None     # built without GPU kernels (TRITON_ONLY): why


def _strings(name: str, value: Value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HCLError(f"top-level attribute {name} must be a list of strings")
    return [str(v) for v in value]


def supported_archs(files: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The arches the bake file supports (its ``ALL_ARCHS``)."""
    definition = bakefile.load(files, env)
    return _strings("ALL_ARCHS", definition.value("ALL_ARCHS"))


def cells(files: Sequence[str], archs: Sequence[str] = (),
          env: Mapping[str, str] | None = None) -> list[Cell]:
    """Every component x arch cell, in the bake file's component order."""
    base_env = dict(os.environ if env is None else env)
    wanted = list(archs) or supported_archs(files, base_env)
    definition = bakefile.load(files, {**base_env, ARCH_VARIABLE: ",".join(wanted)})
    components = definition.value("ARCHS")
    skip = definition.value("SKIP")
    if not isinstance(components, dict) or not isinstance(skip, dict):
        raise HCLError("top-level attributes ARCHS and SKIP must be maps")
    declared = definition.namespace.declared.attributes
    triton_only = definition.value("TRITON_ONLY") if "TRITON_ONLY" in declared else {}
    if not isinstance(triton_only, dict):
        raise HCLError("top-level attribute TRITON_ONLY must be a map")
    out = []
    for component in components:
        for arch in wanted:
            name = f"{component}-{arch}"
            if name in definition.config.targets:
                with hinted(definition):
                    plan = definition.plan([name])
                reason = triton_only.get(f"{arch}/{component}")
                out.append(Cell(component, arch, name, tuple(plan.links(name)),
                                without_kernels=None if reason is None else str(reason)))
            else:
                reason = skip.get(f"{arch}/{component}")
                out.append(Cell(component, arch, None, skipped=str(reason or "not built")))
    return out
