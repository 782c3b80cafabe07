"""A text table that fits the terminal: tabulate's ``simple`` format, long cells wrapped so the
whole table is at most the terminal's width (``COLUMNS``, else the terminal stdout is). Output
that goes to no terminal (a pipe, a file, a CI log) is not wrapped, as ``ls`` and ``git`` do,
unless ``COLUMNS`` says a width. Numbers print as written (``7.10`` stays ``7.10``), URL
credentials masked. Tasks that print a table also offer ``--json`` with every cell whole."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from tabulate import tabulate

from rocm_bake.core import redact

GAP = 2  # tabulate's "simple" format puts two spaces between columns
HEADER_PAD = 2  # ... and makes a column two wider than its header (tabulate.MIN_PADDING)
NARROWEST = 12  # a wrapped column is never made narrower than this


def terminal_width() -> int | None:
    """The width tables are fitted to: COLUMNS, else stdout's terminal; None (no wrapping) when
    stdout is no terminal."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return None


def _natural(rows: Sequence[Sequence[object]], headers: Sequence[str]) -> list[int]:
    widths = [len(h) + HEADER_PAD for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            longest = max((len(line) for line in str(cell).splitlines()), default=0)
            widths[i] = max(widths[i], longest)
    return widths


def column_widths(natural: Sequence[int], width: int) -> list[int | None]:
    """The widest each column may be (None: as it is) for the table to fit ``width``: columns
    narrower than their fair share keep their width, the rest share what is left equally."""
    budget = width - GAP * (len(natural) - 1)
    if sum(natural) <= budget:
        return [None] * len(natural)
    limits: list[int | None] = [None] * len(natural)
    left = len(natural)
    for i in sorted(range(len(natural)), key=lambda k: natural[k]):
        share = max(budget // left, NARROWEST)
        if natural[i] > share:
            limits[i] = share
        budget -= min(natural[i], share)
        left -= 1
    return limits


def render(rows: Sequence[Sequence[object]], headers: Sequence[str],
           width: int | None = None) -> str:
    """``rows`` under ``headers`` as a text table at most ``width`` columns wide (default: the
    terminal's), wrapping the longest cells; every value is printed as written, but with its URL
    credentials masked first: a wrapped cell could split one past what a line-wise mask sees."""
    cells = [[redact.text(str(c)) for c in row] for row in rows]
    width = width or terminal_width()
    fitted = column_widths(_natural(cells, headers), width) if width else []
    options = {"maxcolwidths": fitted} if any(fitted) else {}
    return str(tabulate(cells, headers=list(headers),
                        disable_numparse=True, **options))  # type: ignore[arg-type]
