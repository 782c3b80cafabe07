"""Where each pin comes from, declared next to the pin in the bake file.

A pin variable ``NAME`` is followed by a top-level attribute ``NAME_SOURCE``, a plain HCL
object, so buildx evaluates it like any attribute and ignores it::

    PYTORCH_COMMIT_SOURCE = {
      git    = PYTORCH_REPO                           # upstream: exactly one of git, github,
      tags   = "^v(?P<version>[0-9]+(\\\\.[0-9]+)*)$"   #   pypi, index, listing, sdist
      branch = PYTORCH_REF                            # commit pins: compare with this head too
    }

Fields (all strings unless said): ``git`` (clone URL), ``github`` (owner/repo: releases API),
``pypi`` (project name), ``index`` / ``listing`` (lists of PEP 503/691 roots / plain directory
URLs, with ``package``), ``sdist`` (one PEP 503/691 root, with ``package`` and ``version``: a
pin of a release's sdist on that index, its address (``pin = "url"``) or its sha256
(``pin = "sha256"``), compared with what the index lists for ``version``; see ``sdists``);
``version`` (sdist pins: the release the file belongs to); ``tags`` (regex with a
``version`` group, applied to tags, release names and to the pin's own value); ``branch``;
``pin`` (commit | tag | version | branch, or url | sha256 for sdist pins; inferred when
absent); ``prerelease`` (bool: count pre-releases as candidates);
``variant`` (local label prefix such as ``rocm7.2``), ``python`` (``cp312``), ``platform``;
``wheels`` (an object with index/listing/github, package, variant, python, platform: is there
a wheel for the pinned version); ``allow_behind`` ({minor = N, patch = N, commits = N});
``waiver`` ({until = "YYYY-MM-DD", reason = "..."}).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from rocm_bake.model.bake.declarations import AttributeDecl
from rocm_bake.model.bakefile import Definition
from rocm_bake.model.hcl.values import Value, to_string

SUFFIX = "_SOURCE"
UPSTREAMS = ("git", "github", "pypi", "index", "listing", "sdist")
PIN_KINDS = ("commit", "tag", "version", "branch")
SDIST_PIN_KINDS = ("url", "sha256")   # what an sdist pin holds: the file's address, its sha256
DEFAULT_TAGS = r"^v?(?P<version>[0-9].*)$"
FIELDS = {*UPSTREAMS, "tags", "branch", "pin", "prerelease", "package", "variant", "python",
          "platform", "wheels", "allow_behind", "waiver", "version"}
WHEEL_FIELDS = {"index", "listing", "github", "package", "variant", "python", "platform"}
HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class WheelSpec:
    """Where published wheels of a pin live and which of them fit our build."""

    index: tuple[str, ...] = ()
    listing: tuple[str, ...] = ()
    github: str = ""
    package: str = ""
    variant: str = ""
    python: str = ""
    platform: str = ""


@dataclass(frozen=True)
class Policy:
    minor: int = 0
    patch: int = 0
    commits: int = 0
    waiver_until: date | None = None
    waiver_reason: str = ""


@dataclass(frozen=True)
class PinSpec:
    """One pin and its declared source, as evaluated by the bake model."""

    name: str
    value: str
    pin: str
    upstream: str
    location: str
    tags: re.Pattern[str]
    branch: str = ""
    prerelease: bool = False
    package: str = ""
    wheel_filter: WheelSpec = field(default_factory=WheelSpec)
    wheels: WheelSpec | None = None
    policy: Policy = field(default_factory=Policy)
    locations: tuple[str, ...] = ()
    version: str = ""   # sdist pins: the release whose sdist the pin names

    @property
    def display_upstream(self) -> str:
        return f"{self.upstream}: {self.location}"


def read(definition: Definition) -> tuple[list[PinSpec], list[str]]:
    """Every declared pin source, and the names of variables that have none."""
    attributes = definition.namespace.declared.attributes
    variables = {v.name for v in definition.variables()}
    for name, attribute in attributes.items():
        if name.endswith(SUFFIX) and name.removesuffix(SUFFIX) not in variables:
            raise attribute.source.error(
                f"{name} declares a source for {name.removesuffix(SUFFIX)}, which is not a "
                "variable")
    specs: list[PinSpec] = []
    untracked: list[str] = []
    for name in sorted(variables):
        declared = attributes.get(name + SUFFIX)
        if declared is None:
            untracked.append(name)
            continue
        specs.append(_spec(name, _text(definition.value(name)), definition.value(declared.name),
                           declared))
    return specs, untracked


def _text(value: Value) -> str:
    if isinstance(value, list | dict):
        return ",".join(_text(v) for v in value) if isinstance(value, list) else str(value)
    return to_string(value) if value is not None else ""


def _spec(name: str, value: str, raw: Value, attribute: AttributeDecl) -> PinSpec:
    fields = _object(raw, attribute, attribute.name)
    unknown = sorted(set(fields) - FIELDS)
    if unknown:
        raise attribute.source.error(
            f"{attribute.name}: unknown field(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(FIELDS))})")
    upstreams = [k for k in UPSTREAMS if k in fields]
    if len(upstreams) != 1:
        raise attribute.source.error(
            f"{attribute.name}: declare exactly one upstream of {', '.join(UPSTREAMS)} "
            f"(found {len(upstreams)})")
    upstream = upstreams[0]
    locations = _strings(fields[upstream], attribute, f"{attribute.name}.{upstream}")
    tags = _regex(fields.get("tags", DEFAULT_TAGS), attribute)
    pin = _pin_kind(fields, value, upstream, tags, attribute)
    version = _sdist_fields(fields, upstream, locations, attribute)
    return PinSpec(
        name=name, value=value, pin=pin, upstream=upstream, location=locations[0],
        locations=tuple(locations), tags=tags,
        branch=_str(fields, "branch", attribute), prerelease=_bool(fields, "prerelease", attribute),
        package=_str(fields, "package", attribute) or (locations[0] if upstream == "pypi"
                                                        else ""),
        wheel_filter=_wheel_spec(fields, attribute, attribute.name, wheels_only=False),
        wheels=(_wheel_spec(_object(fields["wheels"], attribute, f"{attribute.name}.wheels"),
                            attribute, f"{attribute.name}.wheels", wheels_only=True)
                if "wheels" in fields else None),
        policy=_policy(fields, attribute), version=version)


def _sdist_fields(fields: dict[str, Value], upstream: str, locations: list[str],
                  attribute: AttributeDecl) -> str:
    """An sdist pin's ``version`` (its index root one, its ``package`` named); ``version``
    belongs to sdist pins only."""
    version = _str(fields, "version", attribute)
    if upstream != "sdist":
        if "version" in fields:
            raise attribute.source.error(
                f"{attribute.name}.version names the release of an sdist pin: it goes with "
                "sdist = INDEX only")
        return ""
    if len(locations) != 1:
        raise attribute.source.error(f"{attribute.name}.sdist names one index root, not "
                                     f"{len(locations)}")
    if not version or not _str(fields, "package", attribute):
        raise attribute.source.error(
            f"{attribute.name}: an sdist pin needs package = \"NAME\" and version = "
            "\"X.Y.Z\" (the release whose sdist it pins)")
    return version


def _object(raw: Value, attribute: AttributeDecl, what: str) -> dict[str, Value]:
    if not isinstance(raw, dict):
        raise attribute.source.error(f"{what} must be an object {{ git = ..., ... }}")
    return raw


def _strings(raw: Value, attribute: AttributeDecl, what: str) -> list[str]:
    items = raw if isinstance(raw, list) else [raw]
    out = [to_string(i) for i in items if isinstance(i, str)]
    if not out or len(out) != len(items) or not all(out):
        raise attribute.source.error(f"{what} must be a non-empty string or list of strings")
    return out


def _str(fields: dict[str, Value], key: str, attribute: AttributeDecl) -> str:
    raw = fields.get(key, "")
    if not isinstance(raw, str):
        raise attribute.source.error(f"{attribute.name}.{key} must be a string")
    return raw


def _bool(fields: dict[str, Value], key: str, attribute: AttributeDecl) -> bool:
    raw = fields.get(key, False)
    if not isinstance(raw, bool):
        raise attribute.source.error(f"{attribute.name}.{key} must be true or false")
    return raw


def _int(fields: dict[str, Value], key: str, attribute: AttributeDecl, what: str) -> int:
    raw = fields.get(key, Decimal(0))
    if not isinstance(raw, Decimal):
        raise attribute.source.error(f"{what}.{key} must be a whole number")
    number = int(raw)
    if number != raw or number < 0:
        raise attribute.source.error(f"{what}.{key} must be a whole number >= 0")
    return number


def _regex(raw: Value, attribute: AttributeDecl) -> re.Pattern[str]:
    if not isinstance(raw, str):
        raise attribute.source.error(f"{attribute.name}.tags must be a regex string")
    try:
        pattern = re.compile(raw)
    except re.error as exc:
        raise attribute.source.error(f"{attribute.name}.tags is not a valid regex: {exc}") \
            from None
    if "version" not in pattern.groupindex:
        raise attribute.source.error(
            f"{attribute.name}.tags must have a (?P<version>...) group: {raw}")
    return pattern


def _pin_kind(fields: dict[str, Value], value: str, upstream: str, tags: re.Pattern[str],
              attribute: AttributeDecl) -> str:
    declared = _str(fields, "pin", attribute)
    if upstream == "sdist" or declared in SDIST_PIN_KINDS:
        return _sdist_pin_kind(declared, value, upstream, attribute)
    if declared:
        if declared not in PIN_KINDS:
            raise attribute.source.error(
                f"{attribute.name}.pin must be one of {', '.join(PIN_KINDS)}, not {declared!r}")
        return declared
    if HEX40.match(value):
        return "commit"
    match = tags.match(value)
    if upstream in ("git", "github") and match is not None and match["version"] != value:
        return "tag"
    return "version"


def _sdist_pin_kind(declared: str, value: str, upstream: str, attribute: AttributeDecl) -> str:
    if upstream != "sdist":
        raise attribute.source.error(f"{attribute.name}.pin {declared!r} is an sdist pin's: it "
                                     "goes with sdist = INDEX only")
    if declared and declared not in SDIST_PIN_KINDS:
        raise attribute.source.error(
            f"{attribute.name}.pin must be one of {', '.join(SDIST_PIN_KINDS)} for an sdist "
            f"pin, not {declared!r}")
    return declared or ("sha256" if HEX64.match(value) else "url")


def _wheel_spec(fields: dict[str, Value], attribute: AttributeDecl, what: str,
                wheels_only: bool) -> WheelSpec:
    if wheels_only:
        unknown = sorted(set(fields) - WHEEL_FIELDS)
        if unknown:
            raise attribute.source.error(
                f"{what}: unknown field(s) {', '.join(unknown)} "
                f"(known: {', '.join(sorted(WHEEL_FIELDS))})")
        sources = [k for k in ("index", "listing", "github") if k in fields]
        if len(sources) != 1:
            raise attribute.source.error(f"{what}: declare exactly one of index, listing, github")
    return WheelSpec(
        index=tuple(_strings(fields["index"], attribute, f"{what}.index"))
        if wheels_only and "index" in fields else (),
        listing=tuple(_strings(fields["listing"], attribute, f"{what}.listing"))
        if wheels_only and "listing" in fields else (),
        github=_str(fields, "github", attribute) if wheels_only else "",
        package=_str(fields, "package", attribute),
        variant=_str(fields, "variant", attribute).removeprefix("+"),
        python=_str(fields, "python", attribute), platform=_platform(fields, attribute, what))


# a wheel platform tag names its arch: manylinux_2_28 alone matches no file at all
PLATFORM = re.compile(r"^(?:any|(?:many|musl)linux_\d+_\d+_[a-z0-9_]+|"
                      r"manylinux(?:1|2010|2014)_[a-z0-9_]+|linux_[a-z0-9_]+|win32|"
                      r"win_[a-z0-9_]+|macosx_\d+_\d+_[a-z0-9_]+)$")


def _platform(fields: dict[str, Value], attribute: AttributeDecl, what: str) -> str:
    platform = _str(fields, "platform", attribute)
    if platform and not PLATFORM.match(platform):
        raise attribute.source.error(
            f"{what}.platform {platform!r} is not a wheel platform tag with its arch "
            "(e.g. manylinux_2_28_x86_64, linux_x86_64, any): no file would match it")
    return platform


def _policy(fields: dict[str, Value], attribute: AttributeDecl) -> Policy:
    allow = _object(fields.get("allow_behind", {}), attribute, f"{attribute.name}.allow_behind")
    unknown = sorted(set(allow) - {"minor", "patch", "commits"})
    if unknown:
        raise attribute.source.error(
            f"{attribute.name}.allow_behind: unknown field(s) {', '.join(unknown)} "
            "(known: commits, minor, patch)")
    what = f"{attribute.name}.allow_behind"
    waiver = _object(fields.get("waiver", {}), attribute, f"{attribute.name}.waiver")
    until: date | None = None
    if waiver:
        text = waiver.get("until")
        try:
            until = date.fromisoformat(text) if isinstance(text, str) else None
        except ValueError:
            until = None
        if until is None or not isinstance(waiver.get("reason"), str):
            raise attribute.source.error(
                f"{attribute.name}.waiver needs until = \"YYYY-MM-DD\" and reason = \"...\"")
    reason = waiver.get("reason", "")
    return Policy(minor=_int(allow, "minor", attribute, what),
                  patch=_int(allow, "patch", attribute, what),
                  commits=_int(allow, "commits", attribute, what),
                  waiver_until=until, waiver_reason=reason if isinstance(reason, str) else "")
