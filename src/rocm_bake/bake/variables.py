"""The global names of a bake definition: variables (with environment overrides), top-level
attributes, builtins and user functions, resolved lazily and in any order, as buildx does."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from rocm_bake.bake import goparse
from rocm_bake.bake.declarations import Declarations, VariableDecl, user_function
from rocm_bake.errors import HCLError
from rocm_bake.hcl import values
from rocm_bake.hcl.evaluate import Evaluator, FunctionTable, Scope
from rocm_bake.hcl.types import Type, convert, typed_json
from rocm_bake.hcl.values import ConversionError, Value

BUILTINS = {"BAKE_CMD_CONTEXT": "cwd://", "BAKE_LOCAL_PLATFORM": "linux/amd64"}


@dataclass(frozen=True)
class VariableInfo:
    """One record of ``--list=variables``: what a variable is and the value in effect."""

    name: str
    value: Value
    type: Type | None
    description: str | None

    def record(self) -> dict[str, str]:
        out = {"name": self.name}
        if self.description:
            out["description"] = self.description
        if self.type is not None:
            out["type"] = self.type.friendly_name()
        if self.value is not None:
            out["value"] = display(self.value, self.type)
        return out


def display(value: Value, declared: Type | None = None) -> str:
    """A value as buildx shows it in a listing: primitives bare, everything else as cty's JSON
    (``any``-typed parts carry their own type)."""
    if declared is not None and not declared.is_primitive:
        return typed_json(value, declared)
    if isinstance(value, list | dict):
        return values.to_json(value)
    return values.to_string(value)


class Namespace:
    """Resolves global names on demand; detects cycles; applies environment overrides."""

    def __init__(self, declared: Declarations, env: Mapping[str, str],
                 functions: FunctionTable) -> None:
        self.declared = declared
        self.env = env
        self.values: dict[str, Value] = {}
        self.in_progress: set[str] = set()
        self.scope = Scope(resolver=self.resolve)
        table: dict[str, Callable[[list[Value]], Value]] = dict(functions)
        for name, decl in declared.functions.items():
            table[name] = user_function(decl, self.scope, table)
        self.functions: FunctionTable = table

    def evaluator(self, filename: str) -> Evaluator:
        return Evaluator(filename, self.functions)

    # -- resolution -----------------------------------------------------------------------
    def resolve(self, name: str) -> Value:
        if name in self.values:
            return self.values[name]
        if name in self.in_progress:
            raise HCLError(f"variable cycle not allowed for {name}")
        variable = self.declared.variables.get(name)
        attribute = self.declared.attributes.get(name)
        if attribute is None and variable is None and name not in BUILTINS:
            if name in ("target", "group"):
                raise KeyError(name, f"references to other blocks ({name}.NAME.FIELD) are not "
                                     "supported: use a variable or top-level attribute instead")
            raise KeyError(name)
        self.in_progress.add(name)
        try:
            value = self._compute(name, variable)
        finally:
            self.in_progress.discard(name)
        self.values[name] = value
        return value

    def _compute(self, name: str, variable: VariableDecl | None) -> Value:
        attribute = self.declared.attributes.get(name)
        if attribute is None and name in BUILTINS:
            return BUILTINS[name]
        if attribute is not None:
            value = self.evaluator(attribute.source.file).eval(attribute.expression, self.scope)
        elif variable is not None and variable.default is not None:
            value = self.evaluator(variable.source.file).eval(variable.default, self.scope)
        else:
            value = None if variable is not None and variable.type is not None else ""
        if variable is None:
            return value
        value = self._override(variable, value)
        if variable.type is not None:
            try:
                value = convert(value, variable.type)
            except ConversionError as exc:
                raise variable.source.error(
                    f"invalid value for variable {name} (type "
                    f"{variable.type.friendly_name()}): {exc}") from None
        return value

    def _override(self, variable: VariableDecl, value: Value) -> Value:
        name = variable.name
        if variable.type is not None and f"{name}_JSON" in self.env:
            return self._from_json(variable, self.env[f"{name}_JSON"])
        if name not in self.env:
            return value
        text = self.env[name]
        if variable.type is not None:
            return self._typed_from_env(variable, variable.type, text)
        return self._untyped_from_env(variable, value, text)

    def _from_json(self, variable: VariableDecl, text: str) -> Value:
        try:
            return values.loads_json(text)
        except (json.JSONDecodeError, ConversionError) as exc:
            raise variable.source.error(
                f"invalid value for variable {variable.name}: {variable.name}_JSON is not "
                f"valid JSON ({exc})") from None

    def _typed_from_env(self, variable: VariableDecl, type_: Type, text: str) -> Value:
        if type_.is_primitive or type_.name == "any":
            return self._primitive_from_env(variable, type_.name, text)
        element = type_.element
        if type_.name in ("list", "set") and element is not None and element.is_primitive:
            fields = goparse.parse_csv(text)
            if fields is None:
                raise self._env_error(variable, text, "a comma-separated list")
            return [self._primitive_from_env(variable, element.name, f) for f in fields]
        if type_.name == "map" and element is not None and element.is_primitive:
            return self._map_from_env(variable, element.name, text)
        raise variable.source.error(
            f"variable {variable.name} has type {type_.friendly_name()}: set it from the "
            f"environment as JSON with {variable.name}_JSON")

    def _map_from_env(self, variable: VariableDecl, kind: str, text: str) -> Value:
        fields = goparse.parse_csv(text)
        if fields is None:
            raise self._env_error(variable, text, "a comma-separated list of key:value pairs")
        out: dict[str, Value] = {}
        for item in fields:
            pieces = item.split(":")
            if len(pieces) != 2:
                raise self._env_error(variable, text, "a comma-separated list of key:value pairs")
            out[pieces[0]] = self._primitive_from_env(variable, kind, pieces[1])
        return out

    def _primitive_from_env(self, variable: VariableDecl, kind: str, text: str) -> Value:
        if kind == "bool":
            parsed_bool = goparse.parse_bool(text)
            if parsed_bool is None:
                raise self._env_error(variable, text, "a bool")
            return parsed_bool
        if kind == "number":
            parsed = goparse.parse_float(text)
            if parsed is None:
                raise self._env_error(variable, text, "a number")
            return parsed
        return text

    def _untyped_from_env(self, variable: VariableDecl, default: Value, text: str) -> Value:
        if isinstance(default, bool):
            return self._primitive_from_env(variable, "bool", text)
        if isinstance(default, Decimal):
            return self._primitive_from_env(variable, "number", text)
        if default is None or isinstance(default, str):
            return text
        raise variable.source.error(
            f"variable {variable.name} has a {values.kind(default)} default and no type: it "
            "cannot be set from the environment (declare its type to allow that)")

    def _env_error(self, variable: VariableDecl, text: str, what: str) -> HCLError:
        return variable.source.error(
            f"invalid value for variable {variable.name} from the environment: "
            f"{text!r} is not {what}")

    # -- after resolution -----------------------------------------------------------------
    def resolve_all(self) -> None:
        for name in [*self.declared.attributes, *self.declared.variables]:
            self.resolve(name)

    def validate(self) -> None:
        """Run every ``validation`` block; the first failing one is an error at its line."""
        for variable in self.declared.variables.values():
            evaluator = self.evaluator(variable.source.file)
            for check in variable.validations:
                condition = evaluator.eval(check.condition, self.scope)
                try:
                    passed = values.to_bool(condition)
                except ConversionError as exc:
                    raise check.source.error(f"invalid validation condition: {exc}") from None
                if not passed:
                    message: Value = "its validation condition is false"
                    if check.error_message is not None:
                        message = evaluator.eval(check.error_message, self.scope)
                    raise check.source.error(
                        f"validation failed for variable {variable.name}: "
                        f"{values.to_string(message)}")

    def description(self, variable: VariableDecl) -> str | None:
        if variable.description is None:
            return None
        value = self.evaluator(variable.source.file).eval(variable.description, Scope())
        return values.to_string(value)

    def listing(self) -> list[VariableInfo]:
        return [VariableInfo(name, self.resolve(name), decl.type, self.description(decl))
                for name, decl in sorted(self.declared.variables.items())]
