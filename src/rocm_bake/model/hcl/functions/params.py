"""cty's calling convention (``function.Function.Call``): parameters, their checking and
conversion, and the errors a call raises, worded as buildx prints them."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from rocm_bake.core.errors import HCLError
from rocm_bake.model.hcl.bigfloat import is_integral
from rocm_bake.model.hcl.types import ANY, STRING, Type, convert, friendly, type_of
from rocm_bake.model.hcl.values import ConversionError, Value, is_nil


class FunctionError(Exception):
    """A function call failed; the message names the function, as buildx's diagnostic does.
    ``argument`` is the index of the argument it is about, when it is about one."""

    def __init__(self, message: str, argument: int | None = None) -> None:
        super().__init__(message)
        self.argument = argument


Function = Callable[[list[Value]], Value]


class ArgError(Exception):
    """cty's function.NewArgError: an argument (by index) is unsuitable."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


class CallError(Exception):
    """An error returned by a function's implementation."""


def kind_name(value: Value) -> str:
    """cty's FriendlyName of the value's type."""
    return friendly(type_of(value))


INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
_WHOLE = "value must be a whole number, between -9223372036854775808 and 9223372036854775807"


def to_int(value: Decimal) -> int:
    """gocty's conversion of a number to a Go int."""
    if not is_integral(value):
        raise ConversionError(_WHOLE)
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        raise ConversionError(_WHOLE)
    return number


@dataclass(frozen=True)
class Param:
    """A parameter: its name (as errors quote it), its type and whether null is allowed."""

    name: str
    type: Type = ANY
    allow_null: bool = False


def define(
    name: str,
    params: Sequence[Param],
    impl: Callable[[list[Value]], Value],
    var: Param | None = None,
) -> Function:
    """A function value checking and converting its arguments as cty does."""

    def call(args: list[Value]) -> Value:
        try:
            return _finish(impl(_check_args(name, params, var, list(args))))
        except (FunctionError, HCLError):  # HCLError: a value the model cannot use (a block)
            raise
        except ArgError as exc:
            param = params[exc.index] if exc.index < len(params) else var
            pname = param.name if param is not None else "?"
            raise FunctionError(
                f'{name}: Invalid function argument; Invalid value for "{pname}" parameter: '
                f"{exc.message}.", exc.index
            ) from None
        except RecursionError:
            raise FunctionError(f"{name}: value nested too deeply") from None
        except Exception as exc:  # every other failure is the function's error
            raise FunctionError(
                f'{name}: Error in function call; Call to function "{name}" failed: {exc}.'
            ) from None

    call.__name__ = name
    call.__qualname__ = name
    return call


def _check_args(
    name: str, params: Sequence[Param], var: Param | None, args: list[Value]
) -> list[Value]:
    if len(args) < len(params):
        least = "at least " if var is not None else ""
        raise FunctionError(
            f'{name}: Not enough function arguments; Function "{name}" expects {least}'
            f'{len(params)} argument(s). Missing value for "{params[len(args)].name}".',
            len(args),
        )
    if var is None and len(args) > len(params):
        raise FunctionError(
            f'{name}: Too many function arguments; Function "{name}" expects only '
            f"{len(params)} argument(s).", len(params)
        )
    out: list[Value] = []
    for i, arg in enumerate(args):
        param = params[i] if i < len(params) else var
        assert param is not None
        if arg is None or is_nil(arg):  # a NilVal is null to cty's calling convention
            if not param.allow_null:
                raise ArgError(i, "argument must not be null")
            out.append(arg)
            continue
        try:
            out.append(convert(arg, param.type))
        except ConversionError as exc:
            raise ArgError(i, str(exc)) from None
    return out


def _finish(result: Value) -> Value:
    if isinstance(result, str):
        return unicodedata.normalize("NFC", result)
    return result


# Arguments have been converted to their parameter's type; these only narrow the static type.


def as_str(value: Value) -> str:
    assert isinstance(value, str)
    return value


def as_num(value: Value) -> Decimal:
    assert isinstance(value, Decimal)
    return value


def as_seq(value: Value) -> list[Value]:
    assert isinstance(value, list)
    return value


def int_arg(value: Value, index: int | None = None, prefix: str = "") -> int:
    """A whole-number argument (errors as an argument error when index is given)."""
    try:
        return to_int(as_num(value))
    except ConversionError as exc:
        if index is None:
            raise CallError(f"{prefix}{exc}") from None
        raise ArgError(index, f"{prefix}{exc}") from None


def string_fn(name: str, impl: Callable[[list[Value]], Value], pname: str = "str") -> Function:
    """A function of one string."""
    return define(name, [Param(pname, STRING)], impl)
