"""Collection functions over lists, tuples, maps and objects (cty's stdlib and buildx's
``indexof``)."""

from __future__ import annotations

from decimal import Decimal

from rocm_bake.model.hcl.bigfloat import arithmetic, is_integral
from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_num,
    as_seq,
    as_str,
    define,
    int_arg,
    kind_name,
    to_int,
)
from rocm_bake.model.hcl.types import (
    LIST_ANY,
    LIST_STRING,
    NUMBER,
    STRING,
    convert,
    cty_equal,
    element_type,
    type_of,
    unify,
)
from rocm_bake.model.hcl.values import (
    ConversionError,
    ListValue,
    MapValue,
    SetValue,
    Value,
    is_nil,
)


def _length(args: list[Value]) -> Value:
    collection = args[0]
    if not isinstance(collection, list | MapValue):
        raise CallError("collection must be a list, a map or a tuple")
    return Decimal(len(collection))


def _element(args: list[Value]) -> Value:
    seq, index = args[0], as_num(args[1])
    if index < 0:
        raise CallError("cannot use element function with a negative index")
    if not isinstance(seq, list) or isinstance(seq, SetValue):
        raise CallError(f"cannot read elements from {kind_name(seq)}")
    position = int_arg(index, prefix="invalid index: ")
    if not seq:
        raise CallError("cannot use element function with an empty list")
    return seq[position % len(seq)]


def _index(args: list[Value]) -> Value:
    collection, key = args
    if isinstance(collection, MapValue):
        if not isinstance(key, str):
            raise CallError("key for map must be string")
        if key not in collection:
            raise CallError("invalid index")
        return collection[key]
    if not isinstance(collection, list) or isinstance(collection, SetValue):
        raise CallError("collection must be a list, a map or a tuple")
    listed = isinstance(collection, ListValue)
    if not isinstance(key, Decimal):
        raise CallError(f"key for {'list' if listed else 'tuple'} must be number")
    try:
        position = to_int(key)
    except ConversionError as exc:
        if listed:
            raise CallError("invalid index") from None
        raise CallError(f"invalid key for tuple: {exc}") from None
    if not 0 <= position < len(collection):
        if listed:
            raise CallError("invalid index")
        raise CallError(f"key must be between 0 and {len(collection)} inclusive")
    return collection[position]


def _hasindex(args: list[Value]) -> Value:
    collection, key = args
    if isinstance(collection, MapValue):
        return isinstance(key, str) and key in collection
    if not isinstance(collection, list) or isinstance(collection, SetValue):
        raise CallError("collection must be a list, a map or a tuple")
    if not isinstance(key, Decimal) or not is_integral(key):
        return False
    return 0 <= int(key) < len(collection)


def _contains(args: list[Value]) -> Value:
    seq, value = args
    if not isinstance(seq, list):
        raise CallError("argument must be list, tuple, or set")
    return any(cty_equal(value, item) for item in seq)


def _distinct(args: list[Value]) -> Value:
    out: list[Value] = []
    for item in as_seq(args[0]):
        if not any(cty_equal(item, seen) for seen in out):
            out.append(item)
    return ListValue(out)


def _chunklist(args: list[Value]) -> Value:
    items = as_seq(args[0])
    if not items:
        return ListValue([])
    size = int_arg(args[1], prefix="invalid size: ")
    if size < 0:
        raise CallError("the size argument must be positive")
    if size == 0:
        return ListValue([ListValue(items)])
    return ListValue(ListValue(items[i : i + size]) for i in range(0, len(items), size))


def _flatten_into(out: list[Value], seq: list[Value]) -> None:
    for item in seq:
        if isinstance(item, list):
            _flatten_into(out, item)
        else:
            out.append(item)


def _flatten(args: list[Value]) -> Value:
    seq = args[0]
    if not isinstance(seq, list):
        raise CallError("can only flatten lists, sets and tuples")
    out: list[Value] = []
    _flatten_into(out, seq)
    return out


def _concat(args: list[Value]) -> Value:
    if not args:
        raise CallError("at least one argument is required")
    if all(isinstance(a, ListValue) and not isinstance(a, SetValue) for a in args):
        unified = unify([type_of(a) for a in args])
        if unified is not None:
            try:
                return ListValue(x for a in args for x in as_seq(convert(a, unified)))
            except ConversionError as exc:
                raise CallError(str(exc)) from None
    out: list[Value] = []
    for index, seq in enumerate(args):
        if not isinstance(seq, list) or isinstance(seq, SetValue):
            raise ArgError(index, f"all arguments must be lists or tuples; got {kind_name(seq)}")
        out.extend(seq)
    return out


def _coalesce(args: list[Value]) -> Value:
    unified = unify([type_of(a) for a in args])
    # A NilVal has no type: it unifies only when a null (dynamic) argument makes all dynamic.
    nil_clash = any(is_nil(a) for a in args) and all(a is not None for a in args)
    if unified is None or nil_clash:
        raise CallError("all arguments must have the same type")
    for arg in args:
        if arg is not None and not is_nil(arg):
            try:
                return convert(arg, unified)
            except ConversionError as exc:
                raise CallError(str(exc)) from None
    raise CallError("no non-null arguments")


def _coalescelist(args: list[Value]) -> Value:
    if not args:
        raise CallError("at least one argument is required")
    if any(not isinstance(a, list) or isinstance(a, SetValue) for a in args):
        raise CallError("coalescelist arguments must be lists or tuples")
    for arg in args:
        if as_seq(arg):
            return arg
    raise CallError("no non-null arguments")


def _compact(args: list[Value]) -> Value:
    return ListValue(item for item in as_seq(args[0]) if item is not None and item != "")


def _keys(args: list[Value]) -> Value:
    mapping = args[0]
    if not isinstance(mapping, dict):
        raise ArgError(0, "must have map or object type")
    keys: list[Value] = [*sorted(mapping)]
    return ListValue(keys) if isinstance(mapping, MapValue) else keys


def _values(args: list[Value]) -> Value:
    mapping = args[0]
    if not isinstance(mapping, dict):
        raise CallError("values() requires a map as the first argument")
    values = [mapping[k] for k in sorted(mapping)]
    return ListValue(values) if isinstance(mapping, MapValue) else values


def _lookup(args: list[Value]) -> Value:
    mapping, key, default = args[0], as_str(args[1]), args[2]
    if isinstance(mapping, MapValue):
        element = element_type(list(mapping.values()))
        try:
            converted = convert(default, element)
        except ConversionError:
            raise ArgError(
                2, "the default value must have the same type as the map elements"
            ) from None
        return mapping.get(key, converted)
    if not isinstance(mapping, dict):
        raise ArgError(0, "lookup() requires a map as the first argument")
    return mapping.get(key, default)


def _merge(args: list[Value]) -> Value:
    present = [a for a in args if a is not None]
    for arg in args:
        if arg is not None and not isinstance(arg, dict):
            raise CallError(f'arguments must be maps or objects, got "{kind_name(arg)}"')
    out: dict[str, Value] = {}
    for arg in present:
        assert isinstance(arg, dict)
        out.update(arg)
    types = [type_of(a) for a in args]
    if args and present and all(t == types[0] for t in types) and types[0].name == "map":
        return MapValue(out)
    return out


def _reverselist(args: list[Value]) -> Value:
    seq = args[0]
    if not isinstance(seq, list):
        raise ArgError(0, f"can only reverse list or tuple values, not {kind_name(seq)}")
    if isinstance(seq, ListValue | SetValue):
        return ListValue(reversed(seq))
    return list(reversed(seq))


def _slice(args: list[Value]) -> Value:
    seq = args[0]
    if isinstance(seq, SetValue):
        raise ArgError(
            0,
            "cannot slice a set, because its elements do not have indices; explicitly convert "
            "to a list if the ordering of the result is not important",
        )
    if not isinstance(seq, list):
        raise ArgError(0, "must be a list or tuple value")
    start = int_arg(args[1], 1, "invalid start index: ")
    if start < 0:
        raise ArgError(1, "start index must not be less than zero")
    if start > len(seq):
        raise ArgError(1, "start index must not be greater than the length of the list")
    end = int_arg(args[2], 2, "invalid end index: ")
    if end < 0:
        raise ArgError(2, "end index must not be less than zero")
    if end > len(seq):
        raise ArgError(2, "end index must not be greater than the length of the list")
    if start > end:
        raise ArgError(1, "start index must not be greater than end index")
    part = seq[start:end]
    return ListValue(part) if isinstance(seq, ListValue) else part


def _zipmap(args: list[Value]) -> Value:
    keys, values = as_seq(args[0]), args[1]
    if not isinstance(values, list) or isinstance(values, SetValue):
        raise CallError("values argument must be a list or tuple value")
    if len(keys) != len(values):
        raise CallError(
            f"number of keys ({len(keys)}) does not match number of values ({len(values)})"
        )
    out: dict[str, Value] = {}
    for index, (key, value) in enumerate(zip(keys, values, strict=True)):
        if key is None:
            raise CallError(f"keys list has null value at index {index}")
        out[as_str(key)] = value
    return MapValue(out) if isinstance(values, ListValue) else out


def _range(args: list[Value]) -> Value:
    numbers = [as_num(a) for a in args]
    one, zero = Decimal(1), Decimal(0)
    if len(numbers) == 1:
        start, end = zero, numbers[0]
        step = -one if end < 0 else one
    elif len(numbers) == 2:
        start, end = numbers
        step = -one if end < start else one
    elif len(numbers) == 3:
        start, end, step = numbers
    else:
        raise CallError("must have one, two, or three arguments")
    down = step < 0
    if down and end > start:
        raise ArgError(1, "end must be less than start when step is negative")
    if not down and end < start:
        raise ArgError(1, "end must be greater than start when step is positive")
    values: list[Value] = []
    current = start
    while (current > end) if down else (current < end):
        if len(values) >= 1024:
            raise CallError(
                "more than 1024 values were generated; either decrease the difference between "
                "start and end or use a smaller step"
            )
        values.append(current)
        current = arithmetic("+", current, step)
    return ListValue(values)


def _indexof(args: list[Value]) -> Value:
    seq, value = args
    if not isinstance(seq, list) or isinstance(seq, SetValue):
        raise CallError("argument must be a list or tuple")
    if not seq:
        raise CallError("cannot search an empty list")
    for position, item in enumerate(seq):
        if cty_equal(item, value):
            return Decimal(position)
    raise CallError("item not found")


TABLE: dict[str, Function] = {
    "chunklist": define("chunklist", [Param("list", LIST_ANY), Param("size", NUMBER)], _chunklist),
    "coalesce": define("coalesce", [], _coalesce, Param("vals", allow_null=True)),
    "coalescelist": define("coalescelist", [], _coalescelist, Param("vals", allow_null=True)),
    "compact": define("compact", [Param("list", LIST_STRING)], _compact),
    "concat": define("concat", [], _concat, Param("seqs")),
    "contains": define("contains", [Param("list"), Param("value")], _contains),
    "distinct": define("distinct", [Param("list", LIST_ANY)], _distinct),
    "element": define("element", [Param("list"), Param("index", NUMBER)], _element),
    "flatten": define("flatten", [Param("list")], _flatten),
    "hasindex": define("hasindex", [Param("collection"), Param("key")], _hasindex),
    "index": define("index", [Param("collection"), Param("key")], _index),
    "indexof": define("indexof", [Param("list"), Param("value")], _indexof),
    "keys": define("keys", [Param("inputMap")], _keys),
    "length": define("length", [Param("collection")], _length),
    "lookup": define(
        "lookup", [Param("inputMap"), Param("key", STRING), Param("default")], _lookup
    ),
    "merge": define("merge", [], _merge, Param("maps", allow_null=True)),
    "range": define("range", [], _range, Param("params", NUMBER)),
    "reverselist": define("reverselist", [Param("list")], _reverselist),
    "slice": define(
        "slice",
        [Param("list"), Param("start_index", NUMBER), Param("end_index", NUMBER)],
        _slice,
    ),
    "values": define("values", [Param("values")], _values),
    "zipmap": define("zipmap", [Param("keys", LIST_STRING), Param("values")], _zipmap),
}
