"""Parse HCL text with python-hcl2 into the model's tree (``tree``), turning parser failures
into file:line errors.

python-hcl2 and lark are imported only when a text must really be parsed: a tree the parse
cache has needs neither.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rocm_bake.core.errors import HCLError
from rocm_bake.model.hcl import parsecache
from rocm_bake.model.hcl.tree import PARTS, Meta, Rule, Token, make_rule

if TYPE_CHECKING:
    from lark.exceptions import UnexpectedToken


def parse(text: str, filename: str) -> Rule:
    """The tree (``StartRule``) of one HCL file (from the parse cache when it has it)."""
    _check_supported(text, filename)
    cached = parsecache.load(text)
    if cached is not None:
        return cached
    tree = _convert(_parse(text, filename), filename)
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


def _parse(text: str, filename: str) -> Any:
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


def _parse_or_fail(text: str, filename: str) -> Any:
    import hcl2.api  # noqa: PLC0415  # only on a cache miss (see the module's docstring)
    from lark.exceptions import (  # noqa: PLC0415
        LarkError,
        UnexpectedCharacters,
        UnexpectedEOF,
        UnexpectedToken,
    )

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
        if _second_single_line_argument(text, line, column):
            raise HCLError("Invalid single-argument block definition; a single-line block can "
                           "have only one argument: write one argument per line",
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


#: A line that opens a block and starts an argument in it: ``target "t" { a = ...``.
_OPENS_SINGLE_LINE_BLOCK = re.compile(
    r'\s*[A-Za-z_][\w-]*(\s+("[^"\n]*"|[A-Za-z_][\w-]*))*\s*\{\s*[A-Za-z_][\w-]*\s*=')


def _second_single_line_argument(text: str, line: int | None, column: int | None) -> bool:
    """Whether a parse error is the comma before a second argument of a single-line block
    (``target "t" { a = 1, b = 2 }``), which Go's HCL names and python-hcl2 does not."""
    if line is None or column is None:
        return False
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return False
    current = lines[line - 1]
    return (current[column - 1:column] == ","
            and _OPENS_SINGLE_LINE_BLOCK.match(current[: column - 1]) is not None)


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


#: Parts that are no python-hcl2 property: the converter makes them.
_MADE_HERE = ("labels", "template", "template_error")


class _Converter:
    """python-hcl2's tree -> the model's tree; a node reached twice (as a child and as a named
    part) becomes one node."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.done: dict[int, Rule | Token] = {}

    def node(self, node: Any) -> Rule | Token:
        known = self.done.get(id(node))
        if known is not None:
            return known
        made = self.rule(node) if hasattr(node, "_meta") else self.token(node)
        self.done[id(node)] = made
        return made

    def token(self, token: Any) -> Token:
        value = token.value
        plain = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        return Token(type(token).__name__, str(value) if plain is None else plain)

    def rule(self, rule: Any) -> Rule:
        kind = type(rule).__name__
        children = [self.node(child) for child in rule.children
                    if child is not None and hasattr(child, "_meta")]
        parts = {name: self.part(getattr(rule, name)) for name in PARTS.get(kind, ())
                 if name not in _MADE_HERE}
        if kind == "BlockRule":  # every child before the opening brace: the type and labels
            before = rule.children[: rule.children.index(rule.body) - 1]
            parts["labels"] = [self.node(c) for c in before if c is not None]
        if kind.startswith("Heredoc"):
            parts.update(self.heredoc(rule, trim=kind == "HeredocTrimTemplateRule"))
        return make_rule(kind, _meta(rule._meta), children, parts)  # type: ignore[arg-type]

    def part(self, value: Any) -> Any:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            return str(value)  # a lark Token is a str: keep its text only
        if isinstance(value, list):
            return [self.part(item) for item in value]
        return self.node(value)

    def heredoc(self, rule: Any, trim: bool) -> dict[str, Any]:
        """A heredoc's body is a template: parsed here, as a quoted string, so evaluating it
        parses nothing; a body that does not parse fails when (and if) it is evaluated."""
        body, _ = heredoc_body(str(rule.heredoc.value), trim)
        text = f"{_TEMPLATE_PREFIX}{_quote_template(body)}\"\n"
        try:
            _check_supported(text, self.filename)
            tree = _parse(text, self.filename)
        except HCLError as exc:
            return {"template": None, "template_error": (exc.message, exc.file, exc.line,
                                                         exc.column)}
        string = _Converter(self.filename).node(tree.body.children[0].expression.expression)
        return {"template": string, "template_error": None}


def _convert(tree: Any, filename: str) -> Rule:
    converted = _Converter(filename).node(tree)
    assert isinstance(converted, Rule)
    return converted


def _meta(meta: Any) -> Meta | None:
    if meta is None or getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos,
            meta.end_pos)


#: What a heredoc's body is parsed inside of: ``x = "BODY"``.
_TEMPLATE_PREFIX = 'x = "'


def heredoc_body(raw: str, trim: bool) -> tuple[str, int]:
    """A heredoc's body (the lines between its markers) and the indent ``<<-`` cut from it."""
    body = raw.split("\n", 1)[1].rsplit("\n", 2)[0] + "\n" if raw.count("\n") > 1 else ""
    if not trim:
        return body, 0
    lines = body.split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)  # HCL's <<-: lines that are only blank are left as they are
    return "\n".join(line[cut:] if line.strip() else line for line in lines), cut


def heredoc_position(raw: str, trim: bool, column: int) -> tuple[int, int]:
    """Where a column of a heredoc's parsed template is in its body: (line within the body,
    counted from 0, and column), as Go's HCL, which parses the body in place, reports it."""
    body, cut = heredoc_body(raw, trim)
    origins = _quote_template_origins(body)
    index = min(max(column - len(_TEMPLATE_PREFIX) - 1, 0), len(origins) - 1) if origins else 0
    offset = origins[index] if origins else 0
    line = body.count("\n", 0, offset)
    return line, offset - (body.rfind("\n", 0, offset) + 1) + 1 + cut


def _quote_template(body: str) -> str:
    """Re-spell a heredoc body as the inside of a quoted string (escapes only in literals)."""
    return "".join(piece for piece, _ in _quoted_pieces(body))


def _quote_template_origins(body: str) -> list[int]:
    """For each character of ``_quote_template(body)``, the offset in ``body`` it comes from."""
    return [origin for piece, start in _quoted_pieces(body) for origin in
            ([start] * len(piece) if len(piece) <= 2 else range(start, start + len(piece)))]


_QUOTED = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}


def _quoted_pieces(body: str) -> list[tuple[str, int]]:
    """``_quote_template``'s pieces, each with the body offset it starts at."""
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(body):
        if body.startswith(("$${", "%%{"), i):
            out.append((body[i:i + 3], i))
            i += 3
        elif body.startswith(("${", "%{"), i):
            end = _closing_brace(body, i + 2)
            out.append((body[i:end + 1].replace("\n", " "), i))
            i = end + 1
        else:
            out.append((_QUOTED.get(body[i], body[i]), i))
            i += 1
    return out


def _closing_brace(text: str, start: int) -> int:
    depth, i, quoted = 1, start, False
    while i < len(text):
        char = text[i]
        if quoted:
            if char == "\\":
                i += 1
            elif char == '"':
                quoted = False
            elif text.startswith(("${", "%{"), i) and not text.startswith(("$${", "%%{"), i - 1):
                i = _closing_brace(text, i + 2)
        elif char == '"':
            quoted = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text) - 1
