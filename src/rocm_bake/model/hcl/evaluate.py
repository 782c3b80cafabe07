"""Evaluate HCL expressions (the model's tree, ``tree``) to values, following HCL's semantics.

Anything the evaluator does not support is an ``HCLError`` naming the construct and its
file:line; it never guesses a value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from rocm_bake.core.errors import HCLError
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.bigfloat import NumberError, arithmetic
from rocm_bake.model.hcl.functions.params import FunctionError
from rocm_bake.model.hcl.syntax import heredoc_position
from rocm_bake.model.hcl.tree import Node, Rule, end_position, position, start_position
from rocm_bake.model.hcl.types import convert, cty_equal, type_of, unify
from rocm_bake.model.hcl.values import ConversionError, MapValue, SetValue, Value

FunctionTable = Mapping[str, Callable[[list[Value]], Value]]


@dataclass
class Scope:
    """Names visible to an expression: local bindings, then a parent, then a lazy resolver."""

    names: dict[str, Value] = field(default_factory=dict)
    parent: Scope | None = None
    resolver: Callable[[str], Value] | None = None

    def child(self, names: dict[str, Value]) -> Scope:
        return Scope(names, self)

    def lookup(self, name: str) -> Value:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            if scope.resolver is not None:
                return scope.resolver(name)
            scope = scope.parent
        raise KeyError(name)


class Evaluator:
    """Evaluates expressions of one file against a scope and a function table."""

    def __init__(self, filename: str, functions: FunctionTable) -> None:
        self.filename = filename
        self.functions = functions

    # -- errors ---------------------------------------------------------------------------
    def error(self, node: Node, message: str) -> HCLError:
        line, column = position(node)
        return HCLError(message, self.filename, line, column)

    # -- dispatch -------------------------------------------------------------------------
    def eval(self, node: Rule, scope: Scope) -> Value:
        kind = node.kind
        method = _DISPATCH.get(kind)
        if method is None:
            raise self.error(node, f"unsupported HCL construct {kind}")
        return method(self, node, scope)

    def _eval_expr_term_rule(self, node: Rule, scope: Scope) -> Value:
        return self.eval(node.expression, scope)

    def _eval_identifier_rule(self, node: Rule, scope: Scope) -> Value:
        name = str(node.token.value)
        try:
            return scope.lookup(name)
        except KeyError as exc:
            detail = (exc.args[1] if len(exc.args) > 1
                      else f'Unknown variable; There is no variable named "{name}".')
            raise self.error(node, detail) from None
        except HCLError as exc:
            if exc.file is None:  # raised by a resolver that does not know where it was asked
                raise self.error(node, exc.message) from None
            raise

    def _eval_literal_value_rule(self, node: Rule, scope: Scope) -> Value:
        text = str(node.token.value)
        return {"true": True, "false": False}.get(text)

    def _eval_int_lit_rule(self, node: Rule, scope: Scope) -> Value:
        try:
            return values.number(str(node.token.value))
        except ConversionError as exc:
            raise self.error(node, f"invalid number literal: {exc}") from None

    def _eval_tuple_rule(self, node: Rule, scope: Scope) -> Value:
        return [self.eval(e, scope) for e in node.elements]

    def _eval_object_rule(self, node: Rule, scope: Scope) -> Value:
        out: dict[str, Value] = {}
        for elem in node.elements:
            out[self.object_key(elem.key, scope)] = self.eval(elem.expression, scope)
        return out

    def object_key(self, key: Rule, scope: Scope) -> str:
        inner = key.value if key.kind == "ObjectElemKeyRule" else key.expression
        if inner.kind == "IdentifierRule":
            return str(inner.token.value)
        if inner.kind == "KeywordRule":
            return str(inner.token.value)
        return self.string_of(inner, self.eval(inner, scope), "object key")

    def string_of(self, node: Rule, value: Value, what: str) -> str:
        try:
            return values.to_string(value)
        except ConversionError as exc:
            raise self.error(node, f"invalid {what}: {exc}") from None

    # -- operators ------------------------------------------------------------------------
    def _eval_unary_op_rule(self, node: Rule, scope: Scope) -> Value:
        operand = self.eval(node.expr_term, scope)
        try:
            if node.operator == "-":  # cty's Negate: big.Float.Neg, so -0 is negative zero
                return values.to_number(operand).copy_negate()
            return not values.to_bool(operand)
        except ConversionError as exc:
            raise self.error(node.expr_term, f"Invalid operand; Unsuitable value for unary "
                                             f"operand: {exc}") from None

    def _eval_binary_op_rule(self, node: Rule, scope: Scope) -> Value:
        left = self.eval(node.expr_term, scope)
        term = node.binary_term
        operator = str(term.binary_operator.token.value)
        right = self.eval(term.expr_term, scope)
        try:
            return _binary(operator, left, right)
        except ConversionError as exc:
            raise self.operand_error(node, operator, (left, right), exc) from None
        except NumberError as exc:
            raise self.error(node, f"Operation failed; Error during operation {operator}: "
                                   f"{exc}") from None

    def operand_error(self, node: Rule, operator: str, operands: tuple[Value, Value],
                      exc: ConversionError) -> HCLError:
        """buildx's diagnostic for a binary operation that cannot run: an operand of the wrong
        type, at that operand; else a null operand fails the operation itself."""
        to_type = values.to_bool if operator in ("&&", "||") else values.to_number
        places = (("left", node.expr_term), ("right", node.binary_term.expr_term))
        nulls = 0
        for (side, where), operand in zip(places, operands, strict=True):
            if operand is None:
                nulls += 1
                continue
            try:
                if values.is_nil(operand):  # cty's NilVal has no type: no type fits it
                    raise ConversionError(f"{'bool' if to_type is values.to_bool else 'number'} "
                                          "required")
                to_type(operand)
            except ConversionError as bad:
                return self.error(where, f"Invalid operand; Unsuitable value for {side} "
                                         f"operand: {bad}.")
        if nulls:
            return self.error(node, "Operation failed; Error during operation: argument must "
                                    "not be null.")
        return self.error(node, f"Invalid operand; {exc}")

    def _eval_conditional_rule(self, node: Rule, scope: Scope) -> Value:
        """HCL evaluates both results: the one not taken may fail, but when both succeed
        their types must unify, and the taken one is converted to that type."""
        results = [self._attempt(node.if_true, scope), self._attempt(node.if_false, scope)]
        condition = self.eval(node.condition, scope)
        if condition is None:
            raise self.error(node, "Null condition; The condition value is null. Conditions "
                                   "must either be true or false.")
        try:
            chosen = values.to_bool(condition)
        except ConversionError as exc:
            raise self.error(node, f"Incorrect condition type; {exc}") from None
        taken, other = results if chosen else results[::-1]
        if isinstance(taken, HCLError):
            raise taken
        if isinstance(other, HCLError) or taken is None or other is None:
            return taken
        unified = unify([type_of(taken), type_of(other)])
        if unified is None:  # buildx places it at the results, from the true one
            when_true, when_false = (taken, other) if chosen else (other, taken)
            raise self.error(node.if_true, "Inconsistent conditional result types; the true "
                                           f"result is {values.kind(when_true)}, the false one "
                                           f"{values.kind(when_false)}")
        try:
            return convert(taken, unified)
        except ConversionError as exc:
            raise self.error(node.if_true, "Inconsistent conditional result types; "
                                           f"{exc}") from None

    def _attempt(self, node: Rule, scope: Scope) -> Value | HCLError:
        try:
            return self.eval(node, scope)
        except HCLError as exc:
            return exc

    # -- traversal ------------------------------------------------------------------------
    def _eval_get_attr_expr_term_rule(self, node: Rule, scope: Scope) -> Value:
        return self.get_attr(node.get_attr, self.eval(node.expr_term, scope))

    def _eval_index_expr_term_rule(self, node: Rule, scope: Scope) -> Value:
        collection = self.eval(node.children[0], scope)
        return self.index(node.children[1], collection, scope, _name_of(node.children[0]))

    def _eval_full_splat_expr_term_rule(self, node: Rule, scope: Scope) -> Value:
        return self.splat(node.expr_term, node.attr_splat.get_attrs, scope)

    def _eval_attr_splat_expr_term_rule(self, node: Rule, scope: Scope) -> Value:
        return self.splat(node.expr_term, node.attr_splat.get_attrs, scope)

    def splat(self, term: Rule, accessors: list[Rule], scope: Scope) -> Value:
        source = self.eval(term, scope)
        if source is None:
            return []
        items = source if isinstance(source, list) else [source]
        out = []
        for item in items:
            value = item
            for accessor in accessors:
                value = self.access(accessor, value, scope)
            out.append(value)
        return out

    def access(self, accessor: Rule, value: Value, scope: Scope) -> Value:
        if accessor.kind == "GetAttrRule":
            return self.get_attr(accessor, value)
        return self.index(accessor, value, scope)

    def get_attr(self, node: Rule, value: Value) -> Value:
        name = str(node.identifier.token.value)
        if isinstance(value, dict):
            if name in value:
                return value[name]
            if isinstance(value, MapValue):
                raise self.error(node, "Missing map element; This map does not have an element "
                                       f'with the key "{name}".')
            raise self.error(node, f'Unsupported attribute; This object does not have an '
                                   f'attribute named "{name}".')
        if value is None:
            raise self.error(node, "Attempt to get attribute from null value; This value is "
                                   f"null, so it does not have any attributes ({name!r}).")
        if isinstance(value, str | bool | Decimal):
            raise self.error(node, "Unsupported attribute; Can't access attributes on a "
                                   f"primitive-typed value ({values.kind(value)}).")
        raise self.error(node, f"Unsupported attribute; Can't access attributes on a "
                               f"{values.kind(value)} ({name!r}).")

    def index(self, node: Rule, collection: Value, scope: Scope, table: str = "") -> Value:
        """``collection[key]``; ``table`` names the collection (a variable or attribute) in
        the error of a missing key, so it says which table lacks which entry."""
        if node.kind == "ShortIndexRule":
            key: Value = values.number(str(node.index))
        else:
            key = self.eval(node.index_expression, scope)
        if isinstance(collection, SetValue):
            raise self.error(node, "invalid index: elements of a set are identified only by their "
                                   "value and have no index")
        if isinstance(collection, list):
            return self._list_index(node, collection, key)
        if isinstance(collection, dict):
            name = self.string_of(node, key, "index")
            if name not in collection:
                if table:
                    raise self.error(node, f"invalid index: {table} has no entry {name!r} "
                                           f"(add {name!r} to {table})")
                raise self.error(node, f"invalid index: the given key {name!r} does not exist")
            return collection[name]
        if collection is None:
            raise self.error(node, "attempt to index a null value")
        raise self.error(node, f"cannot index a {values.kind(collection)}")

    def _list_index(self, node: Rule, collection: list[Value], key: Value) -> Value:
        try:
            number = values.to_number(key)
        except ConversionError as exc:
            raise self.error(node, f"invalid index: {exc}") from None
        if number != number.to_integral_value() or not 0 <= number < len(collection):
            raise self.error(node, f"invalid index: {values.format_number(number)} is out of "
                                   f"range for a list of {len(collection)}")
        return collection[int(number)]

    # -- for expressions ------------------------------------------------------------------
    def _eval_for_tuple_expr_rule(self, node: Rule, scope: Scope) -> Value:
        out = []
        for inner in self.iterations(node, scope):
            if self.keep(node, inner):
                out.append(self.eval(node.value_expr, inner))
        return out

    def _eval_for_object_expr_rule(self, node: Rule, scope: Scope) -> Value:
        grouped = bool(node.ellipsis)
        out: dict[str, Value] = {}
        for inner in self.iterations(node, scope):
            if not self.keep(node, inner):
                continue
            key = self.string_of(node.key_expr, self.eval(node.key_expr, inner), "object key")
            item = self.eval(node.value_expr, inner)
            if grouped:
                bucket = out.setdefault(key, [])
                assert isinstance(bucket, list)
                bucket.append(item)
            elif key in out:
                raise self.error(node.key_expr, f'Duplicate object key; Two different items '
                                                f'produced the key "{key}" in this \'for\' '
                                                "expression (use ... after the value to group)")
            else:
                out[key] = item
        return out

    def iterations(self, node: Rule, scope: Scope) -> Iterator[Scope]:
        intro = node.for_intro
        first = str(intro.first_iterator.token.value)
        second = intro.second_iterator
        collection = self.eval(intro.iterable, scope)
        pairs = self.pairs(intro.iterable, collection)
        self.precheck(node, scope, {first} if second is None else {first, str(second.token.value)})
        for key, item in pairs:
            if second is None:
                yield scope.child({first: item})
            else:
                yield scope.child({first: key, str(second.token.value): item})

    def pairs(self, node: Rule, collection: Value) -> list[tuple[Value, Value]]:
        """(key, value) per element, as cty's ElementIterator: a set's key is the element."""
        if isinstance(collection, SetValue):
            return [(v, v) for v in collection]
        if isinstance(collection, list):
            return [(values.number(i), v) for i, v in enumerate(collection)]
        if isinstance(collection, dict):
            return [(k, collection[k]) for k in sorted(collection)]
        if collection is None or values.is_nil(collection):
            raise self.error(node, "Iteration over null value; A null value cannot be used as "
                                   "the collection in a 'for' expression.")
        raise self.error(node, f"Iteration over non-iterable value; cannot iterate over a "
                               f"{values.kind(collection)}")

    def precheck(self, node: Rule, scope: Scope, iterators: set[str]) -> None:
        """HCL checks an ``if`` clause once before iterating (so even over nothing), with the
        iterators unknown: it must not fail, be null or be no bool. The model has no unknown
        values, so it checks a clause that names no iterator (one that does is unknown)."""
        if node.condition is None or _mentions(node.condition.condition_expr, iterators):
            return
        condition = node.condition.condition_expr
        result = self.eval(condition, scope)
        if result is None or values.is_nil(result):
            raise self.error(condition, "condition is null: the value of the 'if' clause "
                                        "must not be null")
        try:
            values.to_bool(result)
        except ConversionError as exc:
            raise self.error(condition, f"Invalid 'for' condition; {exc}") from None

    def keep(self, node: Rule, scope: Scope) -> bool:
        if node.condition is None:
            return True
        condition = node.condition.condition_expr
        try:
            return values.to_bool(self.eval(condition, scope))
        except ConversionError as exc:
            raise self.error(condition, f"Invalid 'for' condition; {exc}") from None

    # -- functions ------------------------------------------------------------------------
    def _eval_function_call_rule(self, node: Rule, scope: Scope) -> Value:
        names = [str(i.token.value) for i in node.identifiers]
        name = "::".join(names)
        arguments = node.arguments
        exprs = list(arguments.arguments) if arguments is not None else []
        if name in ("can", "try"):
            return self.lazy_call(node, name, exprs, scope)
        function = self.functions.get(name)
        if function is None:
            raise self.error(node, f'Call to unknown function; There is no function named '
                                   f'"{name}".')
        args = [self.eval(e, scope) for e in exprs]
        if arguments is not None and arguments.has_ellipsis:
            spread = args.pop()
            if not isinstance(spread, list):
                raise self.error(node, f"{name}: the argument before ... must be a list")
            args.extend(spread)
        try:
            return function(args)
        except HCLError:
            raise
        except FunctionError as exc:  # buildx's diagnostic, at the argument it is about
            message = str(exc).removeprefix(f"{name}: ")
            if exc.argument is not None and exc.argument < len(exprs):
                line, column = start_position(exprs[exc.argument])
                raise HCLError(message, self.filename, line, column) from None
            if exc.argument is not None and exc.argument == len(exprs):  # one is missing
                line, column = end_position(node)  # at the closing parenthesis
                raise HCLError(message, self.filename, line,
                               column - 1 if column else None) from None
            raise self.error(node, message) from None
        except Exception as exc:  # a function's own error, reported where it was called
            raise self.error(node, f"Error in function call; {name}: {exc}") from None

    def lazy_call(self, node: Rule, name: str, exprs: list[Rule], scope: Scope) -> Value:
        if name == "can":
            if len(exprs) != 1:
                raise self.error(node, "can: expected exactly one argument")
            try:
                self.eval(exprs[0], scope)
            except HCLError:
                return False
            return True
        for expr in exprs:
            try:
                return self.eval(expr, scope)
            except HCLError:
                continue
        raise self.error(node, "try: no expression succeeded")

    # -- templates ------------------------------------------------------------------------
    def _eval_string_rule(self, node: Rule, scope: Scope) -> Value:
        parts = list(node.string_parts)
        if len(parts) == 1 and parts[0].content.kind == "InterpolationRule":
            return self.eval(parts[0].content.expression, scope)
        try:
            return "".join(self.render(parts, scope, escapes=True))
        except HCLError as exc:  # a literal part has no position of its own: the string's line
            if exc.line is None:
                raise HCLError(exc.message, self.filename, position(node)[0]) from None
            raise

    def _eval_heredoc_template_rule(self, node: Rule, scope: Scope) -> Value:
        """A heredoc's template, parsed (and for ``<<-`` dedented) with the file."""
        if node.template_error is not None:  # its body does not parse (see syntax)
            raise HCLError(*node.template_error)
        inner = Evaluator(self.filename, self.functions)
        try:
            return "".join(inner.render(list(node.template.string_parts), scope, escapes=True))
        except HCLError as exc:  # placed in the heredoc's body, where Go's HCL parses it
            line, _ = position(node)
            if line is None or exc.column is None:
                raise HCLError(exc.message, self.filename, line) from None
            offset, column = heredoc_position(str(node.heredoc.value),
                                              node.kind == "HeredocTrimTemplateRule", exc.column)
            raise HCLError(exc.message, self.filename, line + 1 + offset, column) from None

    def render(self, parts: list[Rule], scope: Scope, escapes: bool) -> Iterator[str]:
        """Yield the text of template parts, honouring ``~`` strip markers."""
        pieces = list(self.pieces(parts, scope))
        for i, (text, literal) in enumerate(pieces):
            if text in (_STRIP_AFTER, _STRIP_BEFORE):
                continue
            if literal and i > 0 and pieces[i - 1][0] == _STRIP_AFTER:
                text = text.lstrip()  # noqa: PLW2901
            if literal and i + 1 < len(pieces) and pieces[i + 1][0] == _STRIP_BEFORE:
                text = text.rstrip()  # noqa: PLW2901
            yield text

    def pieces(self, parts: list[Rule], scope: Scope) -> Iterator[tuple[str, bool]]:
        """Flatten template parts into (text, is_literal) pieces with strip-marker sentinels."""
        for part in parts:
            content = part.content if part.kind == "StringPartRule" else part
            kind = content.kind
            if kind == "InterpolationRule":
                value = self.eval(content.expression, scope)
                yield self.template_string(content, value), False
            elif kind == "TemplateIfRule":
                yield from self.if_pieces(content, scope)
            elif kind == "TemplateForRule":
                yield from self.for_pieces(content, scope)
            elif kind.startswith("Template"):  # an else/endif/endfor outside its directive
                raise self.error(content if isinstance(content, Rule) else parts[0],
                                 "unbalanced template directives: the control directives "
                                 "within this template are unbalanced")
            else:
                try:
                    yield _literal(content), True
                except ValueError as exc:
                    raise self.error(content, str(exc)) from None

    def if_pieces(self, node: Rule, scope: Scope) -> Iterator[tuple[str, bool]]:
        start, endif, else_rule = node._if_start, node._endif, node._else_rule
        condition = self.eval(start.condition, scope)
        try:
            chosen = values.to_bool(condition)
        except ConversionError as exc:
            raise self.error(start.condition, f"Incorrect condition type; {exc}") from None
        yield from _marker(start.strip_open, before=True)
        if chosen:
            yield from _marker(start.strip_close, before=False)
            yield from self.pieces(list(node._if_body), scope)
            yield from _marker((else_rule or endif).strip_open, before=True)
        elif else_rule is not None:
            yield from _marker(else_rule.strip_close, before=False)
            yield from self.pieces(list(node._else_body), scope)
            yield from _marker(endif.strip_open, before=True)
        yield from _marker(endif.strip_close, before=False)

    def for_pieces(self, node: Rule, scope: Scope) -> Iterator[tuple[str, bool]]:
        start, end = node._for_start, node._endfor
        collection = self.eval(start.collection, scope)
        # python-hcl2 calls the first identifier ``iterator`` and the second ``key_iterator``;
        # in HCL, ``%{for k, v in ...}`` binds the key to the first and the value to the second.
        first = str(start.iterator.token.value)
        second = start.key_iterator
        yield from _marker(start.strip_open, before=True)
        for key, item in self.pairs(start.collection, collection):
            names: dict[str, Value] = {first: item}
            if second is not None:
                names = {first: key, str(second.token.value): item}
            yield from _marker(start.strip_close, before=False)
            yield from self.pieces(list(node._body), scope.child(names))
            yield from _marker(end.strip_open, before=True)
        yield from _marker(end.strip_close, before=False)

    def template_string(self, node: Rule, value: Value) -> str:
        where = node.expression if node.kind == "InterpolationRule" else node
        if value is None or values.is_nil(value):
            raise self.error(where, "Invalid template interpolation value; the value is null")
        if isinstance(value, list | dict):
            raise self.error(where, "Invalid template interpolation value; cannot include a "
                                    f"{values.kind(value)} in a string template")
        return values.to_string(value)


def _name_of(node: Rule) -> str:
    """The name an expression is, when it is a plain variable or attribute reference."""
    while node.kind == "ExprTermRule":
        node = node.expression
    return str(node.token.value) if node.kind == "IdentifierRule" else ""


def _mentions(node: Rule, names: set[str]) -> bool:
    """Whether an expression names any of ``names`` (an identifier anywhere in it)."""
    if node.kind == "IdentifierRule":
        return str(node.token.value) in names
    return any(_mentions(child, names) for child in getattr(node, "children", ()) or ())


_STRIP_BEFORE = "\x00strip-before"
_STRIP_AFTER = "\x00strip-after"


def _marker(enabled: bool, before: bool) -> Iterator[tuple[str, bool]]:
    if enabled:
        yield (_STRIP_BEFORE if before else _STRIP_AFTER), False


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE_RE = re.compile(r'\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[nrt"\\])')
_ANY_ESCAPE_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.?)", re.DOTALL)


def _literal(token: Node) -> str:
    text = str(token.value)
    kind = token.kind
    if text.startswith("$${") or text.startswith("%%{"):
        return text[1:]
    if "ESCAPED" in kind:
        return text[1:]
    if "\\" not in text:  # no escape: most literals
        return text
    for escape in _ANY_ESCAPE_RE.finditer(text):
        if not _ESCAPE_RE.fullmatch(escape.group(0)):
            raise ValueError(f'Invalid escape sequence; The symbol "{escape.group(1)[:1]}" is '
                             "not a valid escape sequence selector.")
    return _ESCAPE_RE.sub(_unescape, text)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "uU":
        return chr(int(code[1:], 16))
    return _ESCAPES[code]


def _binary(operator: str, left: Value, right: Value) -> Value:
    """A binary operator as HCL applies it: cty's Equals, And/Or, and the number functions
    (512-bit arithmetic, so ``1 / 0`` is +Inf and ``5 % 0`` is 5, as in buildx)."""
    if operator == "==":
        return cty_equal(left, right)
    if operator == "!=":
        return not cty_equal(left, right)
    if operator in ("&&", "||"):
        a, b = values.to_bool(left), values.to_bool(right)
        return (a and b) if operator == "&&" else (a or b)
    a_num, b_num = values.to_number(left), values.to_number(right)
    if operator in _COMPARISONS:
        return _COMPARISONS[operator](a_num, b_num)
    return arithmetic(operator, a_num, b_num)


_COMPARISONS: dict[str, Callable[[Decimal, Decimal], bool]] = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}


_DISPATCH: dict[str, Callable[[Evaluator, Rule, Scope], Value]] = {
    "ExprTermRule": Evaluator._eval_expr_term_rule,
    "IdentifierRule": Evaluator._eval_identifier_rule,
    "LiteralValueRule": Evaluator._eval_literal_value_rule,
    "IntLitRule": Evaluator._eval_int_lit_rule,
    "FloatLitRule": Evaluator._eval_int_lit_rule,
    "TupleRule": Evaluator._eval_tuple_rule,
    "ObjectRule": Evaluator._eval_object_rule,
    "UnaryOpRule": Evaluator._eval_unary_op_rule,
    "BinaryOpRule": Evaluator._eval_binary_op_rule,
    "ConditionalRule": Evaluator._eval_conditional_rule,
    "GetAttrExprTermRule": Evaluator._eval_get_attr_expr_term_rule,
    "IndexExprTermRule": Evaluator._eval_index_expr_term_rule,
    "FullSplatExprTermRule": Evaluator._eval_full_splat_expr_term_rule,
    "AttrSplatExprTermRule": Evaluator._eval_attr_splat_expr_term_rule,
    "ForTupleExprRule": Evaluator._eval_for_tuple_expr_rule,
    "ForObjectExprRule": Evaluator._eval_for_object_expr_rule,
    "FunctionCallRule": Evaluator._eval_function_call_rule,
    "StringRule": Evaluator._eval_string_rule,
    "HeredocTemplateRule": Evaluator._eval_heredoc_template_rule,
    "HeredocTrimTemplateRule": Evaluator._eval_heredoc_template_rule,
}
