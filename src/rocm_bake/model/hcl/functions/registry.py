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
