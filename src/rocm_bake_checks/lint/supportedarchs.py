"""A cell exists only for archs upstream supports (rule ``supported-archs``, family
``conformance``).

``upstream.toml``'s ``[supported-archs.<component>]`` says where a component's upstream
declares the GPU archs it supports: ``url`` (a ``{VARIABLE}`` template, the file at the pinned
version, read through the replayable snapshot like every upstream file) and ``name`` (the list
or dict literal assigned to that name in it: a list's items, a dict's values), or, where that
file could not be had, ``archs`` with ``from`` saying where they were read.  Every arch of the
bake file's ``ALL_ARCHS`` outside them needs a ``SKIP`` entry ``<arch>/<component>``: without
one the bake file would silently build a cell upstream does not support.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_bake import components
from rocm_bake.bakefile import Definition
from rocm_bake_checks.lint import upstream
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.findings import Finding, LintError

RULE = "supported-archs"
TABLE = "supported-archs"


@dataclass(frozen=True)
class Declared:
    component: str
    url: str = ""         # template; empty: ``archs`` is the record
    name: str = ""
    archs: tuple[str, ...] = ()
    source: str = ""      # where ``archs`` were read (``from``)


def load(path: Path) -> list[Declared]:
    """The ``[supported-archs]`` tables of ``path`` (none: an empty list)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")).get(TABLE, {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    out = []
    for component, entry in data.items():
        if not isinstance(entry, dict):
            raise LintError(f"{path}: [{TABLE}.{component}] is not a table")
        url, name = str(entry.get("url", "")), str(entry.get("name", ""))
        archs = tuple(str(a) for a in entry.get("archs", []))
        if bool(url) == bool(archs) or bool(url) != bool(name):
            raise LintError(f"{path}: [{TABLE}.{component}] needs url and name, or archs "
                            f"and from")
        out.append(Declared(str(component), url, name, archs, str(entry.get("from", ""))))
    return out


def archs_in(text: str, name: str, where: str) -> tuple[str, ...]:
    """The ``gfx`` strings of the literal assigned to ``name`` in the Python source ``text``."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise LintError(f"{where}: not Python ({exc.msg}, line {exc.lineno})") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        items = (value.values if isinstance(value, ast.Dict)
                 else value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [])
        found = tuple(i.value for i in items
                      if isinstance(i, ast.Constant) and isinstance(i.value, str)
                      and i.value.startswith("gfx"))
        if found:
            return found
    raise LintError(f"{where}: no literal list or dict of gfx archs assigned to {name!r}")


def supported(declared: Declared, metadata: upstream.Metadata,
              variables: Mapping[str, object]) -> tuple[tuple[str, ...], str]:
    """The archs and where they were read."""
    if not declared.url:
        return declared.archs, declared.source or f"upstream.toml [{TABLE}.{declared.component}]"
    url = upstream.resolve(declared.url, variables, f"[{TABLE}.{declared.component}]")
    return archs_in(metadata.text(url), declared.name, url), f"{url} {declared.name}"


def check(definition: Definition, root: Path, metadata: upstream.Metadata) -> list[Finding]:
    return list(_findings(definition, root, metadata))


def _findings(definition: Definition, root: Path,
              metadata: upstream.Metadata) -> Iterator[Finding]:
    names = components.names(definition)
    archs = components.all_archs(definition)
    skip = definition.value("SKIP") if "SKIP" in _attributes(definition) else {}
    skipped = set(skip) if isinstance(skip, dict) else set()
    file, line = _where(definition, "SKIP")
    variables = {v.name: v.value for v in definition.variables()}
    for declared in load(metadata.settings.config):
        if declared.component not in names:
            continue
        ok, source = supported(declared, metadata, variables)
        for arch in archs:
            key = f"{arch}/{declared.component}"
            if arch not in ok and key not in skipped:
                yield Finding(relative(Path(file), root), line, RULE,
                              f"{declared.component}: {arch} is not among the archs upstream "
                              f"supports ({', '.join(ok)}: {source}) and SKIP has no entry "
                              f"'{key}', so a cell would be built; add \"{key}\" = \"<why>\" "
                              f"to SKIP")


def _attributes(definition: Definition) -> Mapping[str, object]:
    return definition.namespace.declared.attributes


def _where(definition: Definition, name: str) -> tuple[str, int]:
    attribute = definition.namespace.declared.attributes.get(name)
    if attribute is None:
        return str(definition.files[0]), 1
    return attribute.source.file, attribute.source.line or 1
