"""docs/reference/bake-model.md: what the bake model covers, read from the buildx oracle tests
(tests/buildx/) with ``ast`` — the tests are the record, this page only lists them."""

from __future__ import annotations

import ast
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_docs import markdown as md
from rocm_bake_docs.source import Source

PATH = "reference/bake-model.md"
TESTS = "tests/buildx"
#: The buildx-recorded vectors tests/buildx/test_vectors.py runs (a path in the repository).
VECTORS = "tests/fixtures/bake/vectors.json"

#: What each family of tests/buildx/test_families.py is about.
FAMILY_TEXT = {
    "set-env-args": "`--set T.args.NAME` without `=`: the value comes from the environment",
    "set-append": "`--set KEY+=VALUE`: appends (merges, for entries) where buildx allows it",
    "set-csv-values": "`--set` and HCL values of cache/output/secret fields, split as buildx "
                      "splits them; load/push overrides; target-name globs",
    "target-references": "`target.NAME.FIELD` / `group.NAME.FIELD` references",
    "any-from-env": "variables of type `any` (and other types) set from the environment, "
                    "`NAME_JSON`",
    "print-escaping": "`$${` / `%%{` in `--print` of args, labels, annotations, "
                      "dockerfile-inline; heredocs and templates",
    "source-date-epoch": "`SOURCE_DATE_EPOCH` from the environment as a build arg",
    "fuzz-found": "minimal cases of what the differential fuzzer found",
    "typed-nil": "a typed variable with no default and no value (cty's NilVal): null to "
                 "comparisons and encoders, refused by fields and typed parameters",
    "graphemes": "grapheme clusters as go-textseg v15 counts them (strlen, substr, reverse)",
    "set-without-value": "`--set` with its value left out (`KEY`, `KEY=`, `KEY+=`) for every "
                         "kind of field: string, list, map, bool, entries, sizes, unknown keys",
    "refused": "bake files buildx refuses, each with one error the model must word the same "
               "and place at the same line and column",
}


def _dict_literals(path: Path) -> dict[str, list[str]]:
    """Top-level ``NAME = {"key": ...}`` (or annotated) assignments: name -> string keys."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError) as exc:
        raise RocmBakeError(f"cannot read {path}: {exc}") from None
    out: dict[str, list[str]] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            out[target.id] = [k.value for k in value.keys
                              if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return out


def _string_entries(path: Path, name: str) -> list[tuple[str, str]]:
    """A top-level ``NAME = {"key": "text", ...}`` dict of strings, in order."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id == name and isinstance(node.value, ast.Dict)):
            return [(k.value, v.value) for k, v in zip(node.value.keys, node.value.values,
                                                       strict=True)
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                    and isinstance(v, ast.Constant) and isinstance(v.value, str)]
    raise RocmBakeError(f"{path}: no {name} table")


def _families(path: Path) -> list[tuple[str, list[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    literals = _dict_literals(path)
    for node in tree.body:
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id == "FAMILIES" and isinstance(node.value, ast.Dict)):
            return [(str(k.value), literals.get(v.id, []))
                    for k, v in zip(node.value.keys, node.value.values, strict=True)
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Name)]
    raise RocmBakeError(f"{path}: no FAMILIES table")


def _names(names: list[str]) -> str:
    return md.cell(", ".join(f"`{n}`" for n in names))


def render(source: Source) -> str:
    tests = source.root / TESTS
    families = _families(tests / "test_families.py")
    more = _dict_literals(tests / "test_more_cases.py").get("CASES", [])
    layouts = _dict_literals(tests / "test_syntax.py").get("LAYOUTS", [])
    unsupported = _dict_literals(tests / "test_families.py").get("UNSUPPORTED", [])
    wording = _string_entries(tests / "wording.py", "ERROR_WORDING")
    rows = [[f"`{name}`", md.cell(FAMILY_TEXT.get(name, "")), str(len(cases)), _names(cases)]
            for name, cases in families]
    rows.append(["`more-cases`", "user functions, matrices, inherits, entitlements, typed "
                 "variables from the environment, errors", str(len(more)), _names(more)])
    rows.append(["`layout`", "Go HCL's layout rules (one item per line, single-line blocks)",
                 str(len(layouts)), _names(layouts)])
    total = sum(int(r[2]) for r in rows)
    return "\n".join([
        md.header(f"the buildx oracle tests ({TESTS}/)"),
        "# Bake model coverage\n",
        "`inv build --print` and `inv list-vars` answer from rocm-bake's own model of "
        "`docker buildx bake` (src/rocm_bake/bake, src/rocm_bake/hcl). Each case below runs "
        "through the installed buildx (0.29.1) and the model side by side, and must give the "
        "same `--print` / `--list=variables` data, or fail in both with an error that means the "
        f"same (below) (`pytest -m buildx {TESTS}`). {total} cases in all, plus the recorded "
        f"vectors of `{VECTORS}` (buildx 0.29.1's own output) and `rocm-bake.hcl` "
        "itself for every group and arch.\n",
        md.table(["family", "what", "cases", "case names"], rows),
        "## Differential fuzzing\n",
        f"`{TESTS}/fuzz.py` draws random bake files, environments and `--set` lists from the "
        "grammar the model supports (variables of every type with defaults, validation and "
        "null; templates, directives, heredocs, escapes; for-expressions, conditionals, "
        "builtin and user functions; targets with inherits, matrix/name, `target:` contexts "
        "and references; groups). `test_fuzz.py` runs a seed-pinned set in CI; "
        "`benchmarks/bake_fuzz.py --cases N` runs any number and shrinks every disagreement "
        "to a minimal file.\n",
        "## Errors\n",
        "Where buildx refuses a bake file or a `--set`, the model refuses it with an error "
        "that means the same. The oracle tests compare the two after one normalisation "
        f"(`error_gist` in `{TESTS}/oracle.py`): the bake file by name, the line, the column "
        "where both give one, and the first clause of the message (up to the first `; ` or "
        "`: `, case-folded, without a final parenthesised note such as the model's "
        "`(target t)`). For an HCL diagnostic, buildx's `Summary; Detail`, that is the "
        "summary (`Invalid value`, `Unsuitable value type`, `Validation failed` ...), and the "
        "model words it the same way. Where the wording must differ, the case is listed in "
        f"`{TESTS}/wording.py` with the reason, and the tests hold it to that list:\n",
        md.table(["case", "why the model's wording differs"],
                 [[f"`{name}`", md.cell(reason)] for name, reason in wording]),
        "## Not supported yet\n",
        "buildx accepts these; the model refuses them with an error that says "
        "*not supported*, never with a different answer:\n",
        md.table(["construct"], [[f"`{name}`"] for name in unsupported]),
    ])
