"""What a set of bake files declares, before anything is evaluated.

Files merge the way buildx merges them: a later ``variable``, ``function`` or top-level
attribute replaces an earlier one of the same name; ``target`` and ``group`` blocks are
kept in order (targets of the same name merge later, groups replace).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from rocm_bake.core.errors import HCLError
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.evaluate import Evaluator, FunctionTable, Scope
from rocm_bake.model.hcl.functions.params import FunctionError
from rocm_bake.model.hcl.syntax import parse
from rocm_bake.model.hcl.tree import Rule, end_position, position, start_position
from rocm_bake.model.hcl.typeexpr import type_constraint
from rocm_bake.model.hcl.types import Type
from rocm_bake.model.hcl.values import Value

BLOCK_TYPES = ("target", "group")

# The records below are NamedTuples: as immutable as frozen dataclasses, and made at import
# without generating code (six frozen dataclasses cost a bake file's load some 4 ms).


class Source(NamedTuple):
    """Where a declaration is written: its file and line."""

    file: str
    line: int | None = None
    column: int | None = None

    def error(self, message: str) -> HCLError:
        return HCLError(message, self.file, self.line, self.column)


class Validation(NamedTuple):
    condition: Rule
    error_message: Rule | None
    source: Source


class VariableDecl(NamedTuple):
    name: str
    source: Source
    #: Where buildx places an error in the variable's value: its body's opening brace (the
    #: argument, for a single-line block).
    body: Source
    default: Rule | None
    has_default: bool
    type: Type | None
    description: Rule | None
    validations: tuple[Validation, ...]


class AttributeDecl(NamedTuple):
    name: str
    expression: Rule
    source: Source

    def value_error(self, message: str) -> HCLError:
        """An error in the attribute's value, where buildx places it: at its expression."""
        line, column = start_position(self.expression)
        return HCLError(message, self.source.file, line or self.source.line,
                        column if line else self.source.column)


class FunctionDecl(NamedTuple):
    name: str
    params: tuple[str, ...]
    variadic: str | None
    result: Rule
    source: Source


class BlockDecl(NamedTuple):
    """A ``target`` or ``group`` block: its label and its attributes, unevaluated."""

    type: str
    label: str
    attributes: dict[str, AttributeDecl]
    source: Source
    #: Where its label is written (buildx's place for an invalid name).
    label_source: Source


@dataclass
class Declarations:
    warnings: list[HCLError] = field(default_factory=list)
    variables: dict[str, VariableDecl] = field(default_factory=dict)
    attributes: dict[str, AttributeDecl] = field(default_factory=dict)
    functions: dict[str, FunctionDecl] = field(default_factory=dict)
    blocks: list[BlockDecl] = field(default_factory=list)


BOM = "\ufeff"


def read(paths: list[Path]) -> Declarations:
    """Parse each file and merge what they declare, in order."""
    declared = Declarations()
    for path in paths:
        if path.suffix.lower() in (".json", ".yml", ".yaml"):
            raise HCLError("JSON and Compose bake files are not supported by the model (buildx "
                           "reads them; the model reads HCL only)", str(path))
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise HCLError(f"cannot read bake file: {exc.strerror}", str(path)) from None
        except UnicodeDecodeError:
            raise HCLError("bake file is not UTF-8 text", str(path)) from None
        text = text.removeprefix(BOM)   # buildx reads an HCL file past a UTF-8 byte order mark
        tree = parse(text, str(path))
        check_layout(tree.body, str(path), text)
        _read_file(tree, str(path), declared, text)
    return declared


def _source(node: Rule, filename: str) -> Source:
    line, column = position(node)
    return Source(filename, line, column)


def _read_file(tree: Rule, filename: str, declared: Declarations, text: str) -> None:
    for item in tree.body.children:
        kind = item.kind
        if kind == "AttributeRule":
            name = str(item.identifier.token.value)
            declared.attributes[name] = AttributeDecl(name, item.expression,
                                                      _source(item, filename))
        elif kind == "BlockRule":
            _read_block(item, filename, declared, text)


def _body_start(block: Rule, filename: str, text: str) -> Source:
    """Go HCL's ``MissingItemRange`` of a block's body: its opening brace, or its argument
    when the block is a single-line one."""
    items = _items(block.body)
    open_line = position(block)[0]
    if items and position(items[0])[0] == open_line:
        return _source(items[0], filename)
    assert block.meta is not None  # every block the parser made has its position
    body_meta = block.body.meta  # None for an empty body: its brace is the block's last
    brace = text.rfind("{", block.meta[4], body_meta[4] + 1 if body_meta else block.meta[5])
    return _at_offset(filename, text, brace)


def _column(text: str, offset: int) -> int:
    """The 1-based column (in characters) of an offset of ``text``."""
    return offset - text.rfind("\n", 0, offset)


def _labels(block: Rule, filename: str) -> tuple[str, list[str]]:
    words = []
    for label in block.labels:
        name = label.kind
        if name in ("IdentifierRule", "KeywordRule", "LiteralValueRule"):
            words.append(str(label.token.value))
        elif name == "StringRule":
            parts = label.string_parts
            if any(p.content.kind.endswith("Rule") for p in parts):
                raise _source(label, filename).error("block labels must be plain strings")
            words.append("".join(str(p.content.value) for p in parts))
    return words[0], words[1:]


def _read_block(block: Rule, filename: str, declared: Declarations, text: str) -> None:
    kind, labels = _labels(block, filename)
    source = _source(block, filename)
    if kind not in ("variable", "function", *BLOCK_TYPES):
        declared.warnings.append(source.error(
            f"unknown block type {kind!r} is ignored (as buildx ignores it)"))
        return
    if len(labels) != 1:
        if labels:
            raise _source(block.labels[2], filename).error(
                f"Extraneous label for {kind}; Only 1 labels (name) are expected for {kind} "
                "blocks.")
        raise _body_start(block, filename, text).error(
            f"Missing name for {kind}; All {kind} blocks must have 1 labels (name).")
    label = labels[0]
    attributes, nested = _body(block.body, filename)
    if kind != "variable":
        nested_ignored, nested = nested, []
    else:
        nested_ignored = [(b, src) for b, src in nested if _labels(b, filename)[0] != "validation"]
        nested = [(b, src) for b, src in nested if _labels(b, filename)[0] == "validation"]
    for item, item_source in nested_ignored:
        declared.warnings.append(item_source.error(
            f"block {_labels(item, filename)[0]!r} inside {kind} {label!r} is ignored "
            "(as buildx ignores it)"))
    if kind == "variable":
        declared.variables[label] = _variable(label, attributes, nested,
                                              (source, _body_start(block, filename, text)),
                                              filename, declared.warnings)
    elif kind == "function":
        declared.functions[label] = _function(label, attributes, source, filename)
    else:
        declared.blocks.append(BlockDecl(kind, label, attributes, source,
                                         _source(block.labels[1], filename)))


def _items(body: Rule) -> list[Rule]:
    return [c for c in body.children if c.kind in ("AttributeRule", "BlockRule")]


def _last_line(node: Rule, text: str) -> int:
    """The line of an item's last non-blank character (python-hcl2 lets some rules swallow
    the newlines that follow them)."""
    assert node.meta is not None  # every item the parser made has its position
    line, _, _, _, start, end = node.meta
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return int(line) + text.count("\n", start, end)


def check_layout(body: Rule, filename: str, text: str, block: Rule | None = None) -> None:
    """Go's HCL layout rules, which python-hcl2 does not enforce: one item per line, and a
    block that opens with an argument on its own line is a single-line block."""
    items = _items(body)
    for before, after in itertools.pairwise(items):
        if position(after)[0] == _last_line(before, text):
            what = "argument" if before.kind == "AttributeRule" else "block definition"
            raise _source(after, filename).error(
                f"Missing newline after {what}; each one must end with a newline")
    if block is not None and items:
        _check_block_braces(block, items, filename, text)
    for item in items:
        if item.kind == "BlockRule":
            check_layout(item.body, filename, text, item)


def _check_block_braces(block: Rule, items: list[Rule], filename: str, text: str) -> None:
    open_line, _ = position(block)
    close_line, _ = end_position(block)
    first, last = items[0], items[-1]
    if position(first)[0] == open_line:
        if len(items) > 1 or first.kind != "AttributeRule" or close_line != open_line:
            raise _at_offset(filename, text, _content_end(first, text)).error(
                "Invalid single-argument block definition; an argument on the same line as "
                "its block's opening brace must be its only argument, closed on the same line")
    elif _last_line(last, text) == close_line:
        what = "argument" if last.kind == "AttributeRule" else "block definition"
        assert block.meta is not None  # every block the parser made has its position
        raise _at_offset(filename, text, text.rindex("}", 0, block.meta[5])).error(
            f"Missing newline after {what}; the closing brace must be on its own line")


def _content_end(node: Rule, text: str) -> int:
    """The offset just past an item's last non-blank character."""
    assert node.meta is not None  # every item the parser made has its position
    end = node.meta[5]
    while end > node.meta[4] and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _at_offset(filename: str, text: str, offset: int) -> Source:
    return Source(filename, text.count("\n", 0, offset) + 1, _column(text, offset))


def _body(body: Rule, filename: str) -> tuple[dict[str, AttributeDecl], list[tuple[Rule, Source]]]:
    attributes: dict[str, AttributeDecl] = {}
    nested: list[tuple[Rule, Source]] = []
    for item in body.children:
        kind = item.kind
        if kind == "AttributeRule":
            name = str(item.identifier.token.value)
            source = _source(item, filename)
            if name in attributes:
                raise source.error(f'Attribute redefined; The argument "{name}" was already '
                                   f"set at line {attributes[name].source.line}. Each argument "
                                   "may be set only once.")
            attributes[name] = AttributeDecl(name, item.expression, source)
        elif kind == "BlockRule":
            nested.append((item, _source(item, filename)))
    return attributes, nested


_VARIABLE_ATTRIBUTES = {"default", "type", "description"}


def _variable(name: str, attributes: dict[str, AttributeDecl],
              nested: list[tuple[Rule, Source]], sources: tuple[Source, Source], filename: str,
              warnings: list[HCLError]) -> VariableDecl:
    source, body = sources
    for attr in attributes.values():
        if attr.name not in _VARIABLE_ATTRIBUTES:
            warnings.append(attr.source.error(
                f"unknown argument {attr.name!r} in variable {name!r} is ignored (as buildx "
                "ignores it; expected default, type, description, validation)"))
    validations = []
    for block, block_source in nested:
        attrs, _ = _body(block.body, filename)
        if "condition" not in attrs:
            raise block_source.error("a validation block needs a condition")
        message = attrs.get("error_message")
        condition = attrs["condition"].expression
        validations.append(Validation(condition, message.expression if message else None,
                                      _source(condition, filename)))
    default = attributes.get("default")
    type_attr = attributes.get("type")
    description = attributes.get("description")
    return VariableDecl(
        name=name,
        source=source,
        body=body,
        default=default.expression if default else None,
        has_default=default is not None,
        type=type_constraint(type_attr.expression, filename) if type_attr else None,
        description=description.expression if description else None,
        validations=tuple(validations),
    )


def _function(name: str, attributes: dict[str, AttributeDecl], source: Source,
              filename: str) -> FunctionDecl:
    for needed, other in (("result", "params"), ("params", "result")):
        if needed not in attributes:  # buildx places it at the other one, if any
            at = attributes[other].source if other in attributes else source
            raise at.error(f"Invalid function; empty {needed} not allowed for {name}")
    params = tuple(_keyword_list(attributes["params"]))
    variadic_attr = attributes.get("variadic_params")
    variadic = _keyword(variadic_attr.expression, variadic_attr.source) if variadic_attr else None
    return FunctionDecl(name, params, variadic, attributes["result"].expression, source)


def _keyword_list(attr: AttributeDecl) -> list[str]:
    node = attr.expression
    while node.kind == "ExprTermRule":
        node = node.expression
    if node.kind != "TupleRule":
        raise attr.source.error("params must be a list of names")
    return [_keyword(e, attr.source) for e in node.elements]


def _keyword(node: Rule, source: Source) -> str:
    while node.kind == "ExprTermRule":
        node = node.expression
    if node.kind != "IdentifierRule":
        raise source.error("each parameter name must be an identifier")
    return str(node.token.value)


def user_function(decl: FunctionDecl, scope: Scope, functions: FunctionTable
                  ) -> Callable[[list[Value]], Value]:
    """A callable for a ``function`` block; its result is evaluated in the global scope."""
    evaluator = Evaluator(decl.source.file, functions)

    def call(args: list[Value]) -> Value:
        name = decl.name
        if len(args) < len(decl.params):
            least = "at least " if decl.variadic is not None else ""
            raise FunctionError(f'{name}: Not enough function arguments; Function "{name}" '
                                f"expects {least}{len(decl.params)} argument(s). Missing value "
                                f'for "{decl.params[len(args)]}".', len(args))
        if decl.variadic is None and len(args) > len(decl.params):
            raise FunctionError(f'{name}: Too many function arguments; Function "{name}" '
                                f"expects only {len(decl.params)} argument(s).",
                                len(decl.params))
        for index, arg in enumerate(args):  # buildx's user functions allow no null argument
            if arg is None or values.is_nil(arg):
                param = (decl.params[index] if index < len(decl.params) else decl.variadic)
                raise FunctionError(f'{name}: Invalid function argument; Invalid value for '
                                    f'"{param}" parameter: argument must not be null.', index)
        names: dict[str, Value] = dict(zip(decl.params, args, strict=False))
        if decl.variadic is not None:
            names[decl.variadic] = list(args[len(decl.params):])
        return evaluator.eval(decl.result, scope.child(names))

    return call
