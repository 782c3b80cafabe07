"""Encodings, hashes and identifiers: JSON, CSV, base64, URL encoding, digests, UUIDs (and
the bytes functions buildx lists but cannot call)."""

from __future__ import annotations

import base64
import binascii
import json
import urllib.parse
from collections.abc import Callable, Iterator
from decimal import Decimal

from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_str,
    define,
    string_fn,
)
from rocm_bake.model.hcl.types import NUMBER, STRING
from rocm_bake.model.hcl.values import ListValue, Value, go_quote, go_quote_rune, to_json


def _check_finite(value: Value) -> None:
    if isinstance(value, Decimal) and value.is_infinite():
        raise CallError("cannot serialize infinity as JSON")
    if isinstance(value, list):
        for item in value:
            _check_finite(item)
    elif isinstance(value, dict):
        for item in value.values():
            _check_finite(item)


def json_text(value: Value) -> str:
    """jsonencode's text of a value (infinities refused, as cty does)."""
    _check_finite(value)
    return to_json(value)


def _jsonencode(args: list[Value]) -> Value:
    return json_text(args[0])


def _reject_constant(name: str) -> Value:
    raise ValueError(f"invalid character {go_quote_rune(name[0])} looking for beginning of value")


def _jsondecode(args: list[Value]) -> Value:
    text = as_str(args[0])
    try:
        data = json.loads(
            text, parse_float=Decimal, parse_int=Decimal, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as exc:
        raise CallError(_json_error(exc)) from None
    return _from_decoded(data)


_JSON_CONTEXTS = {
    "Expecting ':' delimiter": "after object key",
    "Expecting property name enclosed in double quotes": (
        "looking for beginning of object key string"
    ),
    "Expecting value": "looking for beginning of value",
    "Invalid control character at": "in string literal",
}


def _json_error(exc: json.JSONDecodeError) -> str:
    """Go's encoding/json wording for a decoding error Python's json module reported."""
    if exc.msg == "Extra data":
        return "extraneous data after JSON object"
    doc, pos = exc.doc, exc.pos
    if exc.msg.startswith("Unterminated string"):
        return "unexpected EOF"
    if pos >= len(doc) or not doc[pos:].strip(" \t\r\n"):
        return "EOF"
    rest = doc[pos:]
    if exc.msg == "Expecting value" and any(
        word.startswith(rest) for word in ("null", "true", "false")
    ):
        return "unexpected EOF"
    char = go_quote_rune(rest[0])
    if exc.msg == "Expecting ',' delimiter":
        inside = _json_container(doc[:pos])
        where = "after object key:value pair" if inside == "{" else "after array element"
        return f"invalid character {char} {where}"
    if exc.msg.startswith("Invalid \\escape"):
        return f"invalid character {go_quote_rune(rest[1:2] or rest[0])} in string escape code"
    return (
        f"invalid character {char} {_JSON_CONTEXTS.get(exc.msg, 'looking for beginning of value')}"
    )


def _json_container(prefix: str) -> str:
    """The innermost open bracket of a JSON prefix (outside strings)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append(char)
        elif char in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def _from_decoded(data: object) -> Value:
    if data is None or isinstance(data, bool | str | Decimal):
        return data
    if isinstance(data, list):
        return [_from_decoded(v) for v in data]
    if isinstance(data, dict):
        return {str(k): _from_decoded(v) for k, v in data.items()}
    raise CallError(f"unsupported JSON value {data!r}")


def _csv_records(text: str) -> Iterator[tuple[int, list[str]]]:
    """Go's encoding/csv reader (comma ``,``, strict quotes): (line number, fields)."""
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        line_number = index + 1
        line = lines[index]
        index += 1
        if line in ("\n", "\r\n", "\r"):
            continue
        fields: list[str] = []
        rest = _strip_newline(line)
        while True:
            if not rest.startswith('"'):
                cut = rest.find(",")
                field = rest if cut < 0 else rest[:cut]
                if '"' in field:
                    raise CallError(
                        f'CSV parse error on line {line_number}: bare " in non-quoted-field'
                    )
                fields.append(field)
                if cut < 0:
                    break
                rest = rest[cut + 1 :]
                continue
            field, rest, index, done = _csv_quoted(rest[1:], lines, index, line_number)
            fields.append(field)
            if done:
                break
        yield line_number, fields


def _strip_newline(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    return line.rstrip("\n").rstrip("\r") if line.endswith(("\n", "\r")) else line


def _csv_quoted(
    rest: str, lines: list[str], index: int, line_number: int
) -> tuple[str, str, int, bool]:
    """A quoted field: (field, what follows it, next line index, record ended)."""
    parts: list[str] = []
    while True:
        quote = rest.find('"')
        if quote >= 0:
            parts.append(rest[:quote])
            rest = rest[quote + 1 :]
            if rest.startswith('"'):
                parts.append('"')
                rest = rest[1:]
            elif rest.startswith(","):
                return "".join(parts), rest[1:], index, False
            elif rest == "":
                return "".join(parts), "", index, True
            else:
                raise CallError(
                    f'CSV parse error on line {line_number}: extraneous or missing " in '
                    "quoted-field"
                )
        elif index < len(lines):
            parts.append(rest + "\n")
            rest = _strip_newline(lines[index])
            index += 1
        else:
            raise CallError(
                f'CSV parse error on line {line_number}: extraneous or missing " in quoted-field'
            )


def _csvdecode(args: list[Value]) -> Value:
    records = _csv_records(as_str(args[0]))
    try:
        _, headers = next(records)
    except StopIteration:
        raise CallError("missing header line") from None
    seen: set[str] = set()
    for name in headers:
        if name in seen:
            raise CallError(f"duplicate column name {go_quote(name)}")
        seen.add(name)
    rows: list[Value] = []
    for line_number, fields in records:
        if len(fields) != len(headers):
            raise CallError(f"CSV parse error on line {line_number}: wrong number of fields")
        row: dict[str, Value] = dict(zip(headers, fields, strict=True))
        rows.append(row)
    return ListValue(rows)


def _base64encode(args: list[Value]) -> Value:
    return base64.b64encode(as_str(args[0]).encode()).decode()


def _base64decode(args: list[Value]) -> Value:
    text = as_str(args[0])
    try:
        data = base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        raise CallError(f"failed to decode base64 data '{text}'") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CallError(
            "the result of decoding the the provided string is not valid UTF-8"
        ) from None


def _urlencode(args: list[Value]) -> Value:
    return urllib.parse.quote_plus(as_str(args[0]), safe="")


def _digest(algorithm: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        import hashlib  # noqa: PLC0415  # OpenSSL's loading, only for a file that hashes

        return hashlib.new(algorithm, as_str(args[0]).encode()).hexdigest()

    return impl


def _uuidv4(args: list[Value]) -> Value:
    import uuid  # noqa: PLC0415  # uuid (and platform), only for a file that makes UUIDs

    return str(uuid.uuid4())


def _uuidv5(args: list[Value]) -> Value:
    import uuid  # noqa: PLC0415  # as above

    namespace, name = as_str(args[0]), as_str(args[1])
    namespaces = {"dns": uuid.NAMESPACE_DNS, "url": uuid.NAMESPACE_URL,
                  "oid": uuid.NAMESPACE_OID, "x500": uuid.NAMESPACE_X500}
    space = namespaces.get(namespace)
    if space is None:
        try:
            space = uuid.UUID(namespace)
        except ValueError:
            reason = (
                f"invalid UUID length: {len(namespace)}"
                if len(namespace) not in (32, 36, 38, 45)
                else "invalid UUID format"
            )
            raise CallError(f"uuidv5() doesn't support namespace {namespace} ({reason})") from None
    return str(uuid.uuid5(space, name))


def _bytes_required(args: list[Value]) -> Value:
    raise ArgError(0, "bytes required")


TABLE: dict[str, Function] = {
    "base64decode": string_fn("base64decode", _base64decode),
    "base64encode": string_fn("base64encode", _base64encode),
    "byteslen": define("byteslen", [Param("buf")], _bytes_required),
    "bytesslice": define(
        "bytesslice",
        [Param("buf"), Param("offset", NUMBER), Param("length", NUMBER)],
        _bytes_required,
    ),
    "csvdecode": string_fn("csvdecode", _csvdecode),
    "jsondecode": string_fn("jsondecode", _jsondecode),
    "jsonencode": define("jsonencode", [Param("val", allow_null=True)], _jsonencode),
    "md5": string_fn("md5", _digest("md5")),
    "sha1": string_fn("sha1", _digest("sha1")),
    "sha256": string_fn("sha256", _digest("sha256")),
    "sha512": string_fn("sha512", _digest("sha512")),
    "urlencode": string_fn("urlencode", _urlencode),
    "uuidv4": define("uuidv4", [], _uuidv4),
    "uuidv5": define("uuidv5", [Param("namespace", STRING), Param("name", STRING)], _uuidv5),
}
