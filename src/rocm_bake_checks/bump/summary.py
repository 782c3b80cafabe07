"""The bump's summary, Markdown fit for a pull request's body: old -> new per pin, upstream's
values per component, and every finding that still needs a person."""

from __future__ import annotations

from rocm_bake_checks.bump import recipediff
from rocm_bake_checks.bump.plan import Plan


def render(plan: Plan, note: str = "") -> str:
    """The summary; ``note`` (e.g. "dry run: nothing written") follows the title."""
    changed = plan.changed()
    lines = [f"## Bump to vLLM v{plan.release}" + (f" ({note})" if note else ""), "",
             f"Recipe followed: `{plan.recipe.base}` + `{plan.recipe.image}` "
             f"({len(changed)} pin(s) changed).", ""]
    if changed:
        lines += ["| pin | old | new | from |", "|---|---|---|---|"]
        lines += [f"| `{c.variable}` | `{c.old}` | `{c.new}` | {c.why} |" for c in changed]
        lines.append("")
    if plan.recipe_change is not None:
        lines.append(recipediff.render(plan.recipe_change))
    lines += ["### Upstream, per component", ""]
    for group in sorted(plan.upstream):
        lines.append(f"- **{group}**: " + "; ".join(f"`{v}`" for v in plan.upstream[group]))
    lines += ["", "### Needs a person", ""]
    lines += [f"- {n}" for n in plan.needs] or ["- nothing"]
    if plan.unfollowed:
        lines += ["", "### Upstream ARGs no rule of upstream.toml follows", ""]
        lines += [f"- `{u}`" for u in plan.unfollowed]
    return "\n".join(lines) + "\n"
