"""buildx's bake function library (``bake/hclparser/stdlib.go``) over plain values.

Every function takes its evaluated arguments and returns a value, or raises FunctionError.
The behaviour is that of cty's stdlib and hashicorp/go-cty-funcs as buildx 0.29 links them,
checked against the real buildx (see tests/unit/test_functions.py).

One module per concern: ``params`` (cty's calling convention), ``strings``, ``paths``,
``graphemes``, ``format`` (printf), ``goregex``/``regex``, ``collectionfns``, ``sets``, ``numeric``
(with ``gomath``), ``logic``, ``encoding``, ``timefns``, ``network``; ``registry`` puts them
in one table. Values, types and numbers are the model's: ``rocm_bake.model.hcl.values``,
``rocm_bake.model.hcl.types`` and ``rocm_bake.model.hcl.bigfloat``.
"""

from __future__ import annotations

from rocm_bake.model.hcl.bigfloat import arithmetic
from rocm_bake.model.hcl.functions.params import Function, FunctionError
from rocm_bake.model.hcl.functions.registry import FUNCTIONS
from rocm_bake.model.hcl.types import convert, cty_equal, type_of, unify
from rocm_bake.model.hcl.values import ListValue, MapValue, SetValue

__all__ = [
    "FUNCTIONS",
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
