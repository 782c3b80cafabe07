"""String functions (cty's stdlib), with Go's case mapping and notion of space."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from decimal import Decimal

from rocm_bake.model.hcl.functions.graphemes import graphemes
from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_seq,
    as_str,
    define,
    int_arg,
    string_fn,
)
from rocm_bake.model.hcl.types import LIST_STRING, NUMBER, STRING
from rocm_bake.model.hcl.values import ListValue, Value

_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _go_upper(text: str) -> str:
    """Go's strings.ToUpper: the simple (one rune to one rune) case mapping."""
    return "".join(_simple_case(c, str.upper) for c in text)


def _go_lower(text: str) -> str:
    return "".join("i" if c == "\u0130" else _simple_case(c, str.lower) for c in text)


def _simple_case(char: str, mapping: Callable[[str], str]) -> str:
    mapped = mapping(char)
    if len(mapped) == 1:
        return mapped
    titled = char.title()
    return titled if len(titled) == 1 and mapping is str.upper else char


def _go_title_rune(char: str) -> str:
    titled = char.title()
    if len(titled) == 1:
        return titled
    return _simple_case(char, str.upper)


def _title_separator(char: str) -> bool:
    """Go's strings.Title isSeparator."""
    if ord(char) <= 0x7F:
        return not (char.isascii() and (char.isalnum() or char == "_"))
    category = unicodedata.category(char)
    if category[0] == "L" or category == "Nd":
        return False
    return char in _GO_SPACE


def _go_title(text: str) -> str:
    out: list[str] = []
    previous = " "
    for char in text:
        out.append(_go_title_rune(char) if _title_separator(previous) else char)
        previous = char
    return "".join(out)


def _upper(args: list[Value]) -> Value:
    return _go_upper(as_str(args[0]))


def _lower(args: list[Value]) -> Value:
    return _go_lower(as_str(args[0]))


def _title(args: list[Value]) -> Value:
    return _go_title(as_str(args[0]))


def _reverse(args: list[Value]) -> Value:
    return "".join(reversed(graphemes(as_str(args[0]))))


def _strlen(args: list[Value]) -> Value:
    return Decimal(len(graphemes(as_str(args[0]))))


def _trimspace(args: list[Value]) -> Value:
    return as_str(args[0]).strip("".join(_GO_SPACE))


def _trim(args: list[Value]) -> Value:
    return as_str(args[0]).strip(as_str(args[1]))


def _trimprefix(args: list[Value]) -> Value:
    return as_str(args[0]).removeprefix(as_str(args[1]))


def _trimsuffix(args: list[Value]) -> Value:
    return as_str(args[0]).removesuffix(as_str(args[1]))


_TRAILING_NEWLINES = re.compile(r"(?:\r\n?|\n)*\Z")


def _chomp(args: list[Value]) -> Value:
    text = as_str(args[0])
    match = _TRAILING_NEWLINES.search(text)
    return text[: match.start()] if match else text


def _indent(args: list[Value]) -> Value:
    spaces = int_arg(args[0])
    if spaces < 0:
        raise CallError("panic in function implementation: strings: negative Repeat count")
    return as_str(args[1]).replace("\n", "\n" + " " * spaces)


def _replace(args: list[Value]) -> Value:
    return as_str(args[0]).replace(as_str(args[1]), as_str(args[2]))


def _split(args: list[Value]) -> Value:
    sep, text = as_str(args[0]), as_str(args[1])
    if sep == "":
        return ListValue(list(text))
    return ListValue(text.split(sep))


def _join(args: list[Value]) -> Value:
    sep, lists = as_str(args[0]), args[1:]
    if not lists:
        raise CallError("at least one list is required")
    items: list[str] = []
    for number, seq in enumerate(lists, start=1):
        for index, item in enumerate(as_seq(seq)):
            if item is None:
                where = (
                    f"element {index} of list {number}" if len(lists) > 1 else f"element {index}"
                )
                raise ArgError(number, f"{where} is null; cannot concatenate null values")
            items.append(as_str(item))
    return sep.join(items)


def _sort(args: list[Value]) -> Value:
    items = as_seq(args[0])
    for index, item in enumerate(items):
        if item is None:
            raise CallError(f"given list element {index} is null; a null string cannot be sorted")
    return ListValue(sorted(items, key=lambda s: as_str(s).encode()))


def _substr(args: list[Value]) -> Value:
    text = as_str(args[0])
    offset, length = int_arg(args[1]), int_arg(args[2])
    clusters = graphemes(text)
    if offset < 0:
        offset += len(clusters)
    elif length == 0:
        return ""
    if offset > 0:
        if offset > len(clusters):
            return ""
        clusters = clusters[offset:]
    if length <= 0:  # a zero length only gets here with a negative offset: cty takes the rest
        return "".join(clusters)
    return "".join(clusters[:length])


def _sanitize(args: list[Value]) -> Value:
    text = as_str(args[0])
    return "".join(c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in text)


TABLE: dict[str, Function] = {
    "chomp": string_fn("chomp", _chomp),
    "indent": define("indent", [Param("spaces", NUMBER), Param("str", STRING)], _indent),
    "join": define("join", [Param("separator", STRING)], _join, Param("lists", LIST_STRING)),
    "lower": string_fn("lower", _lower),
    "replace": define(
        "replace",
        [Param("str", STRING), Param("substr", STRING), Param("replace", STRING)],
        _replace,
    ),
    "reverse": string_fn("reverse", _reverse),
    "sanitize": string_fn("sanitize", _sanitize, "name"),
    "sort": define("sort", [Param("list", LIST_STRING)], _sort),
    "split": define("split", [Param("separator", STRING), Param("str", STRING)], _split),
    "strlen": string_fn("strlen", _strlen),
    "substr": define(
        "substr", [Param("str", STRING), Param("offset", NUMBER), Param("length", NUMBER)], _substr
    ),
    "title": string_fn("title", _title),
    "trim": define("trim", [Param("str", STRING), Param("cutset", STRING)], _trim),
    "trimprefix": define(
        "trimprefix", [Param("str", STRING), Param("prefix", STRING)], _trimprefix
    ),
    "trimspace": string_fn("trimspace", _trimspace),
    "trimsuffix": define(
        "trimsuffix", [Param("str", STRING), Param("suffix", STRING)], _trimsuffix
    ),
    "upper": string_fn("upper", _upper),
}
