"""What a component's declaration lacks: the judgements over what ``declared`` reads.

A component is a key of ``CACHE_KEY`` (the ``_cell`` template's matrix is ``keys(CACHE_KEY)``);
its cells are ``<component>-<arch>`` for the arches of ``ARCHS[component]``. Everything else
that names a component is either derived from that table or checked against it here, one
``Problem`` per missing entry, each naming the table or block and the entry to add:

- ``component-table``: ``ARCHS``, ``VERSION_TAG`` and ``CACHE_KEY`` each have every component
  (a target that inherits ``_cell-<name>-<arch>`` or a ``VERSION_TAG`` key is a component too,
  so a forgotten ``CACHE_KEY`` entry is named, not "failed to find target _cell-...").
- ``component-target`` / ``component-group``: its ``target`` block, and a ``group`` of its own
  with a ``description``; ``component-all``: its cells in group ``all``.
- ``component-skip``: a cell that needs (``target:`` context) a cell ``SKIP`` skips is skipped
  too, with its own ``SKIP`` entry; every ``SKIP`` key is ``<known arch>/<component>`` and
  its value says why (the images' ``rocm-bake.skipped`` label and the wheels export carry it).
- ``component-export``: the export target (``wheels``) takes it as a context, unless an image
  (``CONSUMERS``) carries its wheels there; a library (``LIBRARIES``) is exported to no
  ``dist/`` but installed by the images ``CONSUMERS`` names, so it needs an entry there;
  ``component-pins``: its ``*_COMMIT``/``*_REF`` pins are in ``PINS`` (labels, versions.json).
- ``component-arch``: a component with GPU code (no ``NO_GPU_CODE`` entry) passes an arch knob
  (a key of ``ARCH_ARGS``, e.g. ``PYTORCH_ROCM_ARCH``, or a ``*_GPU_ARCHS``): without one its
  build targets the build host's GPU.
- ``component-consumer``: each image ``CONSUMERS`` names for it takes it as a context.
- ``component-stale``: every key of a per-component table (``WHEELS``, ``LIBRARIES``,
  ``UPSTREAM_STAGE``, ``CONSUMERS``, ``STATIC_SECONDS``, ``NO_GPU_CODE``, ``CACHE_MODE``) is a
  component.

A component has one of two shapes.  A wheel component's target stage exports ``/wheels``
(``WHEELS`` its distributions); a library component (a ``LIBRARIES`` entry: the shared
libraries it builds, e.g. ROCr and CLR's ``libhsa-runtime64`` and ``libamdhip64``) builds no
wheel and its target stage exports a prefix tree at ``STAGING`` (``/staging/lib/...``), which
each consumer's image copies into its prefix and registers with ``ldconfig`` (vLLM's
``docker/Dockerfile.rocm_72_base`` stages ``build_rocm_runtime`` and ``final``: ``COPY
--from=build_rocm_runtime /staging/ /opt/rocm/``, ``RUN ldconfig``).  The placeholder of a
skipped cell (target ``empty``) holds an empty ``/wheels`` and an empty ``STAGING``, so both
shapes' consumers resolve.
- ``component-seconds``: ``STATIC_SECONDS`` (fleet estimates) has every component.
- ``component-source``: one of the component's ``*_COMMIT``/``*_REF`` pins declares where it
  comes from (``<PIN>_SOURCE``, read by ``inv version-check``); ``variable-description``:
  every variable a component passes says what it is.

Names may contain hyphens (``flash-attn``): a cell name is split on the known arch suffix,
never on ``-``. buildx itself can only say "failed to find target"; ``hinted`` puts the
problem in front of that message where the bake model fails the same way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from rocm_bake.core.errors import HCLError, RocmBakeError
from rocm_bake.model.bakefile import Definition
from rocm_bake.model.components.declared import (
    ARCH_KNOB,
    ARCH_TABLE,
    COMPONENT_TABLE,
    CONSUMERS,
    EXPORT_TARGET,
    LIBRARIES,
    OPTIONAL_TABLES,
    SOURCE_PINS,
    SOURCE_SUFFIX,
    STAGING,
    STATIC_SECONDS,
    TABLES,
    Where,
    all_archs,
    arch_knobs,
    candidates,
    consumers,
    mapping,
    split_cell,
)

# The rules in the order a failed bake model most likely failed by (the first is named).
RULE_ORDER = ("component-table", "component-skip", "component-target", "component-group",
              "component-all", "component-export", "component-consumer", "component-pins",
              "component-source", "component-arch", "component-stale", "component-seconds",
              "variable-description")


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class ComponentError(HCLError):
    """The bake model failed because a component's declaration lacks an entry."""



def problems(definition: Definition) -> list[Problem]:
    """Every missing entry of every component, one line each (sorted)."""
    where = Where(definition)
    components = candidates(definition)
    found = [*_tables(definition, where, components), *_blocks(definition, where, components),
             *_skips(definition, where, components), *_sources(definition, where, components),
             *_export(definition, where, components), *_pins(definition, where, components),
             *_descriptions(definition, where, components),
             *_arch_knobs(definition, where, components),
             *_consumers(definition, where, components),
             *_stale(definition, where, components),
             *_seconds(definition, where, components)]
    return sorted(set(found))


def _problem(at: tuple[str, int], rule: str, message: str) -> Problem:
    return Problem(at[0], at[1], rule, message)


def _tables(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    hints = {"ARCHS": '[for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/%s")]',
             "VERSION_TAG": "<its version for the image tag>",
             "CACHE_KEY": "<the pins its layer cache is keyed by>"}
    for table in TABLES:
        entries = mapping(definition, table)
        for name in components:
            if name not in entries:
                hint = hints[table].replace("%s", name)
                yield _problem(where.attribute(table), "component-table",
                               f"{table} has no entry '{name}': add \"{name}\" = {hint}")


def _cells(definition: Definition, name: str) -> list[str]:
    archs = mapping(definition, "ARCHS").get(name)
    return [f"{name}-{a}" for a in archs] if isinstance(archs, list) else []


def _blocks(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    groups = definition.config.groups
    labels = {label for kind, label in where.blocks if kind == "target"}
    for name in components:
        if name not in labels:
            yield _problem(where.attribute(COMPONENT_TABLE), "component-target",
                           f"component '{name}' has no target \"{name}\" block: add one that "
                           f"inherits [\"_compile\", \"_cell-{name}-${{arch}}\"]")
        every = f'[for a in ARCHS["{name}"] : "{name}-${{a}}"]'
        group = groups.get(name)
        if group is None or ("group", name) not in where.blocks:   # a matrix's own group
            yield _problem(where.block("group", "all"), "component-group",
                           f"component '{name}' has no group \"{name}\": add group \"{name}\" "
                           f"{{ description = \"...\", targets = {every} }}")
        elif not group.description:
            yield _problem(where.block("group", name), "component-group",
                           f"group \"{name}\" has no description: say what it builds")
        everything = groups.get("all")
        missing = [c for c in _cells(definition, name)
                   if everything is not None and c not in everything.targets]
        if missing:
            yield _problem(where.block("group", "all"), "component-all",
                           f"group \"all\" lacks {', '.join(missing)}: add {every} to its "
                           "targets")


def _skips(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    archs = all_archs(definition)
    skip = mapping(definition, "SKIP")
    at = where.attribute("SKIP")
    known = set(components)
    for key, reason in skip.items():
        arch, _, name = key.partition("/")
        if arch not in archs or name not in known:
            yield _problem(at, "component-skip",
                           f"SKIP entry '{key}' is not <arch>/<component> (arches: "
                           f"{', '.join(archs)}; components: {', '.join(components)})")
        elif not isinstance(reason, str) or not reason.strip():
            yield _problem(at, "component-skip",
                           f"SKIP entry '{key}' gives no reason: say why {name} cannot be "
                           f"built for {arch} (\"{key}\" = \"<why, from upstream's files>\"); "
                           "the images' rocm-bake.skipped label and the wheels export carry it")
    targets = definition.config.targets
    for target in targets.values():
        cell = split_cell(target.name, archs)
        contexts = target.get("contexts") or {}
        for value in contexts.values() if isinstance(contexts, Mapping) else ():
            needed = str(value).removeprefix("target:")
            if not str(value).startswith("target:") or needed in targets:
                continue
            dep = split_cell(needed, archs)
            if cell and dep and cell[0] in known and f"{dep[1]}/{dep[0]}" in skip:
                yield _problem(at, "component-skip",
                               f"SKIP has no entry '{cell[1]}/{cell[0]}': {target.name} needs "
                               f"{needed}, which SKIP skips ('{dep[1]}/{dep[0]}'); add "
                               f"\"{cell[1]}/{cell[0]}\" = \"<why>\" to SKIP")


def _args(definition: Definition, components: list[str]) -> dict[str, list[str]]:
    """Component -> the declared variables its cells pass as args, in file order."""
    archs = all_archs(definition)
    declared = definition.namespace.declared.variables
    out: dict[str, list[str]] = {}
    for target in definition.config.targets.values():
        cell = split_cell(target.name, archs)
        args = target.get("args") or {}
        if cell and cell[0] in components and isinstance(args, Mapping):
            names_ = out.setdefault(cell[0], [])
            names_ += [a for a, v in args.items() if a in declared and a not in names_
                       and isinstance(v, str) and v]
    return out


def _sources(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    declared = set(definition.namespace.declared.attributes)
    for name, args in _args(definition, components).items():
        own = sorted((a for a in args if a.endswith(SOURCE_PINS)), key=lambda a: where.variables[a])
        if own and not any(f"{p}{SOURCE_SUFFIX}" in declared for p in own):
            yield _problem(where.variables[own[0]], "component-source",
                           f"component '{name}': none of its pins ({', '.join(own)}) says "
                           f"where it comes from: declare {own[0]}{SOURCE_SUFFIX} = "
                           "{ git = <its _REPO>, tags = \"<regex with (?P<version>...)>\" } "
                           "next to it (inv version-check reads it)")


def _export(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    archs = all_archs(definition)
    exports = [t for t in definition.config.targets.values()
               if (split_cell(t.name, archs) or ("", ""))[0] == EXPORT_TARGET]
    if not exports:
        return
    contexts = exports[0].get("contexts") or {}
    carried = {n for n, images in consumers(definition).items() if images}
    shared = mapping(definition, LIBRARIES)
    for name in components:
        if name in shared:
            # A library reaches no dist/: only the images that install it.  (A target that
            # takes it is judged by its Dockerfile: the lint's component-consumer names the
            # image to add to CONSUMERS.)
            taken = any(name in (t.get("contexts") or {})
                        for t in definition.config.targets.values())
            if name not in carried and not taken:
                yield _problem(where.attribute(CONSUMERS), "component-export",
                               f"library '{name}' is installed by no image: add \"{name}\" = "
                               f"[\"<image>\"] to {CONSUMERS} and it to each image's "
                               f"contexts, each image's Dockerfile copying its prefix (COPY "
                               f"--from={name} {STAGING}/ /opt/rocm/) and running ldconfig")
            continue
        # A component an image installs may reach the export through that image's /wheels
        # (the lint's component-export checks that its consumer's Dockerfile carries them).
        if name not in contexts and name not in carried:
            yield _problem(where.block("target", EXPORT_TARGET), "component-export",
                           f"target \"{EXPORT_TARGET}\" does not take '{name}' (its wheels are "
                           f"not exported): add \"{name}\" = contains(ARCHS[\"{name}\"], arch) ? "
                           f"\"target:{name}-${{arch}}\" : \"target:empty\" to its contexts, "
                           f"or name the image that installs and carries them in "
                           f"{CONSUMERS}[\"{name}\"]")


def _pins(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    pins = mapping(definition, "PINS")
    if not pins:
        return
    for name, args in _args(definition, components).items():
        for arg in args:
            if arg.endswith(SOURCE_PINS) and arg not in pins:
                yield _problem(where.attribute("PINS"), "component-pins",
                               f"PINS has no entry '{arg}' ({name} is built from it): add "
                               f"{arg} = {arg}")


def _descriptions(definition: Definition, where: Where,
                  components: list[str]) -> Iterator[Problem]:
    declared = definition.namespace.declared.variables
    for name, args in _args(definition, components).items():
        for arg in args:
            if declared[arg].description is None:
                yield _problem(where.variables[arg], "variable-description",
                               f"variable \"{arg}\" ({name} passes it) has no description: "
                               "add description = \"<what it is, where its value comes from>\"")


def _arch_knobs(definition: Definition, where: Where,
                components: list[str]) -> Iterator[Problem]:
    """A component with GPU code passes the cell's arch in a knob its build reads."""
    archs = all_archs(definition)
    no_gpu = mapping(definition, "NO_GPU_CODE")
    knobs = arch_knobs(definition)
    for target in definition.config.targets.values():
        cell = split_cell(target.name, archs)
        if not cell or cell[0] not in components or cell[0] in no_gpu:
            continue
        args = target.get("args") or {}
        passed = [a for a in args if a in knobs or ARCH_KNOB.search(a)] \
            if isinstance(args, Mapping) else []
        if not passed:
            shown = ", ".join(sorted(knobs)) or "PYTORCH_ROCM_ARCH"
            yield _problem(where.block("target", cell[0]), "component-arch",
                           f"target \"{cell[0]}\" passes no arch knob ({shown}): its GPU code "
                           "would be built for the build host's GPU; use args = "
                           f"merge({ARCH_TABLE}[arch], {{...}}), or say in NO_GPU_CODE why "
                           "it has no GPU code")
            break


def _consumers(definition: Definition, where: Where,
               components: list[str]) -> Iterator[Problem]:
    """Each image ``CONSUMERS`` names for a component takes it as a context."""
    archs = all_archs(definition)
    known = set(components)
    for name, images in consumers(definition).items():
        for image in images:
            if image not in known:
                yield _problem(where.attribute(CONSUMERS), "component-consumer",
                               f"CONSUMERS[\"{name}\"] names '{image}', which is not a "
                               f"component (components: {', '.join(components)})")
                continue
            for target in definition.config.targets.values():
                cell = split_cell(target.name, archs)
                contexts = target.get("contexts") or {}
                if cell and cell[0] == image and name not in contexts:
                    yield _problem(where.block("target", image), "component-consumer",
                                   f"target \"{image}\" does not take '{name}', which "
                                   f"CONSUMERS says it installs: add \"{name}\" = "
                                   f"contains(ARCHS[\"{name}\"], arch) ? "
                                   f"\"target:{name}-${{arch}}\" : \"target:empty\" to its "
                                   "contexts")
                    break


def _stale(definition: Definition, where: Where, components: list[str]) -> Iterator[Problem]:
    """Every key of a per-component table is a component (or the export target)."""
    known = {*components, EXPORT_TARGET}
    for table in OPTIONAL_TABLES:
        for key in mapping(definition, table):
            if key not in known:
                yield _problem(where.attribute(table), "component-stale",
                               f"{table} has an entry '{key}', which is no component "
                               f"(components: {', '.join(components)}): remove it or add "
                               "the component")


def _seconds(definition: Definition, where: Where,
             components: list[str]) -> Iterator[Problem]:
    """Where the bake file gives fleet estimates (``STATIC_SECONDS``), it gives each one."""
    given = mapping(definition, STATIC_SECONDS)
    for name in components if given else ():
        if name not in given:
            yield _problem(where.attribute(STATIC_SECONDS), "component-seconds",
                           f"{STATIC_SECONDS} has no entry '{name}': add \"{name}\" = <the "
                           "seconds a cold cell of it takes> (the fleet's estimate until the "
                           "perf history has one; without it a cell counts 60 s)")


@contextlib.contextmanager
def hinted(definition: Definition) -> Iterator[None]:
    """Run a step of the bake model; when it fails and a component's declaration lacks an
    entry, fail with that entry named first (the model's own message, buildx's, after it)."""
    try:
        yield
    except ComponentError:
        raise
    except RocmBakeError as exc:
        found = problems(definition)
        if not found:
            raise
        first = min(found, key=lambda p: RULE_ORDER.index(p.rule))
        more = f" (and {len(found) - 1} more: inv lint names each)" if len(found) > 1 else ""
        said = str(exc).split("; valid targets", 1)[0]
        raise ComponentError(f"{first.message}{more}; the bake model says: {said}",
                             first.file, first.line) from None
