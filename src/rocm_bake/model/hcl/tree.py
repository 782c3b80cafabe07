"""The parsed form of an HCL file that the evaluator reads: small plain objects.

``syntax`` builds it from python-hcl2's typed tree, keeping of each rule only what the model
reads: its kind (python-hcl2's class name), where it is written, its child rules, and its named
parts (``expression``, ``elements``, ``token`` ...) as attributes, under python-hcl2's names.
Its classes are this module's own, so a cached tree (``parsecache``) loads without importing
python-hcl2 or lark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

#: (line, column, end line, end column, start offset, end offset) of a rule in its file.
Meta = tuple[int, int, int, int, int, int]


class Rule:
    """A rule: ``kind``, ``meta`` (None when the parser recorded no position), ``children``
    (its child rules, in order) and its named parts (``PARTS``) as further attributes. Each
    kind is a class of its own with slots (``KINDS``): a tree of them loads from the cache
    in about half the time one of objects with a ``__dict__`` takes."""

    __slots__ = ("children", "meta")
    kind: str
    meta: Meta | None
    children: list[Rule]

    if TYPE_CHECKING:  # the named parts differ by kind
        def __getattr__(self, name: str) -> Any: ...

    def __repr__(self) -> str:
        return f"<Rule {self.kind}>"


#: The named parts of each kind of rule: python-hcl2's property names, and what ``syntax`` adds:
#: a block's ``labels`` (its type and labels), a heredoc's ``template`` (its body parsed as a
#: quoted string) or ``template_error`` (why it does not parse, raised when evaluated).
PARTS: dict[str, tuple[str, ...]] = {
    "StartRule": ("body",),
    "BodyRule": (),  # its items are its children
    "AttributeRule": ("identifier", "expression"),
    "BlockRule": ("body", "labels"),
    "ExprTermRule": ("expression",),
    "IdentifierRule": ("token",),
    "KeywordRule": ("token",),
    "LiteralValueRule": ("token",),
    "IntLitRule": ("token",),
    "FloatLitRule": ("token",),
    "BinaryOperatorRule": ("token",),
    "TupleRule": ("elements",),
    "ObjectRule": ("elements",),
    "ObjectElemRule": ("key", "expression"),
    "ObjectElemKeyRule": ("value",),
    "ObjectElemKeyExpressionRule": ("expression",),
    "UnaryOpRule": ("operator", "expr_term"),
    "BinaryOpRule": ("expr_term", "binary_term"),
    "BinaryTermRule": ("binary_operator", "expr_term"),
    "ConditionalRule": ("condition", "if_true", "if_false"),
    "GetAttrExprTermRule": ("get_attr", "expr_term"),
    "GetAttrRule": ("identifier",),
    "IndexExprTermRule": (),  # its children: the collection and the index
    "ShortIndexRule": ("index",),
    "SqbIndexRule": ("index_expression",),
    "AttrSplatExprTermRule": ("expr_term", "attr_splat"),
    "FullSplatExprTermRule": ("expr_term", "attr_splat"),
    "AttrSplatRule": ("get_attrs",),
    "FullSplatRule": ("get_attrs",),
    "ForTupleExprRule": ("for_intro", "value_expr", "condition"),
    "ForObjectExprRule": ("for_intro", "key_expr", "value_expr", "ellipsis", "condition"),
    "ForIntroRule": ("first_iterator", "second_iterator", "iterable"),
    "ForCondRule": ("condition_expr",),
    "FunctionCallRule": ("identifiers", "arguments"),
    "ArgumentsRule": ("arguments", "has_ellipsis"),
    "StringRule": ("string_parts",),
    "StringPartRule": ("content",),
    "InterpolationRule": ("expression",),
    "HeredocTemplateRule": ("heredoc", "template", "template_error"),
    "HeredocTrimTemplateRule": ("heredoc", "template", "template_error"),
    "TemplateIfRule": ("_if_start", "_if_body", "_else_rule", "_else_body", "_endif"),
    "TemplateIfStartRule": ("condition", "strip_open", "strip_close"),
    "TemplateElseRule": ("strip_open", "strip_close"),
    "TemplateEndifRule": ("strip_open", "strip_close"),
    "TemplateForRule": ("_for_start", "_body", "_endfor"),
    "TemplateForStartRule": ("iterator", "key_iterator", "collection", "strip_open",
                             "strip_close"),
    "TemplateEndforRule": ("strip_open", "strip_close"),
}




def _kind_class(kind: str, parts: tuple[str, ...]) -> type[Rule]:
    return type(kind, (Rule,), {"__slots__": parts, "kind": kind, "__module__": __name__})


#: The class of each kind, also a name of this module (so pickle finds it).
KINDS: dict[str, type[Rule]] = {kind: _kind_class(kind, parts) for kind, parts in PARTS.items()}
globals().update(KINDS)


class OtherRule(Rule):
    """A kind the model reads nothing of but its children (the evaluator rejects it)."""

    __slots__ = ("kind",)


def make_rule(kind: str, meta: Meta | None, children: list[Rule], parts: dict[str, Any]) -> Rule:
    made = KINDS[kind]() if kind in KINDS else OtherRule()
    if isinstance(made, OtherRule):
        made.kind = kind
    made.meta = meta
    made.children = children
    for name, value in parts.items():
        setattr(made, name, value)
    return made


def fields(node: Rule) -> tuple[str, ...]:
    """The names of a rule's attributes but its kind."""
    return ("meta", "children", *PARTS.get(node.kind, ()))


class Token:
    """A terminal: its kind (python-hcl2's token class name) and its text."""

    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value: str | int | float) -> None:
        self.kind = kind
        self.value = value

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"<Token {self.kind} {self.value!r}>"


Node = Rule | Token


def position(node: Node) -> tuple[int | None, int | None]:
    """The (line, column) where a rule starts, when the parser recorded it."""
    meta = getattr(node, "meta", None)
    if meta is None:
        return None, None
    return meta[0], meta[1]


#: The part whose start is an expression's ``StartRange`` in Go's HCL.
_FIRST_PART = {"ExprTermRule": "expression", "BinaryOpRule": "expr_term",
               "ConditionalRule": "condition"}


def start_position(node: Node) -> tuple[int | None, int | None]:
    """Where Go's HCL starts a value's range in a conversion diagnostic (a field's value, a
    function's argument), its ``StartRange``: that of the first operand, condition or
    parenthesised expression, and after the quote of a string of one literal part."""
    while isinstance(node, Rule) and node.kind in _FIRST_PART:
        node = getattr(node, _FIRST_PART[node.kind])
    line, column = position(node)
    if (isinstance(node, Rule) and node.kind == "StringRule" and column is not None
            and len(node.string_parts) == 1
            and not isinstance(node.string_parts[0].content, Rule)):
        column += 1
    return line, column


def end_position(node: Node) -> tuple[int | None, int | None]:
    meta = getattr(node, "meta", None)
    if meta is None:
        return None, None
    return meta[2], meta[3]


def dump(node: object, seen: dict[int, int] | None = None) -> object:
    """A tree as nested plain data, to compare two trees: a node met again (a child that is
    also a named part) is written as the number of its first appearance."""
    seen = {} if seen is None else seen
    if isinstance(node, Rule | Token):
        if id(node) in seen:
            return ("again", seen[id(node)])
        seen[id(node)] = len(seen)
        if isinstance(node, Token):
            return (node.kind, node.value)
        return {"kind": node.kind,
                **{name: dump(getattr(node, name), seen) for name in fields(node)}}
    if isinstance(node, list):
        return [dump(item, seen) for item in node]
    return node
