"""``regex``, ``regexall`` and ``regex_replace``: Go's matching and ``$name`` expansion."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from rocm_bake.model.hcl.functions.goregex import GoRegex, RegexSyntaxError, compile_go_regex
from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_str,
    define,
)
from rocm_bake.model.hcl.types import STRING
from rocm_bake.model.hcl.values import ListValue, Value


def _go_find_all(regex: GoRegex, text: str) -> Iterator[re.Match[str]]:
    """Go's allMatches: successive matches, no empty match right after a previous one."""
    pos, prev_end = 0, -1
    while pos <= len(text):
        match = regex.pattern.search(text, pos)
        if match is None:
            return
        accept = True
        if match.end() == pos:
            if match.start() == prev_end:
                accept = False
            pos += 1
        else:
            pos = match.end()
        prev_end = match.end()
        if accept:
            yield match


def _regex_for_pattern(pattern: str) -> GoRegex:
    try:
        regex = compile_go_regex(pattern)
    except RegexSyntaxError as exc:
        raise ArgError(0, f"invalid regexp pattern: {exc.code} in {exc.expr}") from None
    named = [n for n in regex.names if n]
    if named and len(named) != len(regex.names):
        raise ArgError(
            0, "invalid regexp pattern: cannot mix both named and unnamed capture groups"
        )
    return regex


def _regex_result(regex: GoRegex, match: re.Match[str]) -> Value:
    if not regex.names:
        return match.group(0)
    groups: list[Value] = [match.group(i + 1) for i in range(len(regex.names))]
    if regex.names[0] == "":
        return groups
    return {name: groups[i] for i, name in enumerate(regex.names)}


def _regex(args: list[Value]) -> Value:
    regex = _regex_for_pattern(as_str(args[0]))
    match = regex.pattern.search(as_str(args[1]))
    if match is None:
        raise CallError("pattern did not match any part of the given string")
    return _regex_result(regex, match)


def _regexall(args: list[Value]) -> Value:
    regex = _regex_for_pattern(as_str(args[0]))
    return ListValue(_regex_result(regex, m) for m in _go_find_all(regex, as_str(args[1])))


def _template_name(template: str) -> tuple[str, str] | None:
    """Go's regexp extract: the name after ``$`` and the rest of the template."""
    brace = template.startswith("{")
    body = template[1:] if brace else template
    size = 0
    for char in body:
        category = unicodedata.category(char)
        if not (category[0] == "L" or category == "Nd" or char == "_"):
            break
        size += 1
    if size == 0:
        return None
    name = body[:size]
    if brace:
        if size >= len(body) or body[size] != "}":
            return None
        size += 1
    return name, body[size:]


def _expand(regex: GoRegex, template: str, match: re.Match[str]) -> str:
    out: list[str] = []
    while "$" in template:
        before, template = template.split("$", 1)
        out.append(before)
        if template.startswith("$"):
            out.append("$")
            template = template[1:]
            continue
        found = _template_name(template)
        if found is None:
            out.append("$")
            continue
        name, template = found
        out.append(_group_text(regex, name, match))
    out.append(template)
    return "".join(out)


def _group_text(regex: GoRegex, name: str, match: re.Match[str]) -> str:
    number = -1
    if name.isascii() and name.isdigit() and not (name[0] == "0" and len(name) > 1):
        number = int(name)
    if number >= 0:
        if number <= len(regex.names):
            return match.group(number) or ""
        return ""
    for index, group_name in enumerate(regex.names, start=1):
        if group_name == name and match.start(index) >= 0:
            return match.group(index) or ""
    return ""


def _regex_replace(args: list[Value]) -> Value:
    text, pattern, template = as_str(args[0]), as_str(args[1]), as_str(args[2])
    try:
        regex = compile_go_regex(pattern)
    except RegexSyntaxError as exc:
        raise CallError(str(exc)) from None
    out: list[str] = []
    last = 0
    for match in _go_find_all(regex, text):
        out.append(text[last : match.start()])
        out.append(_expand(regex, template, match))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


_PATTERN_STRING = [Param("pattern", STRING), Param("string", STRING)]

TABLE: dict[str, Function] = {
    "regex": define("regex", _PATTERN_STRING, _regex),
    "regex_replace": define(
        "regex_replace",
        [Param("str", STRING), Param("substr", STRING), Param("replace", STRING)],
        _regex_replace,
    ),
    "regexall": define("regexall", _PATTERN_STRING, _regexall),
}
