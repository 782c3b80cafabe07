"""buildx's bake function library (``bake/hclparser/stdlib.go``) over plain values.

Every function takes its evaluated arguments and returns a value, or raises FunctionError.
The behaviour is that of cty's stdlib and hashicorp/go-cty-funcs as buildx 0.29 links them,
checked against the real buildx (the cases recorded from it: tests/fixtures/bake/functions.json,
run by tests/unit/test_functions.py).

Scope: buildx 0.29 parity, and the functions this repository's bake files use. The table is
buildx's whole library, so that any bake file evaluates here as ``docker buildx bake`` evaluates
it; this repository's bake files (``rocm-bake.hcl`` and those under ``tests/``) call 19 of its
98 functions. The other 79 are parity-only (``registry.PARITY_ONLY``): they stay only to match
buildx, a change to one follows buildx (its tests, its recorded cases), never a need here, and
the model grows no function buildx does not have. tests/unit/test_function_scope.py recomputes
both counts from the bake files and fails when the set or these numbers drift.

One module per concern: ``params`` (cty's calling convention), ``strings``, ``paths``,
``graphemes``, ``format`` (printf), ``goregex``/``regex``, ``collectionfns``, ``sets``, ``numeric``
(with ``gomath``), ``logic``, ``encoding``, ``timefns``, ``network``; ``registry`` puts them
in one table. Values, types and numbers are the model's: ``rocm_bake.model.hcl.values``,
``rocm_bake.model.hcl.types`` and ``rocm_bake.model.hcl.bigfloat``.
"""

from __future__ import annotations

from rocm_bake.model.hcl.bigfloat import arithmetic
from rocm_bake.model.hcl.functions.params import Function, FunctionError
from rocm_bake.model.hcl.functions.registry import FUNCTIONS, PARITY_ONLY
from rocm_bake.model.hcl.types import convert, cty_equal, type_of, unify
from rocm_bake.model.hcl.values import ListValue, MapValue, SetValue

__all__ = [
    "FUNCTIONS",
    "PARITY_ONLY",
    "Function",
    "FunctionError",
    "ListValue",
    "MapValue",
    "SetValue",
    "arithmetic",
    "convert",
    "cty_equal",
    "type_of",
    "unify",
]
