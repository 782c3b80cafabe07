"""docs/snippets/cmd-*.md: what the Quick start's commands print, captured by running them
(``inv`` from the checkout, PATH and HOME only, COLUMNS 100) so the page cannot drift from the
tasks."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source


@dataclass(frozen=True)
class Command:
    """One command of the Quick start whose output the page shows."""

    slug: str
    argv: tuple[str, ...]
    max_lines: int = 0  # 0 = all

    @property
    def path(self) -> str:
        return f"snippets/cmd-{self.slug}.md"


PAGE_COLUMNS = 100
COMMANDS = (
    Command("targets", ("inv", "targets")),
    Command("list-vars", ("inv", "list-vars"), max_lines=8),
    Command("build-torch-dry-run", ("inv", "build", "--target", "torch", "--dry-run")),
    Command("build-overrides-dry-run",
            ("inv", "build", "--target", "torch", "--arch", "gfx950,gfx1201",
             "--set", "MAX_JOBS=32", "--set", "torch-gfx950.args.MAX_JOBS=8",
             "--dry-run")),
    Command("push-torch-dry-run",
            ("inv", "push", "--target", "torch", "--set", "REGISTRY=registry.example.com:5000",
             "--dry-run")),
)


def run(source: Source, command: Command) -> str:
    """The command's standard output; a failure is an error naming the command."""
    argv = [source.tool(command.argv[0]), *command.argv[1:]]
    # tables as a 100-column terminal shows them (into a pipe a task wraps nothing)
    env = {**source.env(), "COLUMNS": str(PAGE_COLUMNS)}
    proc = subprocess.run(argv, cwd=source.root, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RocmBakeError(f"`{shlex.join(command.argv)}` failed while generating the docs: "
                            f"{last}")
    return proc.stdout


def _shown(output: str, max_lines: int) -> str:
    lines = output.rstrip().splitlines()
    if max_lines and len(lines) > max_lines:
        rest = len(lines) - max_lines
        lines = [*lines[:max_lines], f"... ({rest} more lines)"]
    return "\n".join(line.rstrip() for line in lines)


def renderer(command: Command) -> Callable[[Source], str]:
    def render(source: Source) -> str:
        shown = _shown(run(source, command), command.max_lines)
        typed = "./" + shlex.join(command.argv)
        return md.header(f"the output of `{typed}`") + md.fenced(f"$ {typed}\n{shown}")

    return render
