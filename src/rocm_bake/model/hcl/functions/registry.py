"""The function table: every function buildx's bake stdlib (``bake/hclparser/stdlib.go``) has,
except ``can`` and ``try`` (the evaluator's), ``convert`` (a type expression) and ``bcrypt`` and
``rsadecrypt`` (not reproducible).

A family's module is imported when a name is first looked up that the families loaded so far do
not have (a bake file calls a few families: most of its loading is never paid), all of them
when the table is listed. The families are tried in a fixed order, so a lookup always finds the
same function."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from rocm_bake.model.hcl.functions.params import Function

#: Family modules of ``rocm_bake.model.hcl.functions``, the most called first.
FAMILIES = ("strings", "collectionfns", "regex", "sets", "encoding", "logic", "numeric",
            "format", "paths", "network", "timefns")


#: The functions no bake file of this repository calls (``rocm-bake.hcl`` and the bake files
#: under ``tests/``): kept for buildx 0.29 parity only, so a change to one follows buildx, never
#: a need here. tests/unit/test_function_scope.py recomputes the set from the bake files and
#: fails when it drifts (a bake file that starts calling one takes it out of this set).
PARITY_ONLY = frozenset({
    "absolute", "add", "and", "base64decode", "base64encode", "basename", "byteslen",
    "bytesslice", "ceil", "chomp", "chunklist", "cidrhost", "cidrnetmask", "cidrsubnet",
    "cidrsubnets", "coalesce", "coalescelist", "compact", "csvdecode", "dirname", "divide",
    "element", "equal", "floor", "format", "formatdate", "formatlist", "greaterthan",
    "greaterthanorequalto", "hasindex", "homedir", "indent", "index", "indexof", "int",
    "jsondecode", "lessthan", "lessthanorequalto", "log", "lower", "max", "md5", "modulo",
    "multiply", "negate", "not", "notequal", "or", "parseint", "pow", "range", "regex_replace",
    "regexall", "reverse", "reverselist", "sanitize", "sethaselement", "setintersection",
    "setproduct", "setsymmetricdifference", "setunion", "sha1", "sha256", "sha512", "signum",
    "sort", "strlen", "subtract", "timeadd", "timestamp", "title", "trim", "trimspace",
    "trimsuffix", "upper", "urlencode", "uuidv4", "uuidv5", "zipmap",
})


class _Table(Mapping[str, Function]):
    def __init__(self) -> None:
        self._loaded: dict[str, Function] = {}
        self._pending = list(FAMILIES)

    def __getitem__(self, name: str) -> Function:
        while name not in self._loaded and self._pending:
            self._load(self._pending.pop(0))
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        while self._pending:
            self._load(self._pending.pop(0))
        return iter(sorted(self._loaded))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _load(self, family: str) -> None:
        module = importlib.import_module(f"rocm_bake.model.hcl.functions.{family}")
        part: Mapping[str, Function] = module.TABLE
        twice = self._loaded.keys() & part.keys()
        if twice:
            raise AssertionError(f"functions defined twice: {sorted(twice)}")
        self._loaded.update(part)


FUNCTIONS: Mapping[str, Function] = _Table()
