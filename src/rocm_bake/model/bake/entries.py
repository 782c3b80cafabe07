"""Structured attribute entries (cache-from/cache-to, output, secret, ssh, attest): parsed from
buildx's CSV form (an HCL string or a ``--set`` value) or from HCL objects, printed as objects.

Each field has its own text form, as buildx's ``buildflags`` reads it: a cache value without any
``=`` is a comma-separated list of registry refs, an output without ``type=`` is a local path,
an ssh value is ``ID[=PATH,PATH...]``. Empty strings are skipped.
"""

from __future__ import annotations

from typing import Any

from rocm_bake.model.bake import goparse
from rocm_bake.model.hcl import values
from rocm_bake.model.hcl.values import ConversionError, Value

Entry = dict[str, Any]

#: Fields whose entries replace one another by a key (buildx keeps the first one's place).
KEYED = {"attest": "type", "secret": "id", "ssh": "id"}


class EntryError(ValueError):
    """An entry that buildx would reject."""


def parse_entries(field: str, value: Value) -> list[Entry]:
    """A list attribute of entries, each a CSV string or an object (null and "" are skipped)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise EntryError(f"{field} must be a list, not {values.kind(value)}")
    out: list[Entry] = []
    for item in value:
        if item is None or item == "":
            continue
        if isinstance(item, dict):
            out.append(_from_object(field, item))
        else:
            out.extend(parse_text(field, _text(field, item)))
    return out


def parse_text(field: str, text: str) -> list[Entry]:
    """The entries one CSV string stands for (``--set`` values and HCL strings alike)."""
    if text == "":
        return []
    if field in ("cache-from", "cache-to"):
        if "=" not in text:
            return [_cache(f) for f in _csv(field, text)]
        return [_cache(text)]
    parser = {"output": _output, "secret": _secret, "ssh": _ssh, "attest": _attest}[field]
    return [parser(text)]


def _text(field: str, item: Value) -> str:
    try:
        return values.to_string(item)
    except ConversionError as exc:
        raise EntryError(f"{field} entries must be strings or objects: {exc}") from None


def _csv(field: str, text: str) -> list[str]:
    fields = goparse.parse_csv(text)
    if fields is None:
        raise EntryError(f"malformed {field} entry {text!r}")
    return fields


def _pairs(field: str, text: str, lower: bool = True) -> list[tuple[str, str, str]]:
    """(key as matched, key as written, value) of each ``key=value`` field."""
    out = []
    for part in _csv(field, text):
        key, sep, val = part.partition("=")
        if not sep:
            raise EntryError(f"invalid value {part}")
        out.append((key.strip().lower() if lower else key, key, val))
    return out


def _cache(text: str) -> Entry:
    fields = _csv("cache", text)
    if len(fields) == 1 and "=" not in fields[0]:
        return {"ref": fields[0], "type": "registry"}
    entry: Entry = {}
    kind = ""
    for part in fields:
        key, sep, val = part.partition("=")
        if not sep:
            raise EntryError(f"invalid value {part}")
        if key.lower() == "type":
            kind = val
        else:
            entry[key.lower()] = val
    if not kind:
        raise EntryError(f"type required form> {values.go_quote(text)}")
    return _sorted({**entry, "type": kind})


def _output(text: str) -> Entry:
    fields = _csv("output", text)
    if len(fields) == 1 and fields[0] == text and not text.startswith("type="):
        return {"dest": text, "type": "tar" if text == "-" else "local"}
    entry: Entry = {}
    kind, dest = "", ""
    for key, _, val in _pairs("output", text):
        if key == "type":
            kind = val
        elif key == "dest":
            dest = val
        else:
            entry[key] = val
    if not kind:
        raise EntryError("type is required for output")
    return _sorted({**entry, "type": kind, **({"dest": dest} if dest else {})})


def _secret(text: str) -> Entry:
    kind, ident, src, env = "", "", "", ""
    for key, _, val in _pairs("secret", text, lower=False):
        match key.lower():
            case "type":
                if val not in ("file", "env"):
                    raise EntryError(f"unsupported secret type {val!r}")
                kind = val
            case "id":
                ident = val
            case "source" | "src":
                src = val
            case "env":
                env = val
            case other:
                raise EntryError(f"unexpected key {other!r} in secret {text!r}")
    if kind == "env" and not env:
        env, src = src, ""
    return _secret_entry(ident, src, env)


def _secret_entry(ident: str, src: str, env: str) -> Entry:
    entry = {"id": ident, "src": src, "env": env}
    return {k: v for k, v in sorted(entry.items()) if v}


def _ssh(text: str) -> Entry:
    ident, sep, paths = text.partition("=")
    return {"id": ident, "paths": paths.split(",")} if sep else {"id": ident}


def _attest(text: str) -> Entry:
    entry: Entry = {}
    for key, written, val in _pairs("attest", text):
        if key == "type":
            entry["type"] = val
        elif key == "disabled":
            flag = goparse.parse_bool(val)
            if flag is None:
                raise EntryError(f"invalid value disabled={val}")
            entry.pop("disabled", None)
            if flag:
                entry["disabled"] = True
        else:
            entry[written] = val
    if not entry.get("type"):
        raise EntryError(f"attestation type not specified in {text!r}")
    return _sorted(entry)


def _from_object(field: str, item: dict[str, Value]) -> Entry:
    strings: dict[str, str] = {}
    for key, val in item.items():
        if val is None:
            continue
        try:
            strings[key] = values.to_string(val)
        except ConversionError as exc:
            raise EntryError(f"invalid value for {key!r}: {exc}") from None
    if field == "secret":
        return _secret_entry(strings.get("id", ""), strings.get("src", ""),
                             strings.get("env", ""))
    if field == "ssh":
        return _ssh_object(item)
    if field in ("cache-from", "cache-to", "output", "attest") and not strings.get("type"):
        raise EntryError(f"type required form> {values.to_json(item)!r}")
    if field == "attest" and "disabled" in strings:
        flag = goparse.parse_bool(strings.pop("disabled"))
        if flag:
            strings["disabled"] = True  # type: ignore[assignment]
    return _sorted(strings)


def _ssh_object(item: dict[str, Value]) -> Entry:
    entry: Entry = {}
    if item.get("id") is not None:
        entry["id"] = values.to_string(item["id"])
    paths = item.get("paths")
    if isinstance(paths, list) and paths:
        entry["paths"] = [values.to_string(p) for p in paths]
    return entry


def _sorted(entry: Entry) -> Entry:
    return dict(sorted(entry.items()))


def normalize(field: str, entries: list[Entry]) -> list[Entry]:
    """buildx's Normalize: keyed fields keep the first place and the last value of a key;
    the others drop duplicates by swapping the last entry into their place."""
    key = KEYED.get(field)
    if key is not None:
        out: list[Entry] = []
        index: dict[Any, int] = {}
        for entry in entries:
            ident = entry.get(key, "")
            if ident in index:
                out[index[ident]] = entry
            else:
                index[ident] = len(out)
                out.append(entry)
        return out
    return remove_dupes(entries)


def remove_dupes(items: list[Entry]) -> list[Entry]:
    out = list(items)
    for i in range(len(out) - 2, -1, -1):
        for j in range(i + 1, len(out)):
            if out[i] == out[j]:
                out[j], out[-1] = out[-1], out[j]
                out.pop()
                break
    return out


def merge(field: str, old: list[Entry] | None, new: list[Entry] | None) -> list[Entry]:
    """buildx's ``Merge`` of two entry lists: append, then normalize."""
    return normalize(field, [*(old or []), *(new or [])])
