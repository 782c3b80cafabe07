"""A cell is built as upstream ships it (rule ``supported-archs``, family ``conformance``).

For each wheel ``upstream.toml``'s ``[supported-archs.<distribution>]`` names (keyed by the
distribution, as upstream.toml names no component; the component is the one whose ``WHEELS``
build it, rocm_bake.model.components), two questions per arch of the bake file's
``ALL_ARCHS``, each answered from upstream's own files, never by hand:

- **shipped**: does upstream's recipe ship the component on the arch?  The component's stage
  of upstream's Dockerfiles (``UPSTREAM_STAGE``, else ``build_<name>``; the files of
  ``upstream-dockerfiles.toml``) is part of upstream's images (reachable from their final,
  base or release stages), which are made for the archs of the list ``[supported-archs]
  image-archs`` names in that stage's environment (vLLM's ``PYTORCH_ROCM_ARCH``).
- **kernels**: does the wheel carry GPU kernels for the arch?  The archs the wheel's own
  source supports -- ``url`` (a ``{VARIABLE}`` template, the file at the pin, read through the
  replayable snapshot like every upstream file) and ``name`` (the list or dict literal
  assigned to that name in it: a list's items, a dict's values), or, where that file could not
  be had, ``archs`` with ``from`` saying where they were read -- among the archs upstream's
  build step compiles it for: the value its build command gives ``arch-knob`` (e.g.
  ``GPU_ARCHS=${AITER_ROCM_ARCH}``, or ``$(echo ${PYTORCH_ROCM_ARCH} | sed -e 's/...//g')``,
  evaluated on the stage's environment); without an ``arch-knob`` the source's list alone.

A component upstream ships on an arch it has no kernels for is shipped *without* them (vLLM's
release image carries AITER and FlashAttention on gfx1201 for their Triton kernels): its cell
must be built, as a build without GPU kernels, where the wheel has one -- ``without-kernels``,
the environment variable (``env``) its setup.py reads and the value (``value``) that selects
it, checked in the file at ``url``.  The bake file says how each cell is built: ``SKIP`` (not
at all), ``TRITON_ONLY`` (without GPU kernels; its key ``<arch>/<component>``), else with the
kernels for its arch.  One finding per cell whose way is not upstream's:

- built with kernels upstream has none of: into ``TRITON_ONLY`` where upstream ships it and
  the wheel has a build without kernels, else into ``SKIP``;
- skipped although upstream ships it (with kernels, or without them where the wheel has a build
  without kernels): "no kernels" is no reason to drop what upstream ships;
- in ``TRITON_ONLY`` although upstream has kernels for the arch, or does not ship it there, or
  the wheel has no build without kernels; in both ``SKIP`` and ``TRITON_ONLY``; a
  ``TRITON_ONLY`` key that is no ``<arch>/<component>`` of these wheels.

Without upstream's Dockerfiles (``upstream.Settings.dockerfiles`` None) nothing is known
shipped: only the kernels are checked (a cell without them needs its ``SKIP`` entry).
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.model import components
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint import stages, upstream, upstreamdocker, upstreamstages
from rocm_bake_checks.lint.bakemodel import relative
from rocm_bake_checks.lint.dockerfile import Dockerfile, Stage
from rocm_bake_checks.lint.findings import Finding, LintError

RULES = ("supported-archs",)
RULE = RULES[0]
TABLE = "supported-archs"
IMAGE_ARCHS = "image-archs"      # [supported-archs] image-archs: the arch list of upstream's images
TRITON_ONLY = "TRITON_ONLY"      # the bake file's cells built without GPU kernels
_SED = re.compile(r"^\$\(\s*echo\s+\"?\$\{?(\w+)\}?\"?\s*\|\s*sed((?:\s+-e\s+'[^']*')+)\s*\)$")
_SED_EXPRESSION = re.compile(r"-e\s+'([^']*)'")
_VARIABLE = re.compile(r"^\"?\$\{?(\w+)\}?\"?$")


@dataclass(frozen=True)
class Switch:
    """A wheel's own build without GPU kernels: ``env``=``value`` read by the file at ``url``."""

    env: str
    value: str
    url: str


@dataclass(frozen=True)
class Declared:
    component: str        # the distribution the entry is keyed by
    url: str = ""         # template; empty: ``archs`` is the record
    name: str = ""
    archs: tuple[str, ...] = ()
    source: str = ""      # where ``archs`` were read (``from``)
    knob: str = ""        # the build command's arch variable (``arch-knob``)
    switch: Switch | None = None


@dataclass(frozen=True)
class Config:
    image_archs: str
    declared: tuple[Declared, ...]


@dataclass(frozen=True)
class Archs:
    """What upstream says of a component: the archs it ships it on and those it has kernels
    for, each with where that was read."""

    shipped: frozenset[str] | None        # None: upstream's Dockerfiles not read
    shipped_from: str
    kernels: frozenset[str]
    kernels_shown: str                    # the archs, in upstream's order
    kernels_from: str
    switch: str = ""                      # ``ENV=value (url)``: the wheel's build without kernels


@dataclass
class _Cells:
    skipped: set[str] = field(default_factory=set)
    triton_only: set[str] = field(default_factory=set)


def load(path: Path) -> list[Declared]:
    """The ``[supported-archs.<distribution>]`` tables of ``path`` (none: an empty list)."""
    return list(load_config(path).declared)


def load_config(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")).get(TABLE, {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LintError(f"{path}: {exc}") from None
    out = []
    for component, entry in data.items():
        if component == IMAGE_ARCHS:
            continue
        if not isinstance(entry, dict):
            raise LintError(f"{path}: [{TABLE}.{component}] is not a table")
        url, name = str(entry.get("url", "")), str(entry.get("name", ""))
        archs = tuple(str(a) for a in entry.get("archs", []))
        if bool(url) == bool(archs) or bool(url) != bool(name):
            raise LintError(f"{path}: [{TABLE}.{component}] needs url and name, or archs "
                            f"and from")
        out.append(Declared(str(component), url, name, archs, str(entry.get("from", "")),
                            str(entry.get("arch-knob", "")),
                            _switch(path, str(component), entry.get("without-kernels"))))
    return Config(str(data.get(IMAGE_ARCHS, "")), tuple(out))


def _switch(path: Path, component: str, entry: object) -> Switch | None:
    if entry is None:
        return None
    if not isinstance(entry, dict) or not all(entry.get(k) for k in ("env", "value", "url")):
        raise LintError(f"{path}: [{TABLE}.{component}] without-kernels needs env, value "
                        "and url")
    return Switch(str(entry["env"]), str(entry["value"]), str(entry["url"]))


def archs_in(text: str, name: str, where: str) -> tuple[str, ...]:
    """The ``gfx`` strings of the literal assigned to ``name`` in the Python source ``text``."""
    tree = _parse(text, where)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        items = (value.values if isinstance(value, ast.Dict)
                 else value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [])
        found = tuple(i.value for i in items
                      if isinstance(i, ast.Constant) and isinstance(i.value, str)
                      and i.value.startswith("gfx"))
        if found:
            return found
    raise LintError(f"{where}: no literal list or dict of gfx archs assigned to {name!r}")


def _parse(text: str, where: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise LintError(f"{where}: not Python ({exc.msg}, line {exc.lineno})") from None


def reads_switch(text: str, env: str, value: str, where: str) -> bool:
    """The Python source ``text`` compares the environment variable ``env`` (``os.getenv``,
    ``os.environ.get``, ``os.environ[...]``) with ``value``: the switch it builds by."""
    for node in ast.walk(_parse(text, where)):
        if isinstance(node, ast.Compare) and len(node.comparators) == 1 \
                and isinstance(node.ops[0], ast.Eq):
            sides = (node.left, node.comparators[0])
            if any(_reads_env(s, env) for s in sides) and any(
                    isinstance(s, ast.Constant) and s.value == value for s in sides):
                return True
    return False


def _reads_env(node: ast.expr, env: str) -> bool:
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and node.args[0].value == env:
        return ast.unparse(node.func) in {"os.getenv", "os.environ.get"}
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value == env and ast.unparse(node.value) == "os.environ"
    return False


def supported(declared: Declared, metadata: upstream.Metadata,
              variables: Mapping[str, object]) -> tuple[tuple[str, ...], str]:
    """The archs the wheel's own source supports, and where they were read."""
    if not declared.url:
        return declared.archs, declared.source or f"upstream.toml [{TABLE}.{declared.component}]"
    url = upstream.resolve(declared.url, variables, f"[{TABLE}.{declared.component}]")
    archs = metadata.fact(url, f"archs of {declared.name}",
                          lambda text: list(archs_in(text, declared.name, url)))
    return tuple(str(a) for a in archs), f"{url} {declared.name}"


# -- upstream's Dockerfiles: the stage's environment and its build's arch list ---------------

def environment(parsed: Dockerfile, stage: Stage) -> dict[str, tuple[str, int]]:
    """Name -> (value, line) of the stage's environment: the file's global ARG defaults, then
    each ARG default and ENV of its FROM chain, root first, ``${...}`` expanded as it goes (an
    ENV that only passes a variable on keeps the line its value was written at)."""
    values: dict[str, tuple[str, int]] = {
        n: (a.default, a.line) for n, a in parsed.global_args.items() if a.default is not None}
    for link in reversed(stages.chain(parsed, stage)):
        env: dict[int, list[stages.Flag]] = {}
        for flag in stages.env(link):
            env.setdefault(flag.line, []).append(flag)
        for instruction in link.instructions:
            if instruction.keyword == "ARG":
                for arg in link.args.values():
                    if arg.line == instruction.line and arg.default is not None:
                        values[arg.name] = (_expand(arg.default, values), arg.line)
            elif instruction.keyword == "ENV":
                for flag in env.get(instruction.line, []):
                    passed = _VARIABLE.match(flag.value)
                    line = values[passed.group(1)][1] \
                        if passed and passed.group(1) in values else flag.line
                    values[flag.name] = (_expand(flag.value, values), line)
    return values


def _expand(text: str, values: Mapping[str, tuple[str, int]]) -> str:
    return stages.expand(text, {k: v for k, (v, _) in values.items()})


def knob_value(stage: Stage, knob: str) -> tuple[str, int] | None:
    """The value as written (a word, or one ``$(...)``) the stage's build command gives
    ``knob``, and the line of its RUN; None when no RUN sets it."""
    pattern = re.compile(rf"(?:^|\s){re.escape(knob)}=(\$\((?:[^()]|\([^()]*\))*\)|\S+)")
    for instruction in stages.runs(stage):
        found = pattern.search(instruction.body)
        if found:
            return found.group(1), instruction.line
    return None


def evaluate(written: str, values: Mapping[str, tuple[str, int]], where: str) -> str:
    """A build command's value on the stage's environment: a literal, ``${NAME}``, or
    ``$(echo ${NAME} | sed -e 's/RE/TEXT/g' ...)`` (the sed expressions applied in order);
    anything else is a LintError naming it (read by a person, never guessed)."""
    plain = _VARIABLE.match(written)
    if plain:
        return _value(plain.group(1), values, where)
    piped = _SED.match(written)
    if piped:
        text = _value(piped.group(1), values, where)
        for expression in _SED_EXPRESSION.findall(piped.group(2)):
            text = sed(expression, text, where)
        return text
    if "$" not in written and "`" not in written:
        return written.strip("\"'")
    raise LintError(f"{where}: cannot evaluate {written!r} (a literal, ${{NAME}} or "
                    "$(echo ${NAME} | sed -e 's/RE/TEXT/g') is read)")


def _value(name: str, values: Mapping[str, tuple[str, int]], where: str) -> str:
    if name not in values:
        raise LintError(f"{where}: {name} has no value in the stage's environment")
    return values[name][0]


def sed(expression: str, text: str, where: str) -> str:
    """``sed -e 's/RE/TEXT/[g]'`` on one line of ``text`` (RE a POSIX basic regular
    expression, TEXT plain)."""
    if len(expression) < 4 or expression[0] != "s":
        raise LintError(f"{where}: sed expression {expression!r} is not s/RE/TEXT/")
    parts = expression[2:].split(expression[1])
    if len(parts) != 3 or parts[2] not in ("", "g") or re.search(r"[\\&]", parts[1]):
        raise LintError(f"{where}: sed expression {expression!r} is not s/RE/TEXT/[g] "
                        "with a plain TEXT")
    return re.sub(_basic_regex(parts[0]), parts[1], text, count=0 if parts[2] else 1)


def _basic_regex(basic: str) -> str:
    """A POSIX basic regular expression as Python's: ``\\{ \\} \\( \\)`` are operators,
    ``+ ? | { } ( )`` plain characters."""
    out, index = [], 0
    while index < len(basic):
        char = basic[index]
        if char == "\\" and index + 1 < len(basic):
            nxt = basic[index + 1]
            out.append(nxt if nxt in "{}()" else char + nxt)
            index += 2
            continue
        out.append(re.escape(char) if char in "+?|{}()" else char)
        index += 1
    return "".join(out)


def _reached(up: upstreamdocker.Upstream) -> set[str]:
    """``FILE:STAGE`` of every stage upstream's images or release are built from."""
    out: set[str] = set()
    for ref in (up.settings.final, *up.settings.base_stages, *up.settings.release):
        key = ref.rpartition(":")[0]
        parsed, stage = up.stage(ref)
        out |= {f"{key}:{s.name}" for s in parsed.reachable(stage)}
    return out


def upstream_archs(declared: Declared, component: str, refs: list[str],
                   up: upstreamdocker.Upstream | None, image_archs: str,
                   metadata: upstream.Metadata, variables: Mapping[str, object]) -> Archs:
    """What upstream ships ``component`` on and has kernels for (``refs``: its stages)."""
    source, source_from = supported(declared, metadata, variables)
    kernels, kernels_from = list(source), source_from
    shipped: set[str] | None = None
    shipped_from = "upstream's Dockerfiles not read"
    if up is not None:
        shipped, shipped_from = set(), f"no stage of upstream's images builds {component}"
        reached = _reached(up)
        for ref in refs:
            parsed, stage = up.stage(ref)
            values = environment(parsed, stage)
            where = up.name(ref)
            if ref in reached:
                if image_archs not in values:
                    raise LintError(f"{where}: {image_archs} ([{TABLE}] image-archs) has no "
                                    "value in the stage's environment")
                value, line = values[image_archs]
                shipped |= set(_split(value))
                shipped_from = (f"{where}, in its images for {image_archs}={value}: "
                                f"{parsed.path.name}:{line}")
            written = knob_value(stage, declared.knob) if declared.knob else None
            if written is not None:
                built = _split(evaluate(written[0], values, f"{where} {declared.knob}"))
                kernels = [a for a in kernels if a in built]
                kernels_from = (f"{source_from}, among {declared.knob}={';'.join(built)}: "
                                f"the RUN at {parsed.path.name}:{written[1]}, "
                                f"{declared.knob}={written[0]}")
    switch = ""
    if declared.switch is not None:
        url = upstream.resolve(declared.switch.url, variables,
                               f"[{TABLE}.{declared.component}] without-kernels")
        env, value = declared.switch.env, declared.switch.value
        if not metadata.fact(url, f"reads {env} == {value!r}",
                             lambda text: reads_switch(text, env, value, url)):
            raise LintError(f"{url}: reads no {declared.switch.env} == "
                            f"{declared.switch.value!r} ([{TABLE}.{declared.component}] "
                            "without-kernels): the wheel's build without kernels is not there")
        switch = f"{declared.switch.env}={declared.switch.value}, read by {url}"
    return Archs(None if shipped is None else frozenset(shipped), shipped_from,
                 frozenset(kernels), ", ".join(kernels), kernels_from, switch)


def _split(value: str) -> list[str]:
    return [a.strip() for a in value.split(";") if a.strip()]


# -- the rule ---------------------------------------------------------------------------------

def check(definition: Definition, root: Path, metadata: upstream.Metadata) -> list[Finding]:
    return list(_findings(definition, root, metadata))


def _findings(definition: Definition, root: Path,
              metadata: upstream.Metadata) -> Iterator[Finding]:
    names = components.names(definition)
    archs = components.all_archs(definition)
    cells = _Cells(_keys(definition, "SKIP"), _keys(definition, TRITON_ONLY))
    at = {t: (relative(Path(f), root), n) for t in ("SKIP", TRITON_ONLY)
          for f, n in [_where(definition, t)]}
    variables = {v.name: v.value for v in definition.variables()}
    builds = {wheel: name for name, wheels in components.wheels(definition).items()
              if name in names for wheel in wheels}
    config = load_config(metadata.settings.config)
    up = _upstream(metadata, variables)
    refs: dict[str, list[str]] = {}
    if up is not None:
        for ref, name in upstreamstages.stage_refs(definition, up).items():
            refs.setdefault(name, []).append(ref)
    checked: set[str] = set()
    for declared in config.declared:
        component = builds.get(components.canonical(declared.component))
        if component is None:
            continue
        found = upstream_archs(declared, component, refs.get(component, []), up,
                               config.image_archs, metadata, variables)
        for arch in archs:
            key = f"{arch}/{component}"
            checked.add(key)
            message = verdict(key, component, arch, found, cells)
            if message:
                table = TRITON_ONLY if key in cells.triton_only and key not in cells.skipped \
                    else "SKIP"
                yield Finding(*at[table], RULE, message)
    for key in sorted(cells.triton_only - checked):
        yield Finding(*at[TRITON_ONLY], RULE,
                      f"TRITON_ONLY has '{key}', which is no <arch>/<component> of a wheel "
                      f"upstream.toml [{TABLE}] describes: remove it")


def verdict(key: str, component: str, arch: str, found: Archs, cells: _Cells) -> str:
    """The finding for one cell ("" when it is built as upstream ships it)."""
    kernels = arch in found.kernels
    shipped = found.shipped is not None and arch in found.shipped
    has = f"kernels for {found.kernels_shown or 'no arch'} ({found.kernels_from})"
    ships = f"upstream ships {component} on {arch} ({found.shipped_from})"
    if key in cells.skipped and key in cells.triton_only:
        return f"'{key}' is in both SKIP and TRITON_ONLY: keep one"
    if key in cells.skipped:
        if shipped and kernels:
            return f"SKIP drops '{key}', but {ships} with {has}: remove the entry"
        if shipped and found.switch:
            return (f"SKIP drops '{key}', but {ships}, with {has}, none for {arch}: build it "
                    f"without kernels ({found.switch}): move the entry to TRITON_ONLY")
        return ""
    if key in cells.triton_only:
        if kernels:
            return (f"TRITON_ONLY builds '{key}' without kernels, but upstream has {has}: "
                    "remove the entry")
        if not found.switch:
            return (f"TRITON_ONLY has '{key}', but {component}'s wheel has no build without "
                    f"kernels (upstream.toml [{TABLE}] declares no without-kernels): move the "
                    "entry to SKIP")
        if not shipped:
            return (f"TRITON_ONLY has '{key}', but upstream does not ship {component} on "
                    f"{arch} ({found.shipped_from}): move the entry to SKIP")
        return ""
    if kernels:
        return ""
    if shipped and found.switch:
        return (f"{component}: {ships}, with {has}, none for {arch}, and neither SKIP nor "
                f"TRITON_ONLY has '{key}', so a cell with kernels would be built; add "
                f"\"{key}\" = \"<why>\" to TRITON_ONLY (its build without kernels: "
                f"{found.switch})")
    return (f"{component}: {arch} is not among the archs upstream has kernels for "
            f"({found.kernels_shown}: {found.kernels_from}) and SKIP has no entry '{key}', "
            f"so a cell would be built; add \"{key}\" = \"<why>\" to SKIP")


def _upstream(metadata: upstream.Metadata,
              variables: Mapping[str, object]) -> upstreamdocker.Upstream | None:
    path = metadata.settings.dockerfiles
    settings = upstreamdocker.load(path) if path is not None else None
    return None if settings is None else upstreamdocker.fetch(settings, metadata, variables)


def _keys(definition: Definition, name: str) -> set[str]:
    if name not in definition.namespace.declared.attributes:
        return set()
    value = definition.value(name)
    return {str(k) for k in value} if isinstance(value, dict) else set()


def _where(definition: Definition, name: str) -> tuple[str, int]:
    attribute = definition.namespace.declared.attributes.get(name)
    if attribute is None:
        attribute = definition.namespace.declared.attributes.get("SKIP")
    if attribute is None:
        return str(definition.files[0]), 1
    return attribute.source.file, attribute.source.line or 1
