"""The bake file as the generators see it: every supported arch, default variables."""

from __future__ import annotations

from rocm_bake.model import bakefile, graph
from rocm_bake.model.bakefile import ARCH_VARIABLE, Definition
from rocm_bake_docs.source import Source


def archs(source: Source) -> list[str]:
    """The arches the bake file supports (``ALL_ARCHS``), default arch first."""
    return graph.supported_archs([str(source.bake_path)], env={})


def default_archs(source: Source) -> list[str]:
    """The arches a plain ``./inv build`` builds (``GPU_ARCHS``'s default)."""
    value = bakefile.load([source.bake_path], {}).value(ARCH_VARIABLE)
    return [str(v) for v in value] if isinstance(value, list) else []


def definition(source: Source) -> Definition:
    """The bake file evaluated with defaults and ``GPU_ARCHS`` = every supported arch."""
    return bakefile.load([source.bake_path], {ARCH_VARIABLE: ",".join(archs(source))})


def cells(source: Source) -> list[graph.Cell]:
    """Every component x arch cell, with defaults only (no caller environment)."""
    return graph.cells([str(source.bake_path)], archs(source), env={})
