"""The components of a bake file, declared once: what the bake file declares about them, read
(``declared``), and what a component's declaration lacks, judged (``rules``: one ``Problem``
per missing entry, and ``hinted``, which names it where the bake model fails). Both are
re-exported here: ``components.names``, ``components.problems``.
"""

from rocm_bake.model.components.declared import (
    ARCH_KNOB,
    ARCH_TABLE,
    CELL_TEMPLATE,
    COMPONENT_TABLE,
    CONSUMERS,
    EXPORT_TARGET,
    LIBRARIES,
    OPTIONAL_TABLES,
    SOURCE_PINS,
    SOURCE_SUFFIX,
    STAGING,
    STATIC_SECONDS,
    TABLES,
    UPSTREAM_STAGE,
    WHEEL_DIR,
    WHEELS,
    Where,
    all_archs,
    arch_knobs,
    candidates,
    canonical,
    consumers,
    declared_at,
    declares_wheels,
    libraries,
    mapping,
    names,
    no_gpu_code,
    split_cell,
    static_seconds,
    upstream_stages,
    wheels,
)
from rocm_bake.model.components.rules import (
    RULE_ORDER,
    ComponentError,
    Problem,
    hinted,
    problems,
)

__all__ = [
    "ARCH_KNOB", "ARCH_TABLE", "CELL_TEMPLATE", "COMPONENT_TABLE", "CONSUMERS", "EXPORT_TARGET",
    "LIBRARIES", "OPTIONAL_TABLES", "RULE_ORDER", "SOURCE_PINS", "SOURCE_SUFFIX", "STAGING",
    "STATIC_SECONDS", "TABLES", "UPSTREAM_STAGE", "WHEELS", "WHEEL_DIR", "ComponentError",
    "Problem", "Where", "all_archs", "arch_knobs", "candidates", "canonical", "consumers",
    "declared_at", "declares_wheels", "hinted", "libraries", "mapping", "names", "no_gpu_code",
    "problems", "split_cell", "static_seconds", "upstream_stages", "wheels",
]
