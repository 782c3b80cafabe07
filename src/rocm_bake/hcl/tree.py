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
    (its child rules, in order) and its named parts as further attributes."""

    kind: str
    meta: Meta | None
    children: list[Rule]

    def __init__(self, kind: str, meta: Meta | None, children: list[Rule],
                 parts: dict[str, Any]) -> None:
        self.__dict__.update(parts)
        self.kind = kind
        self.meta = meta
        self.children = children

    if TYPE_CHECKING:  # the named parts differ by kind
        def __getattr__(self, name: str) -> Any: ...

    def __repr__(self) -> str:
        return f"<Rule {self.kind}>"


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
        return {key: dump(value, seen) for key, value in vars(node).items()}
    if isinstance(node, list):
        return [dump(item, seen) for item in node]
    return node
