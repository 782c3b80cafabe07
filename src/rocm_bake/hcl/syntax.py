"""Parse HCL text into python-hcl2's typed tree, turning parser failures into file:line errors."""

from __future__ import annotations

import re
from typing import Any

import hcl2
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from rocm_bake.errors import HCLError
from rocm_bake.hcl import parsecache

Node = Any  # a python-hcl2 rule or token (the library ships no precise types)


def parse(text: str, filename: str) -> Node:
    """The typed tree (``StartRule``) of one HCL file (from the parse cache when it has it)."""
    _check_supported(text, filename)
    cached = parsecache.load(text)
    if cached is not None:
        return cached
    tree = _parse(text, filename)
    parsecache.store(text, tree)
    return tree


_TRIPLE_ESCAPE = re.compile(r"\$\$\$\{|%%%\{")


def _check_supported(text: str, filename: str) -> None:
    """Go's HCL scans ``$$${`` as ``$`` then the escape ``$${``; python-hcl2 scans it as
    ``$$`` then an interpolation. Rather than answer differently, the model refuses it."""
    match = _TRIPLE_ESCAPE.search(text)
    if match is not None:
        line = text.count("\n", 0, match.start()) + 1
        raise HCLError(f"{match.group(0)!r} (an escape right after a literal $ or %) is not "
                       "supported by the model's parser yet: write it another way",
                       filename, line)


#: ``$${`` or ``%%{`` whose string (or heredoc line) has no ``}`` after it: Go's HCL takes it
#: as literal text; python-hcl2's escape token runs on to the next ``}``, past the string.
_UNCLOSED_ESCAPE = re.compile(r'(?:\$\$|%%)\{[^}"\n]*(?:"|$)', re.MULTILINE)


def _parse(text: str, filename: str) -> Node:
    try:
        return _parse_or_fail(text, filename)
    except HCLError:
        match = _UNCLOSED_ESCAPE.search(text)
        if match is None:
            raise
        line = text.count("\n", 0, match.start()) + 1
        raise HCLError(f"{match.group(0)[:3]!r} with no closing }} in its string is not "
                       "supported by the model's parser yet: write it another way",
                       filename, line) from None


def _parse_or_fail(text: str, filename: str) -> Node:
    try:
        return hcl2.api.parses(text, discard_comments=True)
    except UnexpectedCharacters as exc:
        raise HCLError(f"syntax error: unexpected character {_char_at(text, exc.pos_in_stream)!r}",
                       filename, exc.line, exc.column) from None
    except UnexpectedToken as exc:
        token = exc.token
        what = "end of file" if token.type == "$END" else repr(_first_line(str(token)))
        line, column = _token_position(text, exc)
        if _nested_unary(text, line, column):
            raise HCLError("nested unary operators (such as !!x or -(-x) written --x) are not "
                           "supported by the model's parser yet: add parentheses, e.g. !(!x)",
                           filename, line, column) from None
        raise HCLError(f"syntax error: unexpected {what}", filename, line, column) from None
    except UnexpectedEOF:
        raise HCLError("syntax error: unexpected end of file", filename,
                       text.count("\n") + 1) from None
    except (LarkError, RuntimeError, ValueError) as exc:
        raise HCLError(f"syntax error: {exc}", filename) from None


def _nested_unary(text: str, line: int | None, column: int | None) -> bool:
    """Whether a parse error sits on a unary operator right after another one (``!!x``),
    which Go's HCL accepts and python-hcl2's grammar does not."""
    if line is None or column is None:
        return False
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return False
    before = lines[line - 1][: column - 1].rstrip()
    here = lines[line - 1][column - 1:]
    return here[:1] in ("!", "-") and before[-1:] in ("!", "-")


def _first_line(text: str) -> str:
    stripped = text.strip()
    return (stripped.splitlines()[0] if stripped else text)[:40]


def _char_at(text: str, pos: int | None) -> str:
    if pos is None or pos >= len(text):
        return ""
    return text[pos]


def _token_position(text: str, exc: UnexpectedToken) -> tuple[int | None, int | None]:
    line = getattr(exc.token, "line", None) or exc.line
    column = getattr(exc.token, "column", None) or exc.column
    if line is None or line < 1:
        line = text.count("\n") + 1
    return line, column


def position(node: Node) -> tuple[int | None, int | None]:
    """The (line, column) where a rule starts, when the parser recorded it."""
    meta = getattr(node, "_meta", None)
    if meta is None or getattr(meta, "empty", True):
        return None, None
    return meta.line, meta.column


def end_position(node: Node) -> tuple[int | None, int | None]:
    meta = getattr(node, "_meta", None)
    if meta is None or getattr(meta, "empty", True):
        return None, None
    return meta.end_line, meta.end_column
