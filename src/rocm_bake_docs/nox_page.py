"""docs/reference/nox.md: the nox sessions, as ``nox -l --json`` lists them."""

from __future__ import annotations

import ast
import json
import subprocess

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "reference/nox.md"
# `nox -l --json` lists only the selected sessions; a keyword expression that no session
# name contains selects all of them.
_SELECT_ALL = ["-k", "not rocm_bake_no_such_session"]


def list_sessions(source: Source, select_all: bool) -> list[dict[str, object]]:
    argv = [source.tool("nox"), "--noxfile", str(source.root / "noxfile.py"), "-l", "--json",
            *(_SELECT_ALL if select_all else [])]
    proc = subprocess.run(argv, cwd=source.root, env=source.env(), capture_output=True,
                          text=True, timeout=120, check=False)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RocmBakeError(f"nox -l --json failed: {last}")
    sessions: list[dict[str, object]] = json.loads(proc.stdout)
    return sessions


def noxfile_doc(source: Source) -> str:
    tree = ast.parse((source.root / "noxfile.py").read_text(encoding="utf-8"))
    return ast.get_docstring(tree) or ""


def render(source: Source) -> str:
    every = list_sessions(source, select_all=True)
    default = {s["name"] for s in list_sessions(source, select_all=False)}
    rows = [[md.code(str(s["name"])), "yes" if s["name"] in default else "",
             md.cell(str(s.get("description") or ""))] for s in every]
    intro = noxfile_doc(source).split("\n\n")[0].replace("\n", " ")
    return "\n".join([
        md.header("noxfile.py (nox -l --json)"),
        "# nox sessions\n",
        f"{intro}\n",
        "`nox` with no arguments runs the sessions marked *default*; `nox -s NAME` runs one; "
        "arguments after `--` go to the session (for a build session, to `inv build`).\n",
        md.table(["session", "default", "what it does"], rows),
        md.fenced("nox -l\nnox -s build-gfx950 -- --dry-run", "sh"),
    ])
