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
    OPTIONAL_TABLES,
    SOURCE_PINS,
    SOURCE_SUFFIX,
    STATIC_SECONDS,
    TABLES,
    UPSTREAM_STAGE,
    WHEELS,
    Where,
    all_archs,
    arch_knobs,
    candidates,
    canonical,
    consumers,
    declared_at,
    declares_wheels,
    mapping,
    names,
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
    "OPTIONAL_TABLES", "RULE_ORDER", "SOURCE_PINS", "SOURCE_SUFFIX", "STATIC_SECONDS", "TABLES",
    "UPSTREAM_STAGE", "WHEELS", "ComponentError", "Problem", "Where", "all_archs", "arch_knobs",
    "candidates", "canonical", "consumers", "declared_at", "declares_wheels", "hinted",
    "mapping", "names", "problems", "split_cell", "static_seconds", "upstream_stages", "wheels",
]
