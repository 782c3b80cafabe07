"""docs/reference/tasks.md: every invoke task, its flags and help, read from the collection
exactly as ``inv`` loads it (``tasks/`` of the checkout)."""

from __future__ import annotations

import inspect
from typing import Any

from invoke.collection import Collection
from invoke.loader import FilesystemLoader

from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "reference/tasks.md"


def load_collection(source: Source) -> Collection:
    """The ``tasks`` collection of the checkout, loaded by invoke's own loader."""
    module, _ = FilesystemLoader(start=str(source.root)).load("tasks")
    collection: Collection = Collection.from_module(module)
    return collection


def _value_kind(argument: Any) -> str:
    if argument.kind is bool:
        return "switch"
    if argument.kind is list:
        return "VALUE, repeatable"
    if argument.optional:
        return "switch, or VALUE"
    return "NUMBER" if argument.kind is int else "VALUE"


def flag_rows(context: Any) -> list[list[str]]:
    """One row per flag, as ``inv --help TASK`` lists them."""
    rows = []
    for flags, help_text in context.help_tuples():
        long_flag = next(f for f in flags.split(", ") if f.startswith("--")
                         ).split("=")[0].split("[")[0]     # --images[=STRING]: optional value
        argument = context.flags[long_flag]
        rows.append([md.code(flags), _value_kind(argument), md.cell(help_text or "")])
    return rows


def _task_section(name: str, doc: str, context: Any) -> str:
    usage = f"./inv {name} [--options]" if context.flags else f"./inv {name}"
    out = [f"## {name}\n", f"{doc}\n", f"Usage: {md.code(usage)}\n"]
    rows = flag_rows(context)
    if rows:
        out.append(md.table(["flag", "takes", "help"], rows))
    else:
        out.append("No flags.\n")
    return "\n".join(out)


def render(source: Source) -> str:
    collection = load_collection(source)
    contexts = {str(ctx.name): ctx for ctx in collection.to_contexts()}
    docs = {name: inspect.cleandoc(collection[name].__doc__ or "(no docstring)")
            for name in sorted(contexts)}
    # the heading's anchor, as the toc extension slugifies it (`fleet.build` -> `fleetbuild`)
    summary = [[f"[`{name}`](#{name.replace('.', '')})", md.cell(doc.splitlines()[0])]
               for name, doc in docs.items()]
    parts = [
        md.header("the invoke collection in tasks/"),
        "# Tasks\n",
        "Every task of `./inv`, as `./inv --list` and `./inv --help TASK` show them. A flag "
        "that takes a VALUE is written `--flag VALUE` or `--flag=VALUE`; a repeatable one may "
        "be given several times. Underscores in task and flag names become dashes.\n",
        md.table(["task", "what it does"], summary),
        *(_task_section(name, doc, contexts[name]) for name, doc in docs.items()),
    ]
    return "\n".join(parts)
