"""A build target as buildx models it: its fields, how targets merge (files, ``inherits``),
how ``--set`` overrides apply, and the JSON ``--print`` writes."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from rocm_bake.core.errors import UsageError
from rocm_bake.model.bake import entries, goparse
from rocm_bake.model.bake.entries import Entry, EntryError, parse_entries
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.values import ConversionError, Value

# (name, kind) in the order buildx prints them.
FIELDS: tuple[tuple[str, str], ...] = (
    ("description", "string"),
    ("annotations", "list"),
    ("attest", "entries"),
    ("context", "string"),
    ("contexts", "smap"),
    ("dockerfile", "string"),
    ("dockerfile-inline", "string"),
    ("args", "nmap"),
    ("labels", "nmap"),
    ("tags", "list"),
    ("cache-from", "entries"),
    ("cache-to", "entries"),
    ("target", "string"),
    ("secret", "entries"),
    ("ssh", "entries"),
    ("platforms", "list"),
    ("output", "entries"),
    ("pull", "bool"),
    ("no-cache", "bool"),
    ("network", "string"),
    ("no-cache-filter", "list"),
    ("shm-size", "string"),
    ("ulimits", "list"),
    ("call", "string"),
    ("entitlements", "list"),
    ("extra-hosts", "nmap"),
)
KINDS = dict(FIELDS) | {"inherits": "list"}
_REPLACED_LISTS = {"tags", "platforms", "cache-to", "output"}
#: What ``--print`` escapes so that the printed file reads back as the same values.
_ESCAPED = {"annotations", "dockerfile-inline", "labels", "args", "extra-hosts"}
#: ``--set`` keys that may take ``+=`` (buildx keeps their values as a list).
ARRAY_KEYS = ("output", "cache-to", "cache-from", "tags", "platform", "secrets", "ssh", "attest",
              "entitlements", "network", "annotations")


class FieldError(ValueError):
    """A target attribute whose value does not fit its field."""


@dataclass
class Target:
    """One target's fields; a field that is absent is unset (buildx's nil)."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    linked: bool = False

    @property
    def inherits(self) -> list[str]:
        return list(self.fields.get("inherits", []))

    def get(self, name: str) -> Any:
        return self.fields.get(name)

    # -- decoding -------------------------------------------------------------------------
    def set_from_value(self, name: str, value: Value) -> None:
        """Set a field from an evaluated HCL value (raises FieldError when it does not fit)."""
        if value is None:
            return
        kind = KINDS[name]
        try:
            self.fields[name] = decode(kind, name, value)
        except (ConversionError, EntryError) as exc:
            raise FieldError(str(exc)) from None

    # -- merging --------------------------------------------------------------------------
    def merge(self, other: Target) -> None:
        """Merge another definition of the same target into this one (buildx's Target.Merge)."""
        for name, value in other.fields.items():
            kind = KINDS[name]
            if name == "description" and value == "":
                continue
            if kind == "nmap":
                merged = dict(self.fields.get(name) or {})
                merged.update({k: v for k, v in value.items() if v is not None})
                self.fields[name] = merged
            elif kind == "smap":
                self.fields[name] = {**(self.fields.get(name) or {}), **value}
            elif kind == "entries" and name not in _REPLACED_LISTS:
                self.fields[name] = entries.merge(name, self.fields.get(name), value)
            elif kind == "list" and name not in _REPLACED_LISTS:
                self.fields[name] = [*(self.fields.get(name) or []), *value]
            else:
                self.fields[name] = value

    def normalize(self) -> None:
        for name, kind in FIELDS:
            if name not in self.fields or name == "entitlements":
                continue
            if kind == "list":
                self.fields[name] = _dedupe_strings(self.fields[name])
            elif kind == "entries":  # buildx's Normalize makes an empty list nil (unset)
                normalized = entries.normalize(name, self.fields[name])
                if normalized:
                    self.fields[name] = normalized
                else:
                    del self.fields[name]
        if self.fields.get("network") == "host":
            self.fields["entitlements"] = [*(self.fields.get("entitlements") or []),
                                           "network.host"]
        if "entitlements" in self.fields:
            self.fields["entitlements"] = _dedupe_strings(self.fields["entitlements"])
        contexts = {k: v for k, v in (self.fields.get("contexts") or {}).items() if v != ""}
        if contexts:
            self.fields["contexts"] = contexts
        else:
            self.fields.pop("contexts", None)

    # -- overrides (--set) -----------------------------------------------------------------
    def apply_override(self, key: str, value: str, array: list[str], append: bool = False) -> None:
        """One ``--set`` key, as buildx's AddOverrides applies it: ``+=`` appends (merges, for
        entries) where buildx allows it; list keys outside ARRAY_KEYS get no values at all."""
        field_name, dot, sub = key.partition(".")
        if field_name in ("args", "labels", "contexts", "extra-hosts"):
            if not dot:  # ``args.`` names the empty key, as in buildx
                raise UsageError(f"invalid format for {field_name}, expecting "
                                 f"{field_name}.<name>=<value>")
            self.fields[field_name] = {**(self.fields.get(field_name) or {}), sub: value}
        elif field_name in ("context", "dockerfile", "target", "call", "shm-size", "network"):
            self.fields[field_name] = value
        elif field_name in ("tags", "platform", "no-cache-filter", "ulimits"):
            name = "platforms" if field_name == "platform" else field_name
            old = self.fields.get(name) or []
            self.fields[name] = [*old, *array] if append else list(array)
        elif field_name in ("annotations", "entitlements"):
            self.fields[field_name] = [*(self.fields.get(field_name) or []), *array]
        elif field_name in ("cache-from", "cache-to", "output", "secrets", "ssh", "attest"):
            name = "secret" if field_name == "secrets" else field_name
            parsed = [e for v in array for e in _entries(name, v)]
            if append or name == "attest":
                self.fields[name] = entries.merge(name, self.fields.get(name), parsed)
            else:
                self.fields[name] = parsed
        elif field_name in ("no-cache", "pull", "push", "load"):
            self._apply_bool(field_name, value)
        else:
            raise UsageError(f"unknown key: {field_name}")

    def _apply_bool(self, name: str, text: str) -> None:
        flag = goparse.parse_bool(text)
        if flag is None:
            raise UsageError(f"invalid value {text} for boolean key {name}")
        if name == "push":
            self.fields["output"] = _push(self.fields.get("output") or [], flag)
        elif name == "load":
            self.fields["output"] = _load(self.fields.get("output") or [], flag)
        else:
            self.fields[name] = flag

    # -- printing -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, kind in FIELDS:
            if name not in self.fields:
                continue
            value = self.fields[name]
            if kind in ("list", "entries", "smap", "nmap") and not value:
                continue
            if name == "description" and not value:
                continue
            if name == "context":
                value = clean_context(value)
            if kind in ("smap", "nmap"):
                value = {k: v for k, v in sorted(value.items()) if v is not None}
            if name in _ESCAPED:
                value = escape(value)
            out[name] = value
        return out


def escape(value: Any) -> Any:
    """``--print`` spells ``${`` and ``%{`` in args, labels, annotations, extra-hosts and
    dockerfile-inline as ``$${`` and ``%%{`` (and nothing else)."""
    if isinstance(value, str):
        return value.replace("${", "$${").replace("%{", "%%{")
    if isinstance(value, dict):
        return {k: escape(v) for k, v in value.items()}
    return [escape(v) for v in value]


def clean_context(path: str) -> str:
    """buildx cleans a local context path (``./a/`` -> ``a``); URLs and cwd:// stay as written."""
    if path.startswith("cwd://") or "://" in path or path.startswith("git@"):
        return path
    return posixpath.normpath(path)


def decode(kind: str, name: str, value: Value) -> Any:
    if kind == "string":
        return values.to_string(value)
    if kind == "bool":
        return values.to_bool(value)
    if kind == "list":
        if not isinstance(value, list):
            raise FieldError(f"{name} must be a list of strings, not {values.kind(value)}")
        return [values.to_string(v) for v in value]
    if kind in ("smap", "nmap"):
        if not isinstance(value, dict):
            raise FieldError(f"{name} must be a map, not {values.kind(value)}")
        if kind == "smap":
            if any(v is None for v in value.values()):
                raise FieldError("null value is not allowed")
            return {k: values.to_string(v) for k, v in value.items()}
        return {k: None if v is None else values.to_string(v) for k, v in value.items()}
    return parse_entries(name, value)


def _entries(name: str, text: str) -> list[Entry]:
    """A ``--set`` value of an entry field. buildx words a bad one without the field for the
    cache fields and as ``invalid value for outputs`` for output, ssh and (wrongly) secrets;
    the model says the field it means."""
    try:
        return entries.parse_text(name, text)
    except EntryError as exc:
        if name in ("cache-from", "cache-to"):
            raise UsageError(f"{exc} ({name})") from None
        raise UsageError(f"invalid value for {'outputs' if name == 'output' else name}: "
                         f"{exc}") from None


def _dedupe_strings(items: list[str]) -> list[str]:
    """buildx's removeDupesStr: first occurrence kept, empty strings dropped."""
    return [item for item in dict.fromkeys(items) if item != ""]


def _push(outputs: list[Entry], push: bool) -> list[Entry]:
    """buildx's setPushOverride (registry outputs dropped by swapping in the last one)."""
    flag = "true" if push else "false"
    result = [dict(sorted({**o, "push": flag}.items())) if o.get("type") == "image" else dict(o)
              for o in outputs]
    if not push:
        i = 0
        while i < len(result):
            if result[i].get("type") == "registry":
                result[i], result[-1] = result[-1], result[i]
                result.pop()
                continue
            i += 1
        return result
    if all(o.get("type") == "docker" for o in result):
        result.append({"push": flag, "type": "image"})
    return result


def _load(outputs: list[Entry], load: bool) -> list[Entry]:
    """buildx's setLoadOverride: ``load=false`` changes nothing; ``load=true`` adds a docker
    output unless one without a dest exists or another kind of output is there."""
    if not load:
        return outputs
    for output in outputs:
        kind = output.get("type")
        if kind == "docker" and not output.get("dest"):
            return outputs
        if kind not in ("docker", "image", "registry", "oci"):
            return outputs
    return [*outputs, {"type": "docker"}]
