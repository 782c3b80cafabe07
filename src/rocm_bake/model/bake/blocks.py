"""Evaluate ``target`` and ``group`` blocks: matrix expansion, generated names, field values."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocm_bake.core.errors import HCLError
from rocm_bake.model.bake.declarations import AttributeDecl, BlockDecl, Source
from rocm_bake.model.bake.target import KINDS, FieldError, Target
from rocm_bake.model.bake.variables import Namespace
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.evaluate import Scope
from rocm_bake.model.hcl.values import ConversionError, Value

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")


@dataclass
class Group:
    name: str
    targets: list[str]
    description: str = ""
    #: ``targets = null``: no targets, printed as null (buildx's nil slice)
    null_targets: bool = False


@dataclass
class Config:
    """Every target and group of a definition, evaluated and merged (buildx's Config)."""

    targets: dict[str, Target] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    warnings: list[HCLError] = field(default_factory=list)

    def add_target(self, target: Target, source: Source) -> None:
        if target.name in self.targets:
            self.targets[target.name].merge(target)
        else:
            self.targets[target.name] = target
            self.sources[target.name] = source


def evaluate(blocks: list[BlockDecl], namespace: Namespace) -> Config:
    config = Config()
    renamed: dict[str, list[str]] = {}
    for block in blocks:
        config.warnings.extend(_ignored(block))
        if block.type == "group":
            config.groups[block.label] = _group(block, namespace)
            continue
        names: list[str] = []
        for scope in matrix_scopes(block, namespace):
            target = _target(block, scope, namespace)
            names.append(target.name)
            config.add_target(target, block.source)
        if len(set(names)) != len(names):
            duplicate = next(n for n in names if names.count(n) > 1)
            raise block.label_source.error(f'Invalid name; duplicate name "{duplicate}"')
        if names != [block.label]:
            renamed.setdefault(block.label, []).extend(names)
    for label, names in renamed.items():
        config.groups.setdefault(label, Group(label, list(dict.fromkeys(names))))
    return config


_GROUP_FIELDS = ("targets", "description", "name", "matrix")


def _ignored(block: BlockDecl) -> list[HCLError]:
    """Attributes buildx ignores without a word: we ignore them too, but say so."""
    known = _GROUP_FIELDS if block.type == "group" else (*KINDS, "name", "matrix")
    return [attr.source.error(f"unknown argument {attr.name!r} in {block.type} "
                              f"{block.label!r} is ignored (as buildx ignores it)")
            for attr in block.attributes.values() if attr.name not in known]


def check_name(name: str, source: Source) -> None:
    """buildx's name check, placed at the block's label (``source``)."""
    if not NAME_PATTERN.match(name):
        raise source.error(f'Invalid name; only "[a-zA-Z0-9_-]+" are allowed (not {name!r})')


def _group(block: BlockDecl, namespace: Namespace) -> Group:
    check_name(block.label, block.label_source)
    for name in ("name", "matrix"):
        if name in block.attributes:
            raise block.label_source.error(f"Invalid name; {name} is not supported for "
                                           "groups")
    group = Group(block.label, [])
    for attr in block.attributes.values():
        if attr.name not in _GROUP_FIELDS:
            continue
        value = _value(attr, namespace.scope, namespace)
        if value is None and attr.name == "targets":  # no targets, printed as null
            group.null_targets = True
            value = []
        if value is None:
            raise attr.value_error("Unsuitable value type; Unsuitable value: null value is "
                                   "not allowed")
        if attr.name == "targets":
            if not isinstance(value, list):
                raise attr.value_error("Unsuitable value type; Unsuitable value: list of "
                                       "string required (targets)")
            group.targets = list(dict.fromkeys(_strings(attr, value)))
        elif attr.name == "description":
            group.description = _string(attr, value)
    if "targets" not in block.attributes:
        raise block.source.error(f"group {block.label!r} needs a targets list")
    return group


def matrix_scopes(block: BlockDecl, namespace: Namespace) -> list[Scope]:
    matrix_attr = block.attributes.get("matrix")
    if matrix_attr is None:
        if "name" in block.attributes:
            raise block.label_source.error("Invalid name; name requires matrix")
        return [namespace.scope]
    matrix = _value(matrix_attr, namespace.scope, namespace)
    if not isinstance(matrix, dict):
        raise block.label_source.error("Invalid name; matrix must be a map of lists")
    combos: list[dict[str, Value]] = [{}]
    for key, axis in matrix.items():
        if not isinstance(axis, list):
            raise block.label_source.error(f"Invalid name; matrix values must be a list "
                                           f"({key!r} is not)")
        combos = [{**combo, key: item} for item in axis for combo in combos]
    return [namespace.scope.child(combo) for combo in combos]


def target_name(block: BlockDecl, scope: Scope, namespace: Namespace) -> str:
    """A target block's name in one matrix cell (its label, or its ``name`` attribute)."""
    name = block.label
    check_name(name, block.label_source)
    name_attr = block.attributes.get("name")
    if name_attr is not None:
        name = _string(name_attr, _value(name_attr, scope, namespace))
        check_name(name, block.label_source)
    return name


def _target(block: BlockDecl, scope: Scope, namespace: Namespace) -> Target:
    target = Target(target_name(block, scope, namespace))
    for attr in block.attributes.values():
        if attr.name in ("name", "matrix") or attr.name not in KINDS:
            continue
        value = _value(attr, scope, namespace)
        if value is None and attr.name == "description":
            raise attr.value_error("Unsuitable value type; Unsuitable value: null value is "
                                   "not allowed")
        try:
            target.set_from_value(attr.name, value)
        except FieldError as exc:  # gohcl's decoding error
            raise attr.value_error(f"Unsuitable value type; Unsuitable value: {exc} (in "
                                   f"{attr.name})") from None
    return target


def _value(attr: AttributeDecl, scope: Scope, namespace: Namespace) -> Value:
    try:
        return namespace.evaluator(attr.source.file).eval(attr.expression, scope)
    except HCLError as exc:  # raised where no position is known: at this attribute's value
        if exc.file is None:
            raise attr.value_error(exc.message) from None
        raise


def _string(attr: AttributeDecl, value: Value) -> str:
    try:
        return values.to_string(value)
    except ConversionError as exc:
        raise attr.value_error(f"Unsuitable value type; Unsuitable value: {exc} (in "
                               f"{attr.name})") from None


def _strings(attr: AttributeDecl, items: list[Value]) -> list[str]:
    return [_string(attr, item) for item in items]
