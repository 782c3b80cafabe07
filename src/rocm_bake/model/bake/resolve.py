"""From a Config and the names asked for to the build plan ``docker buildx bake --print`` shows:
groups, ``inherits``, ``--set`` overrides, ``--push`` and ``target:`` links."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rocm_bake.core.errors import UsageError
from rocm_bake.model.bake import buildopts
from rocm_bake.model.bake.blocks import Config, Group
from rocm_bake.model.bake.target import ARRAY_KEYS, Target
from rocm_bake.model.hcl.values import go_quote


@dataclass
class Override:
    """What the ``--set`` values for one target and key add up to (buildx's Override)."""

    value: str = ""
    array: list[str] = field(default_factory=list)
    append: bool = False


Overrides = dict[str, dict[str, Override]]


@dataclass
class Plan:
    """The resolved targets and the groups they were reached through."""

    groups: dict[str, Group]
    targets: dict[str, Target]

    def to_json(self) -> dict[str, Any]:
        groups: dict[str, Any] = {}
        for name in sorted(self.groups):
            group = self.groups[name]
            entry: dict[str, Any] = {}
            if group.description:
                entry["description"] = group.description
            entry["targets"] = None if group.null_targets else group.targets
            groups[name] = entry
        targets = {name: self.targets[name].to_json() for name in sorted(self.targets)}
        return {"group": groups, "target": targets}

    def links(self, name: str) -> list[str]:
        """The targets a target depends on through ``target:`` contexts."""
        contexts = self.targets[name].get("contexts") or {}
        return [v.removeprefix("target:") for v in contexts.values() if v.startswith("target:")]


def resolve(config: Config, requested: Sequence[str], overrides: Sequence[str] = (),
            env: Mapping[str, str] | None = None) -> Plan:
    """Resolve the requested targets/groups the way buildx's ReadTargets does."""
    names = [n.replace(".", "_") for n in requested] or ["default"]
    names = list(dict.fromkeys(m for n in names for m in _match_names(config, n)))
    parsed = parse_overrides(config, overrides, env or {})
    targets: dict[str, Target] = {}
    groups: dict[str, Group] = {}
    for name in names:
        member_targets, member_groups = _expand_group(config, name)
        for target_name in member_targets:
            targets[target_name] = resolve_target(config, target_name, parsed)
        for group_name in member_groups:
            groups[group_name] = config.groups[group_name]
    _default_group(names, groups)
    for name in list(targets):
        _load_links(config, name, targets[name], targets, parsed, [])
    epoch = (env or {}).get("SOURCE_DATE_EPOCH", "")
    for target in targets.values():
        if epoch:
            _source_date_epoch(target, epoch)
        _check_local_sources(target, env or {})
        buildopts.check(target)
    return Plan(groups, targets)


def _source_date_epoch(target: Target, epoch: str) -> None:
    """buildx passes a non-empty SOURCE_DATE_EPOCH from its environment to every resolved
    target as a build arg, unless the target sets that arg itself."""
    args = target.fields.get("args") or {}
    if "SOURCE_DATE_EPOCH" not in args:
        target.fields["args"] = {**args, "SOURCE_DATE_EPOCH": epoch}


def _check_local_sources(target: Target, env: Mapping[str, str]) -> None:
    """buildx stats a file secret's source, and needs an SSH agent for ``ssh = ["default"]``,
    already when printing a plan."""
    for secret in target.get("secret") or []:
        if "env" not in secret:
            path = secret.get("src") or secret.get("id", "")
            if not os.path.exists(path):
                raise UsageError(f"failed to stat {path}: no such file or directory "
                                 f"(secret {secret['id']!r} of target {target.name})")
    for ssh in target.get("ssh") or []:
        _check_ssh(target.name, ssh, env)


def _check_ssh(name: str, ssh: dict[str, Any], env: Mapping[str, str]) -> None:
    """buildx loads every ssh entry when printing: its key files must exist, and one without
    paths needs the SSH agent (whatever its id). Whether a file holds a key, or the socket an
    agent, the model does not check. Worded as buildx words it, with its Go-printed entry."""
    paths = ssh.get("paths") or []
    ident = go_quote(ssh["id"])
    config = f"failed to convert agent config {{{ssh['id']} [{' '.join(paths)}] false}}"
    for path in paths:
        if not os.path.exists(path):
            raise UsageError(f"{config}: failed to convert agent config for ID: {ident}: stat "
                             f"{path}: no such file or directory (target {name})")
    socket = env.get("SSH_AUTH_SOCK", "")
    if not paths and not socket:
        raise UsageError(f"{config}: invalid empty ssh agent socket: make sure SSH_AUTH_SOCK "
                         f"is set (target {name})")
    if not paths and not os.path.exists(socket):
        raise UsageError(f"{config}: failed to convert agent config for ID: {ident}: stat "
                         f"{socket}: no such file or directory (target {name})")


def parse_overrides(config: Config, overrides: Sequence[str],
                    env: Mapping[str, str]) -> Overrides:
    """``--set`` values as buildx's newOverrides reads them: ``KEY+=V`` appends, a list key
    gathers its values, ``T.args.NAME`` without ``=`` takes NAME from the environment (and
    is dropped when the environment lacks it)."""
    out: Overrides = {}
    for item in overrides:
        lhs, has_value, value = item.partition("=")
        key = lhs.removesuffix("+")
        append = lhs.endswith("+")
        parts = key.split(".", 2)
        if len(parts) < 2:
            raise UsageError(f"invalid override key {key}, expected target.name")
        pattern, field_name = parts[0], parts[1]
        if not has_value and field_name != "args":
            raise UsageError(f"invalid override {item}, expected target.name=value")
        names = _expand_pattern(config, pattern)
        if field_name in ("args", "contexts") and len(parts) != 3:
            raise UsageError(f"invalid key {lhs}, {field_name} requires name")
        if field_name == "args" and not has_value:
            if parts[2] not in env:
                continue
            value = env[parts[2]]
        subkey = ".".join(parts[1:])
        for name in names:
            entry = out.setdefault(name, {}).setdefault(subkey, Override())
            if field_name in ARRAY_KEYS:
                entry.append = append
                entry.array.append(value)
            else:
                entry.value = value
    return out


def _match_names(config: Config, pattern: str) -> list[str]:
    """A requested name; with ``*?[]`` in it, the groups then targets it matches."""
    if not any(c in pattern for c in "*?[]"):
        return [pattern]
    names = []
    for name in [*config.groups, *config.targets]:
        try:
            if _match(pattern, name):
                names.append(name)
        except ValueError:
            continue
    if not names:
        raise UsageError(f'could not find any target matching "{pattern}"')
    return names


def _match(pattern: str, name: str) -> bool:
    """Go's ``path.Match`` (raises ValueError on a malformed pattern)."""
    return _go_pattern(pattern).fullmatch(name) is not None


def _go_pattern(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\":
            if i + 1 >= len(pattern):
                raise ValueError("syntax error in pattern")
            i += 1
            out.append(re.escape(pattern[i]))
        elif char == "[":
            i, klass = _go_class(pattern, i + 1)
            out.append(klass)
            continue
        elif char == "]":
            raise ValueError("syntax error in pattern")
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _go_class(pattern: str, i: int) -> tuple[int, str]:
    negate = i < len(pattern) and pattern[i] == "^"
    i += negate
    ranges: list[str] = []
    first = True
    while True:
        if i >= len(pattern):
            raise ValueError("syntax error in pattern")
        if pattern[i] == "]" and not first:
            break
        first = False
        i, low = _go_class_char(pattern, i)
        high = low
        if i < len(pattern) and pattern[i] == "-":
            i, high = _go_class_char(pattern, i + 1)
        if low > high:
            raise ValueError("syntax error in pattern")
        ranges.append(f"{re.escape(low)}-{re.escape(high)}")
    body = "".join(ranges)
    return i + 1, f"[^{body}]" if negate else f"[{body}]"


def _go_class_char(pattern: str, i: int) -> tuple[int, str]:
    if i >= len(pattern) or pattern[i] in "-]":
        raise ValueError("syntax error in pattern")
    if pattern[i] == "\\":
        i += 1
        if i >= len(pattern):
            raise ValueError("syntax error in pattern")
    return i + 1, pattern[i]


def _expand_pattern(config: Config, pattern: str) -> list[str]:
    if pattern in config.targets:
        return [pattern]
    try:
        names = [n for n in config.targets if _match(pattern, n)]
    except ValueError:
        raise UsageError(f"could not match targets with '{pattern}': syntax error in "
                         "pattern") from None
    if not names:
        raise UsageError(f"could not find any target matching '{pattern}'")
    return names


def _expand_group(config: Config, name: str) -> tuple[list[str], list[str]]:
    visited: dict[str, tuple[list[str], list[str]]] = {}

    def walk(name: str) -> tuple[list[str], list[str]]:
        if name in visited:
            return visited[name]
        group = config.groups.get(name)
        if group is None:
            return [name], []
        visited[name] = ([], [])
        targets: list[str] = []
        groups = [name]
        for member in group.targets:
            member_targets, member_groups = walk(member)
            targets.extend(member_targets or [member])
            groups.extend(member_groups)
        visited[name] = (targets, groups)
        return targets, groups

    targets, groups = walk(name)
    return list(dict.fromkeys(targets)), list(dict.fromkeys(groups))


def _default_group(names: list[str], groups: dict[str, Group]) -> None:
    """buildx lists the requested names in a ``default`` group (sorted), unless ``default``
    itself was asked for and is a group."""
    extra = [n for n in names if not (n == "default" and "default" in groups)]
    if not extra and "default" not in groups:
        return
    default = groups.get("default") or Group("default", [])
    members = sorted(dict.fromkeys([*default.targets, *extra]))
    groups["default"] = Group("default", members, default.description)


def resolve_target(config: Config, name: str, overrides: Overrides) -> Target:
    target = _target(config, name, {}, overrides)
    if target is None:  # pragma: no cover - only on an inherits cycle back to the start
        raise UsageError(f"failed to resolve target {name}")
    target.fields.pop("inherits", None)
    target.fields.setdefault("context", ".")
    if not target.fields.get("dockerfile"):
        target.fields["dockerfile"] = "Dockerfile"
    return target


def _target(config: Config, name: str, visited: dict[str, Target | None],
            overrides: Overrides) -> Target | None:
    if name in visited:
        return visited[name]
    visited[name] = None
    declared = config.targets.get(name)
    if declared is None:
        raise UsageError(unknown_target_message(config, name))
    parents = Target(name)
    for parent_name in declared.inherits:
        parent = _target(config, parent_name, visited, overrides)
        if parent is not None:
            parents.merge(parent)
    merged = Target(name)
    merged.merge(parents)
    merged.merge(declared)
    for key, override in overrides.get(name, {}).items():
        merged.apply_override(key, override.value, override.array, override.append)
    merged.normalize()
    visited[name] = merged
    return merged


def unknown_target_message(config: Config, name: str) -> str:
    valid = sorted({*config.targets, *config.groups})
    return f"failed to find target {name}; valid targets and groups: {', '.join(valid)}"


def _load_links(config: Config, name: str, target: Target, targets: dict[str, Target],
                overrides: Overrides, visited: list[str]) -> None:
    visited = [*visited, name]
    for value in (target.get("contexts") or {}).values():
        if not value.startswith("target:"):
            continue
        linked_name = value.removeprefix("target:")
        if linked_name == name:
            raise UsageError(f"target {linked_name} cannot link to itself")
        if linked_name in visited:
            raise UsageError(f"infinite loop from {name} to {linked_name}")
        linked = targets.get(linked_name)
        if linked is None:
            linked = resolve_target(config, linked_name, overrides)
            linked.fields["output"] = [{"type": "cacheonly"}]
            linked.linked = True
            targets[linked_name] = linked
        _load_links(config, linked_name, linked, targets, overrides, visited)
        for entitlement in linked.get("entitlements") or []:
            entitlements = target.fields.setdefault("entitlements", [])
            if entitlement not in entitlements:
                entitlements.append(entitlement)
        platforms, linked_platforms = target.get("platforms") or [], linked.get("platforms") or []
        if (len(platforms) > 1 and len(linked_platforms) > 1
                and not set(platforms) <= set(linked_platforms)):
            raise UsageError(f"target {linked_name} can't be used by {name} because its "
                             f"platforms [{' '.join(platforms)}] are not a subset of "
                             f"[{' '.join(linked_platforms)}]")
