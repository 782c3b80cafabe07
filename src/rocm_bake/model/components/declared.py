"""What a bake file declares about its components, read (the judgements are ``rules``).

A component is a key of ``CACHE_KEY`` (the ``_cell`` template's matrix is ``keys(CACHE_KEY)``);
its cells are ``<component>-<arch>`` for the arches of ``ARCHS[component]``. Beside that
table, the per-component declarations: ``WHEELS``, ``UPSTREAM_STAGE``, ``CONSUMERS``,
``STATIC_SECONDS`` (and ``NO_GPU_CODE``, ``CACHE_MODE``), and ``ARCH_ARGS``' arch knobs.
Every name the bake file treats as a component somewhere is a ``candidate`` (``CACHE_KEY`` and
``VERSION_TAG`` keys, every ``_cell-<name>-<arch>`` a target inherits); ``Where`` says where a
top-level attribute, variable or block is declared.

Names may contain hyphens (``flash-attn``): a cell name is split on the known arch suffix
(``split_cell``), never on ``-``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model.bakefile import Definition
from rocm_bake.model.hcl.values import Value

COMPONENT_TABLE = "CACHE_KEY"
# The per-component declarations beyond its Dockerfile (rocm-bake.hcl says what each holds).
WHEELS = "WHEELS"                  # component -> its distributions (default: its own name)
LIBRARIES = "LIBRARIES"            # component -> its shared libraries (a library: no wheel)
UPSTREAM_STAGE = "UPSTREAM_STAGE"  # component -> "<file>:<stage>" of upstream (default build_<n>)
CONSUMERS = "CONSUMERS"            # component -> the images (components) that install it
STATIC_SECONDS = "STATIC_SECONDS"  # component -> a cold cell's seconds (fleet estimates)
OPTIONAL_TABLES = (WHEELS, LIBRARIES, UPSTREAM_STAGE, CONSUMERS, STATIC_SECONDS, "NO_GPU_CODE",
                   "CACHE_MODE")
ARCH_TABLE = "ARCH_ARGS"           # arch -> {knob = value}: the spellings of the cell's arch
# Knobs a build reads its GPU arch from beside ARCH_ARGS' keys (e.g. MoRI's MORI_GPU_ARCHS).
ARCH_KNOB = re.compile(r"(^|_)(GPU_ARCHS|ROCM_ARCH|AMDGPU_TARGETS?)$")
TABLES = ("ARCHS", "VERSION_TAG", "CACHE_KEY")
CELL_TEMPLATE = "_cell-"
SOURCE_SUFFIX = "_SOURCE"
EXPORT_TARGET = "wheels"       # the target that exports every wheel of a cell
WHEEL_DIR = "/wheels"          # what a wheel component's target stage exports
STAGING = "/staging"           # what a library component's target stage exports (a prefix)
SOURCE_PINS = ("_COMMIT", "_REF")
def _value(definition: Definition, name: str) -> Value:
    try:
        return definition.value(name)
    except RocmBakeError:
        return None


def mapping(definition: Definition, name: str) -> dict[str, Value]:
    """The map the top-level attribute ``name`` holds (empty when it holds none)."""
    value = _value(definition, name)
    return dict(value) if isinstance(value, dict) else {}


def names(definition: Definition) -> list[str]:
    """The components: the keys of ``CACHE_KEY``, in the order the bake file writes them."""
    return list(mapping(definition, COMPONENT_TABLE))


def canonical(name: str) -> str:
    """A distribution's normalized name (PEP 503): ``amd_mori`` -> ``amd-mori``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _strings(value: Value) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def wheels(definition: Definition) -> dict[str, tuple[str, ...]]:
    """Component -> the distributions its cells build (canonical names): its ``WHEELS``
    entry, else none for a library and the one distribution named after it otherwise."""
    declared = mapping(definition, WHEELS)
    shared = mapping(definition, LIBRARIES)
    return {n: tuple(canonical(w) for w in _strings(declared[n])) if n in declared
            else () if n in shared else (canonical(n),) for n in names(definition)}


def libraries(definition: Definition) -> dict[str, tuple[str, ...]]:
    """Library component -> the shared libraries its cells build (``LIBRARIES``: the names
    before ``.so``, e.g. ``libamdhip64``), exported under ``STAGING``."""
    return {n: tuple(_strings(v)) for n, v in mapping(definition, LIBRARIES).items()}


def declares_wheels(definition: Definition) -> set[str]:
    """The components with a ``WHEELS`` entry of their own."""
    return set(mapping(definition, WHEELS))


def upstream_stages(definition: Definition) -> dict[str, list[str]]:
    """Component -> the upstream stages its ``UPSTREAM_STAGE`` entry names (only those
    declared: the default, upstream's ``build_<name>``, needs upstream's files)."""
    return {n: _strings(v) for n, v in mapping(definition, UPSTREAM_STAGE).items()}


def consumers(definition: Definition) -> dict[str, list[str]]:
    """Component -> the images (components) that install its wheels or libraries
    (``CONSUMERS``)."""
    return {n: _strings(v) for n, v in mapping(definition, CONSUMERS).items()}


def no_gpu_code(definition: Definition) -> dict[str, str]:
    """Component -> why its cells carry no GPU code of their own (``NO_GPU_CODE``)."""
    return {n: str(v) for n, v in mapping(definition, "NO_GPU_CODE").items()}


def static_seconds(definition: Definition) -> dict[str, float]:
    """Component (or the export) -> a cold cell's seconds (``STATIC_SECONDS``)."""
    return {n: float(v) for n, v in mapping(definition, STATIC_SECONDS).items()
            if isinstance(v, Decimal)}


def arch_knobs(definition: Definition) -> set[str]:
    """The arg names that carry a cell's GPU arch: every key of ``ARCH_ARGS``' entries."""
    return {k for v in mapping(definition, ARCH_TABLE).values() if isinstance(v, dict)
            for k in v}


def all_archs(definition: Definition) -> list[str]:
    value = _value(definition, "ALL_ARCHS")
    return [str(v) for v in value] if isinstance(value, list) else []


def split_cell(name: str, archs: list[str]) -> tuple[str, str] | None:
    """``("flash-attn", "gfx950")`` from ``flash-attn-gfx950``: split on the arch suffix."""
    for arch in archs:
        if name.endswith(f"-{arch}") and len(name) > len(arch) + 1:
            return name[:-len(arch) - 1], arch
    return None


class Where:
    """Where the bake file declares a top-level attribute or block (file, line)."""

    def __init__(self, definition: Definition) -> None:
        declared = definition.namespace.declared
        self.default = (str(definition.files[0]), 1)
        self.attributes = {n: (a.source.file, a.source.line or 1)
                           for n, a in declared.attributes.items()}
        self.variables = {n: (v.source.file, v.source.line or 1)
                          for n, v in declared.variables.items()}
        self.blocks = {(b.type, b.label): (b.source.file, b.source.line or 1)
                       for b in declared.blocks}

    def attribute(self, name: str) -> tuple[str, int]:
        return self.attributes.get(name, self.default)

    def block(self, kind: str, label: str) -> tuple[str, int]:
        return self.blocks.get((kind, label), self.default)


def declared_at(definition: Definition, name: str) -> tuple[str, int]:
    """Where the bake file declares the top-level attribute ``name`` (else its first line)."""
    return Where(definition).attribute(name)


def candidates(definition: Definition) -> list[str]:
    """Every name the bake file treats as a component somewhere: ``CACHE_KEY`` and
    ``VERSION_TAG`` keys, and every ``_cell-<name>-<arch>`` a target inherits."""
    archs = all_archs(definition)
    found = dict.fromkeys([*names(definition), *mapping(definition, "VERSION_TAG")])
    for target in definition.config.targets.values():
        for parent in target.inherits:
            cell = split_cell(parent.removeprefix(CELL_TEMPLATE), archs) \
                if parent.startswith(CELL_TEMPLATE) else None
            if cell:
                found.setdefault(cell[0])
    return list(found)


