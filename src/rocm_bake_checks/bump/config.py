"""``upstream.toml`` read into its declarations: the recipe per vLLM release, the ARG -> pin
table, the coherence groups and the ARGs deliberately not followed."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from rocm_bake.core.errors import RocmBakeError

CONFIG = Path(__file__).with_name("upstream.toml")
KINDS = ("commit", "version", "image")


class ConfigError(RocmBakeError):
    """upstream.toml is malformed (one line: the file and the entry)."""


@dataclass(frozen=True)
class Recipe:
    since: Version
    base: str
    image: str

    def path(self, which: str) -> str:
        return self.base if which == "base" else self.image


@dataclass(frozen=True)
class VersionFile:
    file: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class PinRule:
    """One upstream ARG and the bake variables it sets."""

    arg: str
    file: str                 # "base" or "image"
    group: str
    kind: str
    fields: dict[str, str] = field(default_factory=dict)   # role -> bake variable
    repo_arg: str = ""
    label: str = ""
    branch: str = ""
    template: str = ""
    optional: bool = False
    version: VersionFile | None = None

    def variable(self, role: str) -> str:
        return self.fields.get(role, "")

    def variables(self) -> list[str]:
        return [v for role, v in self.fields.items() if role != "repo-pin"]


@dataclass(frozen=True)
class VllmRule:
    group: str
    repo_pin: str
    commit: str
    ref: str
    pypi: str
    sdist_url: str = ""      # the bake variables the release's sdist is pinned by
    sdist_sha256: str = ""


@dataclass(frozen=True)
class Config:
    path: Path
    recipes: tuple[Recipe, ...]
    pins: tuple[PinRule, ...]
    vllm: VllmRule
    groups: dict[str, str]
    ignored: frozenset[str]

    def recipe(self, release: str) -> Recipe:
        """The recipe followed at ``release`` (the newest ``from`` not after it)."""
        version = Version(release.removeprefix("v"))
        for recipe in sorted(self.recipes, key=lambda r: r.since, reverse=True):
            if recipe.since <= version:
                return recipe
        raise ConfigError(f"{self.path}: no [[recipe]] applies to vLLM {release}")


def load(path: Path = CONFIG) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        recipes = tuple(Recipe(Version(str(r["from"])), str(r["base"]), str(r["image"]))
                        for r in data["recipe"])
        pins = tuple(_pin(path, p) for p in data["pin"])
        v = data["vllm"]
        vllm = VllmRule(str(v["group"]), str(v["repo-pin"]), str(v["commit"]), str(v["ref"]),
                        str(v["pypi"]), str(v.get("sdist-url", "")),
                        str(v.get("sdist-sha256", "")))
        groups = {str(k): str(d) for k, d in data["groups"].items()}
        ignored = frozenset(str(a) for a in data.get("ignore", {}).get("args", []))
    except (KeyError, TypeError, AttributeError, InvalidVersion, re.error) as exc:
        raise ConfigError(f"{path}: malformed entry ({type(exc).__name__}: {exc})") from None
    for group in [*(p.group for p in pins), vllm.group]:
        if group not in groups:
            raise ConfigError(f"{path}: group {group!r} is not in [groups]")
    return Config(path, recipes, pins, vllm, groups, ignored)


def _pin(path: Path, raw: dict[str, Any]) -> PinRule:
    kind = str(raw["kind"])
    if kind not in KINDS:
        raise ConfigError(f"{path}: pin {raw.get('arg')}: kind {kind!r} (valid: "
                          f"{', '.join(KINDS)})")
    roles = ("repo-pin", "commit", "ref", "version-pin", "pin", "repository", "tag", "digest",
             "rocm")
    version = raw.get("version")
    return PinRule(
        arg=str(raw["arg"]), file=str(raw["file"]), group=str(raw["group"]), kind=kind,
        fields={r: str(raw[r]) for r in roles if r in raw},
        repo_arg=str(raw.get("repo", "")), label=str(raw.get("label", "")),
        branch=str(raw.get("branch", "")), template=str(raw.get("template", "")),
        optional=bool(raw.get("optional", False)),
        version=VersionFile(str(version["file"]), re.compile(str(version["regex"]), re.M))
        if isinstance(version, dict) else None)
