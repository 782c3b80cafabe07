"""Inline SVG line charts for the Performance page: no JavaScript, no fetch, same bytes for
the same data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from rocm_bake.perf.schema import duration

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 16, 40
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2")


@dataclass(frozen=True)
class Series:
    name: str
    points: list[tuple[int, float, str]]  # (x index, seconds, tooltip)


def _scale_y(value: float, top: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top)


def _scale_x(index: int, count: int) -> float:
    span = WIDTH - LEFT - RIGHT
    return LEFT + (span / 2 if count <= 1 else span * index / (count - 1))


def _axes(top: float, x_labels: Sequence[str]) -> list[str]:
    parts = [f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" '
             f'y2="{HEIGHT - BOTTOM}" stroke="currentColor" stroke-opacity="0.5"/>']
    for step in range(5):
        value = top * step / 4
        y = _scale_y(value, top)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
                     'stroke="currentColor" stroke-opacity="0.12"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{escape(duration(value))}</text>')
    last = len(x_labels) - 1
    for index, label in enumerate(x_labels):
        x = _scale_x(index, len(x_labels))
        anchor = "start" if index == 0 < last else "end" if index == last > 0 else "middle"
        parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="{anchor}" '
                     f'font-size="11">{escape(label)}</text>')
    return parts


def _series(series: Series, color: str, top: float, count: int) -> list[str]:
    coords = [(_scale_x(i, count), _scale_y(v, top), tip) for i, v, tip in series.points]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in coords)
    parts = [f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}"/>']
    parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}">'
              f"<title>{escape(tip)}</title></circle>" for x, y, tip in coords]
    return parts


def _legend(series: Sequence[Series]) -> list[str]:
    parts = []
    for index, s in enumerate(series):
        x = LEFT + 150 * index
        color = PALETTE[index % len(PALETTE)]
        parts.append(f'<rect x="{x}" y="{HEIGHT - 14}" width="10" height="10" fill="{color}"/>')
        parts.append(f'<text x="{x + 14}" y="{HEIGHT - 5}" font-size="11">'
                     f"{escape(s.name)}</text>")
    return parts


def line_chart(title: str, x_labels: Sequence[str], series: Sequence[Series]) -> str:
    """One SVG element (a single line of text, safe inside a Markdown HTML block)."""
    top = max((v for s in series for _, v, _ in s.points), default=1.0) * 1.1 or 1.0
    body = [*_axes(top, x_labels)]
    for index, s in enumerate(series):
        body += _series(s, PALETTE[index % len(PALETTE)], top, len(x_labels))
    body += _legend(series)
    return (f'<svg class="perf-chart" role="img" aria-label="{escape(title)}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" xmlns="http://www.w3.org/2000/svg" '
            f'font-family="sans-serif" fill="currentColor"><title>{escape(title)}</title>'
            + "".join(body) + "</svg>")
