"""Structured attribute entries (cache-from/cache-to, output, secret, ssh, attest): parsed from
buildx's CSV form or from HCL objects, printed as objects with sorted keys."""

from __future__ import annotations

from rocm_bake.bake import goparse
from rocm_bake.hcl import values
from rocm_bake.hcl.values import ConversionError, Value

Entry = dict[str, str]


class EntryError(ValueError):
    """An entry that buildx would reject."""


def parse_entries(field: str, value: Value) -> list[Entry]:
    """A list attribute of entries, each a CSV string or an object."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if item is None:
            continue
        entry = _from_object(item) if isinstance(item, dict) else _from_csv(field, item)
        out.append(_complete(field, entry))
    return out


def parse_csv_entry(field: str, text: str) -> Entry:
    """One entry from its CSV spelling (as given to ``--set``)."""
    return _complete(field, _from_csv(field, text))


def _from_object(item: dict[str, Value]) -> Entry:
    out = {}
    for key, val in item.items():
        if val is None:
            continue
        try:
            out[key] = values.to_string(val)
        except ConversionError as exc:
            raise EntryError(f"invalid value for {key!r}: {exc}") from None
    return out


def _from_csv(field: str, item: Value) -> Entry:
    try:
        text = values.to_string(item)
    except ConversionError as exc:
        raise EntryError(f"{field} entries must be strings or objects: {exc}") from None
    fields = goparse.parse_csv(text)
    if fields is None:
        raise EntryError(f"malformed {field} entry {text!r}")
    out: Entry = {}
    for part in fields:
        key, sep, val = part.partition("=")
        if not sep:
            out.update(_bare(field, part, len(fields)))
            continue
        out[key.strip().lower()] = val
    return out


def _bare(field: str, part: str, count: int) -> Entry:
    """A field written without ``key=``: buildx's shorthands."""
    if field in ("cache-from", "cache-to") and count == 1:
        return {"type": "registry", "ref": part}
    if field == "output" and count == 1:
        return {"type": "tar", "dest": "-"} if part == "-" else {"type": "local", "dest": part}
    if field == "ssh":
        return {"id": part}
    raise EntryError(f"invalid {field} entry field {part!r}: expected key=value")


def _complete(field: str, entry: Entry) -> Entry:
    if field in ("cache-from", "cache-to", "output", "attest") and not entry.get("type"):
        raise EntryError(f"{field} entry {entry} has no type")
    if field == "secret":
        entry.pop("type", None)  # buildx decides by the fields: env= is an env secret
        if "source" in entry:
            entry["src"] = entry.pop("source")
        if not entry.get("id"):
            raise EntryError(f"secret entry {entry} has no id")
    return dict(sorted(entry.items()))


def dedupe(entries: list[Entry]) -> list[Entry]:
    out: list[Entry] = []
    for entry in entries:
        if entry not in out:
            out.append(entry)
    return out
