"""Bake-file consistency of the components (family ``consistency``): every table, block,
``SKIP`` entry, pin source and description a component needs, from
``rocm_bake.model.components`` -- one finding per missing entry, naming the entry to add.

It runs before the plan is resolved: a component missing from ``CACHE_KEY`` or ``SKIP`` makes
the plan fail with buildx's "failed to find target"; the lint names the missing entry instead.
"""

from __future__ import annotations

from pathlib import Path

from rocm_bake.model import components
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.findings import Finding


def check(definition: Definition, root: Path) -> list[Finding]:
    return [Finding(relative(Path(p.file), root), p.line, p.rule, p.message)
            for p in components.problems(definition)]
