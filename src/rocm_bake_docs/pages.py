"""Every generated file of docs/ (and the generated regions of README.md and docs/index.md),
rendered together; written atomically; checked for staleness.

    pages.write(Source(root))     # regenerate, return the files that changed
    pages.stale(Source(root))     # the committed files that differ from a fresh render
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rocm_bake.core import atomic
from rocm_bake.core.errors import RocmBakeError
from rocm_bake_docs import (
    bake_coverage,
    build_graph,
    commands,
    fleet_page,
    image_tags,
    live_reports,
    nox_page,
    performance,
    reference_index,
    snippets,
    tasks_page,
)
from rocm_bake_docs.source import Source

# Pages other generators own: read, linked, never written from here.
FOREIGN = frozenset({reference_index.VARIABLES})


@dataclass(frozen=True)
class Page:
    path: str  # relative to docs/
    render: Callable[[Source], str]


PAGES: tuple[Page, ...] = (
    Page(tasks_page.PATH, tasks_page.render),
    Page(nox_page.PATH, nox_page.render),
    Page(image_tags.PATH, image_tags.render),
    Page(bake_coverage.PATH, bake_coverage.render),
    Page(reference_index.PATH, reference_index.render),
    Page(performance.PATH, performance.render),
    Page(build_graph.PATH, build_graph.render),
    Page(fleet_page.PATH, fleet_page.render),
    Page(live_reports.PATH, live_reports.render),
    *(Page(c.path, commands.renderer(c)) for c in commands.COMMANDS),
    *(Page(path, snippets.renderer(path)) for path in snippets.FILES),
)


def render_all(source: Source) -> dict[str, str]:
    """Every generated file's text, by path under docs/ (nothing is written)."""
    out = {}
    for page in PAGES:
        if page.path in FOREIGN:
            raise RocmBakeError(f"docs/{page.path} is generated elsewhere; rocm_bake_docs must not "
                                "write it")
        text = page.render(source)
        out[page.path] = text if text.endswith("\n") else text + "\n"
    return out


def stale(source: Source, rendered: dict[str, str] | None = None) -> list[str]:
    """The generated files whose committed text is missing or differs from a fresh render."""
    fresh = render_all(source) if rendered is None else rendered
    return [path for path, text in fresh.items() if _read(source.docs / path) != text]


def write(source: Source) -> list[str]:
    """Render every page, then write those that changed (each atomically)."""
    fresh = render_all(source)
    changed = stale(source, fresh)
    for path in changed:
        atomic.write_text(source.docs / path, fresh[path])
    return changed


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None

