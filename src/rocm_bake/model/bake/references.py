"""``target.NAME.FIELD`` and ``group.NAME.FIELD``: one block's attribute, read from another
expression, as buildx evaluates it.

buildx evaluates only the attribute asked for, in the referenced block's own scope (its matrix
cell for a generated name), before ``inherits``, file merging or ``--set`` apply; with several
blocks of one name, the last one's value is seen. An unset field reads as null. Referencing a
whole block (``target.NAME`` as a value) is not supported by the model and says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rocm_bake.core.errors import HCLError
from rocm_bake.model.bake.declarations import BlockDecl
from rocm_bake.model.bake.entries import EntryError
from rocm_bake.model.bake.target import KINDS, FieldError, decode
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.evaluate import Scope
from rocm_bake.model.hcl.values import ConversionError, ListValue, MapValue, Value

if TYPE_CHECKING:
    from rocm_bake.model.bake.variables import Namespace

#: The fields a target exposes to references (buildx's Target struct: no matrix).
TARGET_FIELDS = {"name", *KINDS}
GROUP_FIELDS = {"name", "description", "targets"}


def _unsupported(what: str) -> HCLError:
    return HCLError(f"using {what} as a whole value is not supported by the model (reference "
                   "one attribute: target.NAME.FIELD)")


def _whole_block_type(kind: str) -> HCLError:
    """buildx refuses ``target`` (or ``group``) used as a value; the attribute using it places
    the error (blocks.evaluate)."""
    return HCLError(f"Invalid expression; cannot access {kind} as a variable")


class BlockTable(MapValue):
    """The value of ``target`` (or ``group``): block names to lazily evaluated blocks (a map,
    as buildx's)."""

    def __init__(self, kind: str, references: References) -> None:
        super().__init__()
        self.kind = kind
        self.references = references

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.references.names(self.kind)

    def __getitem__(self, name: str) -> Value:
        return BlockRef(self.kind, name, self.references)

    def __iter__(self) -> Iterator[str]:
        raise _whole_block_type(self.kind)

    def __len__(self) -> int:
        raise _whole_block_type(self.kind)


class BlockRef(dict[str, Value]):
    """One named block; its fields evaluate when read."""

    def __init__(self, kind: str, name: str, references: References) -> None:
        super().__init__()
        self.kind = kind
        self.name = name
        self.references = references

    def __contains__(self, field: object) -> bool:
        fields = TARGET_FIELDS if self.kind == "target" else GROUP_FIELDS
        return isinstance(field, str) and field in fields

    def __getitem__(self, field: str) -> Value:
        return self.references.field(self.kind, self.name, field)

    def __iter__(self) -> Iterator[str]:
        raise _unsupported(f"{self.kind}.{self.name}")

    def __len__(self) -> int:
        raise _unsupported(f"{self.kind}.{self.name}")


class References:
    """Evaluates referenced block attributes on demand, with buildx's cycle check."""

    def __init__(self, blocks: list[BlockDecl], namespace: Namespace) -> None:
        self.blocks = blocks
        self.namespace = namespace
        self._names: dict[str, dict[str, tuple[BlockDecl, Scope]]] = {}
        self._values: dict[tuple[str, str, str], Value] = {}
        self._in_progress: set[tuple[str, str, str]] = set()

    def table(self, kind: str) -> BlockTable:
        return BlockTable(kind, self)

    def names(self, kind: str) -> dict[str, tuple[BlockDecl, Scope]]:
        """Every name of a block type (generated matrix names too) to its last block."""
        if kind not in self._names:
            from rocm_bake.model.bake import blocks  # noqa: PLC0415 - blocks needs a Namespace

            table: dict[str, tuple[BlockDecl, Scope]] = {}
            for block in self.blocks:
                if block.type != kind:
                    continue
                if kind == "group":
                    table[block.label] = (block, self.namespace.scope)
                    continue
                for scope in blocks.matrix_scopes(block, self.namespace):
                    table[blocks.target_name(block, scope, self.namespace)] = (block, scope)
            self._names[kind] = table
        return self._names[kind]

    def field(self, kind: str, name: str, field: str) -> Value:
        key = (kind, name, field)
        if key in self._values:
            return self._values[key]
        if key in self._in_progress:
            raise HCLError(f"Invalid expression; reference cycle not allowed for "
                           f"{kind}.{name}.{field}")
        block, scope = self.names(kind)[name]
        self._in_progress.add(key)
        try:
            value = self._evaluate(block, scope, name, field)
        finally:
            self._in_progress.discard(key)
        self._values[key] = value
        return value

    def _evaluate(self, block: BlockDecl, scope: Scope, name: str, field: str) -> Value:
        if field == "name":
            return name
        kind = "list" if field == "targets" else KINDS[field]
        attr = block.attributes.get(field)
        raw = (None if attr is None else
               self.namespace.evaluator(attr.source.file).eval(attr.expression, scope))
        if attr is None or raw is None:
            return _unset(field, kind)
        try:
            return _as_value(decode(kind, field, raw))
        except (FieldError, EntryError, ConversionError) as exc:
            raise attr.source.error(f"invalid {field}: {exc}") from None


def _unset(field: str, kind: str) -> Value:
    """An unset field as buildx's Go struct reads: empty lists, null maps and pointers."""
    if field == "description":
        return ""
    if kind in ("list", "entries"):
        return ListValue()
    return None


def _as_value(decoded: Any) -> Value:
    """A decoded field as the HCL value buildx exposes (lists, maps of strings)."""
    if isinstance(decoded, list):
        return ListValue(_as_value(v) for v in decoded)
    if isinstance(decoded, dict):
        return MapValue({k: _as_value(v) for k, v in decoded.items()})
    if isinstance(decoded, bool | str) or decoded is None:
        return decoded
    return values.to_string(decoded)
