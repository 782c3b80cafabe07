"""The function table: every function buildx's bake stdlib (``bake/hclparser/stdlib.go``) has,
except ``can`` and ``try`` (the evaluator's), ``convert`` (a type expression) and ``bcrypt`` and
``rsadecrypt`` (not reproducible)."""

from __future__ import annotations

from collections.abc import Mapping

from rocm_bake.hcl.functions.collectionfns import TABLE as COLLECTIONS
from rocm_bake.hcl.functions.encoding import TABLE as ENCODINGS
from rocm_bake.hcl.functions.format import TABLE as FORMATS
from rocm_bake.hcl.functions.logic import TABLE as LOGIC
from rocm_bake.hcl.functions.network import TABLE as NETWORK
from rocm_bake.hcl.functions.numeric import TABLE as NUMBERS
from rocm_bake.hcl.functions.params import Function
from rocm_bake.hcl.functions.paths import TABLE as PATHS
from rocm_bake.hcl.functions.regex import TABLE as REGEXES
from rocm_bake.hcl.functions.sets import TABLE as SETS
from rocm_bake.hcl.functions.strings import TABLE as STRINGS
from rocm_bake.hcl.functions.timefns import TABLE as TIMES

_TABLES: tuple[Mapping[str, Function], ...] = (
    COLLECTIONS,
    ENCODINGS,
    FORMATS,
    LOGIC,
    NETWORK,
    NUMBERS,
    PATHS,
    REGEXES,
    SETS,
    STRINGS,
    TIMES,
)


def _merged() -> dict[str, Function]:
    table: dict[str, Function] = {}
    for part in _TABLES:
        twice = table.keys() & part.keys()
        if twice:
            raise AssertionError(f"functions defined twice: {sorted(twice)}")
        table.update(part)
    return dict(sorted(table.items()))


FUNCTIONS: Mapping[str, Function] = _merged()
