"""The global names of a bake definition: variables (with environment overrides), top-level
attributes, builtins and user functions, resolved lazily and in any order, as buildx does."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal

from rocm_bake.core.errors import HCLError
from rocm_bake.model.bake import goparse
from rocm_bake.model.bake.declarations import Declarations, VariableDecl, user_function
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.evaluate import Evaluator, FunctionTable, Scope
from rocm_bake.model.hcl.types import ANY, Type, convert, typed_json
from rocm_bake.model.hcl.values import ConversionError, Value

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
        if self.value is not None and not values.is_nil(self.value):
            out["value"] = display(self.value, self.type)
        return out


def display(value: Value, declared: Type | None = None) -> str:
    """A value as buildx shows it in a listing: primitives bare, everything else as cty's JSON
    (``any``-typed parts carry their own type)."""
    if declared is not None and not declared.is_primitive:
        return typed_json(value, declared)
    if declared is not None and isinstance(value, Decimal) and not value.is_finite():
        return ""  # cty's JSON cannot marshal an infinity: buildx lists an empty value
    if declared is not None and declared.name == "string" and isinstance(value, str):
        # buildx marshals a typed string as JSON, then trims every leading/trailing quote
        return values.go_json_string(value).strip('"')
    if isinstance(value, list | dict):
        return values.to_json(value)
    return values.to_string(value)


def _go_type_name(type_: Type) -> str:
    """cty's FriendlyName of a type (``any`` is ``dynamic`` there)."""
    if type_.name == "any":
        return "dynamic"
    if type_.element is not None:
        return f"{type_.name} of {_go_type_name(type_.element)}"
    return type_.friendly_name()


def _json_type(data: object) -> Type:
    """A type from cty's JSON spelling of it (``"string"``, ``["list","number"]``...)."""
    if data == "dynamic":
        return ANY
    if isinstance(data, str) and data in ("string", "number", "bool"):
        return Type(data)
    if isinstance(data, list) and len(data) == 2:
        kind, inner = data
        if kind in ("list", "set", "map"):
            return Type(kind, _json_type(inner))
        if kind == "tuple" and isinstance(inner, list):
            return Type("tuple", elements=tuple(_json_type(t) for t in inner))
        if kind == "object" and isinstance(inner, dict):
            return Type("object", attributes=tuple(sorted(
                (str(k), _json_type(t)) for k, t in inner.items())))
    raise ConversionError(f"invalid type specification {json.dumps(data, default=str)}")


def unmarshal_json(data: object, type_: Type) -> Value:
    """cty's json.Unmarshal of decoded JSON into a type: where the type is ``any`` the JSON
    must be ``{"value": ..., "type": ...}``."""
    if type_.name == "any":
        if not isinstance(data, dict):
            raise ConversionError("missing expected {")
        if set(data) != {"value", "type"}:
            raise ConversionError("dynamic value must be an object with 'value' and 'type'")
        return unmarshal_json(data["value"], _json_type(data["type"]))
    if data is None:
        return None
    if type_.name in ("list", "set") and type_.element is not None:
        if not isinstance(data, list):
            raise ConversionError(f"expected a JSON array for {_go_type_name(type_)}")
        return convert([unmarshal_json(v, type_.element) for v in data], type_)
    if type_.name == "map" and type_.element is not None:
        if not isinstance(data, dict):
            raise ConversionError(f"expected a JSON object for {_go_type_name(type_)}")
        return {k: unmarshal_json(v, type_.element) for k, v in data.items()}
    if type_.name == "tuple":
        if not isinstance(data, list) or len(data) != len(type_.elements):
            raise ConversionError(f"expected a JSON array of {len(type_.elements)} elements")
        return [unmarshal_json(v, t) for v, t in zip(data, type_.elements, strict=True)]
    if type_.name == "object":
        attrs = dict(type_.attributes)
        if not isinstance(data, dict) or set(data) - set(attrs):
            raise ConversionError("expected a JSON object with the object type's attributes")
        return {k: unmarshal_json(data.get(k), t) for k, t in attrs.items()}
    return convert(values.from_json(data), type_)


class Functions(Mapping[str, Callable[[list[Value]], Value]]):
    """A bake file's own functions over the builtins, which are looked up, never copied (a
    copy would import every function family: see hcl.functions.registry)."""

    def __init__(self, builtins: FunctionTable) -> None:
        self.own: dict[str, Callable[[list[Value]], Value]] = {}
        self.builtins = builtins

    def __getitem__(self, name: str) -> Callable[[list[Value]], Value]:
        own = self.own.get(name)
        return own if own is not None else self.builtins[name]

    def __iter__(self) -> Iterator[str]:
        return iter({**self.builtins, **self.own})

    def __len__(self) -> int:
        return len({**self.builtins, **self.own})


class Namespace:
    """Resolves global names on demand; detects cycles; applies environment overrides."""

    def __init__(self, declared: Declarations, env: Mapping[str, str],
                 functions: FunctionTable) -> None:
        self.declared = declared
        self.env = env
        self.values: dict[str, Value] = {}
        self.in_progress: set[str] = set()
        self.scope = Scope(resolver=self.lookup)
        #: Typed variables with no default and no value from the environment.
        self.unset: set[str] = set()
        #: What ``target`` and ``group`` resolve to (set by the loader: bake.references).
        self.blocks: Callable[[str], Value] | None = None
        table = Functions(functions)
        for name, decl in declared.functions.items():
            table.own[name] = user_function(decl, self.scope, table)
        self.functions: FunctionTable = table

    def evaluator(self, filename: str) -> Evaluator:
        return Evaluator(filename, self.functions)

    # -- resolution -----------------------------------------------------------------------
    def resolve(self, name: str) -> Value:
        if name in self.values:
            return self.values[name]
        if name in self.in_progress:
            raise HCLError(f"Invalid expression; variable cycle not allowed for {name}")
        variable = self.declared.variables.get(name)
        attribute = self.declared.attributes.get(name)
        if attribute is None and variable is None and name not in BUILTINS:
            if name in ("target", "group") and self.blocks is not None:
                return self.blocks(name)
            raise KeyError(name)
        self.in_progress.add(name)
        try:
            value = self._compute(name, variable)
        finally:
            self.in_progress.discard(name)
        self.values[name] = value
        return value

    def lookup(self, name: str) -> Value:
        """A global name as an expression reads it. buildx (0.29.1) leaves a typed variable
        that has no default and no value as cty's NilVal (``values.NIL``): it compares and
        encodes as null, but no field or function argument accepts it."""
        value = self.resolve(name)
        return values.NIL if name in self.unset else value

    def _compute(self, name: str, variable: VariableDecl | None) -> Value:
        attribute = self.declared.attributes.get(name)
        if attribute is None and name in BUILTINS:
            return BUILTINS[name]
        if attribute is not None:
            value = self.evaluator(attribute.source.file).eval(attribute.expression, self.scope)
        elif variable is not None and variable.default is not None:
            value = self.evaluator(variable.source.file).eval(variable.default, self.scope)
            if variable.type is not None:  # buildx checks the default before any override
                try:
                    value = convert(value, variable.type)
                except ConversionError as exc:
                    raise _invalid(variable, f"invalid type {variable.type.friendly_name()} for "
                                   f"variable {name} default value: {exc}") from None
        else:
            value = None if variable is not None and variable.type is not None else ""
        if variable is None:
            return value
        overridden = self._override(variable, value)
        if (variable.type is not None and not variable.has_default and attribute is None
                and self._env_value(name, favor_json=True) is None):
            self.unset.add(name)
        value = overridden
        if variable.type is not None:
            try:
                value = convert(value, variable.type)
            except ConversionError as exc:
                raise _invalid(variable, f"invalid value for variable {name} (type "
                               f"{variable.type.friendly_name()}): {exc}") from None
        return value

    def _override(self, variable: VariableDecl, value: Value) -> Value:
        """The environment's value for a variable, as buildx's resolveValue picks it: a typed
        variable favours ``NAME_JSON``; an untyped one reads ``NAME_JSON`` only without
        ``NAME`` (and then as plain text)."""
        found = self._env_value(variable.name, favor_json=variable.type is not None)
        if found is None:
            return value
        text, from_json = found
        type_ = variable.type
        if type_ is not None and from_json:
            return self._from_json(variable, type_, text)
        if type_ is not None and type_.name in ("list", "set", "tuple", "map"):
            return self._csv_from_env(variable, type_, text)
        if type_ is not None and type_.is_primitive:
            return self._primitive_from_env(variable, type_.name, text)
        if type_ is not None:
            raise _invalid(variable, f"unsupported type {_go_type_name(type_)} for variable "
                           f"{variable.name}: set it from the environment as typed JSON with "
                           f"{variable.name}_JSON")
        return self._untyped_from_env(variable, value, text)

    def _env_value(self, name: str, favor_json: bool) -> tuple[str, bool] | None:
        """(text, is it NAME_JSON) from the environment, or None."""
        found = (self.env[name], False) if name in self.env else None
        if found is None or favor_json:
            json_name = f"{name}_JSON"
            shadowed = json_name in self.declared.variables or json_name in BUILTINS
            if not shadowed and json_name in self.env:
                found = (self.env[json_name], True)
        return found

    def _from_json(self, variable: VariableDecl, type_: Type, text: str) -> Value:
        try:
            return unmarshal_json(json.loads(text, parse_float=Decimal, parse_int=Decimal),
                                  type_)
        except (json.JSONDecodeError, ConversionError) as exc:
            raise _invalid(variable, f"failed to convert variable {variable.name} from JSON: "
                           f"{exc}") from None

    def _csv_from_env(self, variable: VariableDecl, type_: Type, text: str) -> Value:
        fields = goparse.parse_csv(text)
        if fields is None:
            raise _invalid(variable, f"failed to convert variable {variable.name} from CSV: "
                           f"failed to parse {text} as CSV: it is not a comma-separated list")
        elements = ([*type_.elements] if type_.name == "tuple"
                    else [type_.element] if type_.element is not None else [])
        if not all(e.is_primitive for e in elements):
            raise _invalid(variable, f"failed to convert variable {variable.name} from CSV: "
                           f"unsupported type {_go_type_name(type_)} for CSV specification")
        if type_.name == "map":
            return self._map_from_env(variable, type_.element.name if type_.element else "",
                                      fields, text)
        if type_.name == "tuple":
            if len(fields) != len(elements):
                raise _invalid(variable, f"failed to convert variable {variable.name} from CSV: "
                               f"{_go_type_name(type_)} expects {len(elements)} elements but "
                               f"only {len(fields)} provided")
            return [self._primitive_from_env(variable, e.name, f)
                    for e, f in zip(elements, fields, strict=True)]
        return [self._primitive_from_env(variable, elements[0].name, f) for f in fields]

    def _map_from_env(self, variable: VariableDecl, kind: str, fields: list[str],
                      text: str) -> Value:
        out: dict[str, Value] = {}
        for item in fields:
            pieces = goparse.parse_csv(item, ":")
            if pieces is None or len(pieces) != 2:
                raise self._env_error(variable, text, "a comma-separated list of key:value "
                                      "pairs")
            out[pieces[0]] = self._primitive_from_env(variable, kind, pieces[1])
        return out

    def _primitive_from_env(self, variable: VariableDecl, kind: str, text: str) -> Value:
        if kind == "bool":
            parsed_bool = goparse.parse_bool(text)
            if parsed_bool is None:
                raise _unparsed(variable, text, "bool")
            return parsed_bool
        if kind == "number":
            parsed = goparse.parse_float(text)
            if parsed is None:
                raise _unparsed(variable, text, "number")
            return parsed
        return text

    def _untyped_from_env(self, variable: VariableDecl, default: Value, text: str) -> Value:
        if isinstance(default, bool):
            return self._primitive_from_env(variable, "bool", text)
        if isinstance(default, Decimal):
            return self._primitive_from_env(variable, "number", text)
        if default is None or isinstance(default, str):
            return text
        raise _invalid(variable, f"unsupported type {values.kind(default)} for variable "
                       f"{variable.name}: an untyped variable with this default cannot be set "
                       "from the environment (declare its type to allow that)")

    def _env_error(self, variable: VariableDecl, text: str, what: str) -> HCLError:
        return _invalid(variable, f"failed to parse {variable.name} from the environment: "
                        f"{text!r} is not {what}")

    # -- after resolution -----------------------------------------------------------------
    def resolve_variables(self) -> None:
        """buildx's first phase: every variable (and what it needs), before any block exists."""
        for name in self.declared.variables:
            self.resolve(name)

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
                    raise check.source.error(
                        f"Invalid condition result; invalid condition result value: {exc}"
                    ) from None
                if not passed:
                    message: Value = f"the validation condition of {variable.name} is false"
                    if check.error_message is not None:
                        message = evaluator.eval(check.error_message, self.scope)
                    raise check.source.error(f"Validation failed; {values.to_string(message)}")

    def description(self, variable: VariableDecl) -> str | None:
        if variable.description is None:
            return None
        value = self.evaluator(variable.source.file).eval(variable.description, Scope())
        return values.to_string(value)

    def listing(self) -> list[VariableInfo]:
        return [VariableInfo(name, self.resolve(name), decl.type, self.description(decl))
                for name, decl in sorted(self.declared.variables.items())]


def _invalid(variable: VariableDecl, detail: str) -> HCLError:
    """buildx's error for a variable whose value it cannot make: ``Invalid value`` at the
    variable's body."""
    return variable.body.error(f"Invalid value; {detail}")


def _unparsed(variable: VariableDecl, text: str, kind: str) -> HCLError:
    """An environment value that is not a ``kind`` (number, bool), as buildx words it."""
    return _invalid(variable, f"failed to parse {variable.name} as {kind}: {text!r} is not a "
                              f"{kind}")
