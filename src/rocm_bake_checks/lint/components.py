"""Bake-file consistency of the components (family ``consistency``): every table, block,
``SKIP`` entry, pin source and description a component needs, from
``rocm_bake.model.components`` -- one finding per missing entry, naming the entry to add.

It runs before the plan is resolved: a component missing from ``CACHE_KEY`` or ``SKIP`` makes
the plan fail with buildx's "failed to find target"; the lint names the missing entry instead.

After the plan (``check_dockerfiles``), what the component's declaration says against its
Dockerfiles:

- ``component-wheels``: every wheel file a component's Dockerfile names under ``/wheels``
  (``ls -l /wheels/amd_mori-*.whl``) is a distribution the bake file gives it (``WHEELS``,
  default: the one named after the component).
- ``component-consumer``: each image ``CONSUMERS`` names installs it: its image stage (the
  target's stage and the stages it is built FROM in its file) pip-installs from a mount of the
  component's context (or of a stage of its file that copies the component's ``/wheels``), or
  is built FROM it; and an image stage that installs a component is
  named in that component's ``CONSUMERS``.
- ``component-export``: a component the export target does not take reaches it through a
  consumer: the consumer's Dockerfile copies its ``/wheels`` into the ``/wheels`` it exports;
  a library's target stage exports its prefix at ``/staging`` (what its consumers copy).
- ``component-libraries``: every shared library a library component's Dockerfile names under
  ``/staging/lib`` (``ls -l /staging/lib/libamdhip64.so*``) is one ``LIBRARIES`` gives it.

A library component (``LIBRARIES``) is installed otherwise than a wheel: the consumer's image
stage copies its ``/staging`` into a prefix (``COPY --from=<name> /staging/ /opt/rocm/``) and
registers it with the dynamic linker (``RUN ldconfig`` after the copy, or ``ENV
LD_LIBRARY_PATH`` naming ``<prefix>/lib``), as vLLM v0.33.0's docker/Dockerfile.rocm_72_base
final stage does with build_rocm_runtime's ``/staging``.  A consumer that only mounts it, or
copies it and never registers it, is ``component-consumer`` naming the missing step.

A component with GPU code whose target passes no arch knob is the bake model's
``component-arch``; a knob passed but not declared in its Dockerfile, ``arg-undeclared``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from rocm_bake.model import components
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles, target_stage
from rocm_bake_checks.lint.dockerfile import Dockerfile, Instruction, Stage, csv_options
from rocm_bake_checks.lint.findings import Finding

# A wheel file a Dockerfile names under /wheels: its distribution is the name before - or *.
_WHEEL_FILE = re.compile(r"/wheels/(?:[A-Za-z0-9_]+/)?([A-Za-z][A-Za-z0-9_.]*?)[-*][^\s'\"]*\.whl")
_PIP_INSTALL = re.compile(r"\b(?:uv\s+)?pip3?\s+install\b")
# A shared library a library component's Dockerfile names under /staging/lib.
_LIB_FILE = re.compile(re.escape(components.STAGING) + r"/lib/(lib[A-Za-z0-9_+-]+?)\.so")
_LDCONFIG = re.compile(r"(?:^|[\s;&|(])ldconfig\b")


def check(definition: Definition, root: Path) -> list[Finding]:
    return [Finding(relative(Path(p.file), root), p.line, p.rule, p.message)
            for p in components.problems(definition)]


def check_dockerfiles(definition: Definition, targets: list[BakeTarget], files: Dockerfiles,
                      root: Path) -> list[Finding]:
    """The component rules that read Dockerfiles, one finding per component and file."""
    cells = _cells(definition, targets)
    consumed = list(_consumers(definition, cells, files, root))
    named = {f.message.split("'")[1] for f in consumed}   # one line per omission: the
    found = [*_wheels(definition, cells, files, root), *consumed,   # install names the fix
             *_libraries(definition, cells, root),
             *_staged(definition, cells, files, root),
             *(f for f in _exported(definition, cells, files, targets, root)
               if f.message.split("'")[1] not in named)]
    return sorted(set(found))


def _cells(definition: Definition, targets: list[BakeTarget]) -> dict[str, BakeTarget]:
    """Component -> the target of its first cell that has a Dockerfile."""
    archs = components.all_archs(definition)
    names = components.names(definition)
    out: dict[str, BakeTarget] = {}
    for target in targets:
        cell = components.split_cell(target.name, archs)
        if cell and cell[0] in names and target.dockerfile is not None \
                and target.dockerfile.is_file():
            out.setdefault(cell[0], target)
    return out


def _wheels(definition: Definition, cells: dict[str, BakeTarget], files: Dockerfiles,
            root: Path) -> Iterator[Finding]:
    given = components.wheels(definition)
    for name, target in cells.items():
        assert target.dockerfile is not None
        text = target.dockerfile.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            for match in _WHEEL_FILE.finditer(line):
                dist = components.canonical(match.group(1))
                if dist in given[name]:
                    continue
                own = given[name] if name in components.declares_wheels(definition) else ()
                wheels = ", ".join(f'"{w}"' for w in (*own, dist))
                yield Finding(relative(target.dockerfile, root), number, "component-wheels",
                              f"component '{name}' builds the wheel {match.group(1)}, which "
                              f"the bake file does not give it (its wheels: "
                              f"{', '.join(given[name]) or 'none'}): add \"{name}\" = "
                              f"[{wheels}] to WHEELS in the bake file")


def _libraries(definition: Definition, cells: dict[str, BakeTarget],
               root: Path) -> Iterator[Finding]:
    """A shared library a library's Dockerfile names under /staging/lib is one it declares."""
    for name, given in components.libraries(definition).items():
        target = cells.get(name)
        if target is None:
            continue
        path = _dockerfile(target)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in _LIB_FILE.finditer(line):
                if match.group(1) in given:
                    continue
                libs = ", ".join(f'"{lib}"' for lib in (*given, match.group(1)))
                yield Finding(relative(path, root), number, "component-libraries",
                              f"library '{name}' builds {match.group(1)}, which the bake file "
                              f"does not give it (its libraries: {', '.join(given) or 'none'})"
                              f": add \"{name}\" = [{libs}] to LIBRARIES in the bake file")


def _staged(definition: Definition, cells: dict[str, BakeTarget], files: Dockerfiles,
            root: Path) -> Iterator[Finding]:
    """A library's target stage exports its prefix at /staging, what its consumers copy."""
    staging = components.STAGING
    for name in components.libraries(definition):
        target = cells.get(name)
        if target is None:
            continue
        parsed = files.get(_dockerfile(target))
        stage = target_stage(target, parsed)
        if stage is None:
            continue
        if not any(_writes_staging(i) for st in _chain(parsed, stage) for i in st.instructions):
            yield Finding(relative(_dockerfile(target), root), stage.base.line,
                          "component-export",
                          f"'{name}' is a library (LIBRARIES), but its stage {stage.name} "
                          f"exports no {staging}, which its consumers copy: COPY --from=<its "
                          f"build stage> {staging}/ {staging}/ (its libraries under "
                          f"{staging}/lib, as upstream's build_rocm_runtime stages them)")


def _writes_staging(instruction: Instruction) -> bool:
    """A COPY into /staging, or a RUN that writes under it."""
    staging = components.STAGING
    if instruction.keyword == "COPY":
        return instruction.body.split()[-1:] == [staging] or \
            instruction.body.split()[-1:] == [f"{staging}/"]
    return instruction.keyword == "RUN" and f"{staging}/" in instruction.body


def _chain(parsed: Dockerfile, stage: Stage) -> list[Stage]:
    """The image stage and the stages of its file it is built FROM."""
    out = [stage]
    while (base := parsed.stage(out[-1].base.name)) is not None and base.index < out[-1].index:
        out.append(base)
    return out


def _copies_wheels(stage: Stage) -> list[tuple[str, int]]:
    """The contexts or stages whose ``/wheels`` a stage copies (``COPY --from=X /wheels``)."""
    out = []
    for instruction in stage.instructions:
        sources = instruction.flags.get("from", [])
        if instruction.keyword == "COPY" and sources \
                and instruction.body.split(" ", 1)[0].startswith("/wheels"):
            out.append((sources[0], instruction.line))
    return out


def installs(parsed: Dockerfile, stage: Stage) -> dict[str, int]:
    """Context -> the line where the image stage installs its wheels (a pip install under a
    mount of it, or of a stage of the file that copies its ``/wheels``) or is built FROM it."""
    out: dict[str, int] = {}
    for st in _chain(parsed, stage):
        if parsed.stage(st.base.name) is None:
            out.setdefault(st.base.name, st.base.line)
        for instruction in st.instructions:
            if instruction.keyword != "RUN" or not _PIP_INSTALL.search(instruction.body):
                continue
            for mount in instruction.flags.get("mount", []):
                source = csv_options(mount).get("from", "")
                inner = parsed.stage(source) if source else None
                carried = [s for s, _ in _copies_wheels(inner)] if inner is not None else []
                for name in [source, *carried] if source else []:
                    out.setdefault(name, instruction.line)
    return out


def library_installs(parsed: Dockerfile, stage: Stage) -> dict[str, tuple[int, str, bool]]:
    """Context -> (line, prefix, registered) where the image stage copies its ``/staging``
    (``COPY --from=X /staging/ <prefix>``); registered: ``ldconfig`` runs after the copy, or
    ``LD_LIBRARY_PATH`` names ``<prefix>/lib``."""
    ordered = [i for st in reversed(_chain(parsed, stage)) for i in st.instructions]
    paths = " ".join(i.body for i in ordered if i.keyword == "ENV" and "LD_LIBRARY_PATH" in i.body)
    out: dict[str, tuple[int, str, bool]] = {}
    for index, instruction in enumerate(ordered):
        sources = instruction.flags.get("from", [])
        words = instruction.body.split()
        if instruction.keyword != "COPY" or not sources or len(words) < 2 \
                or words[0].rstrip("/") != components.STAGING:
            continue
        prefix = words[-1].rstrip("/")
        registered = any(i.keyword == "RUN" and _LDCONFIG.search(i.body)
                         for i in ordered[index + 1:]) or f"{prefix}/lib" in paths
        out.setdefault(sources[0], (instruction.line, prefix, registered))
    return out


def _mounts(stage: Stage, name: str) -> int:
    """The line of a RUN of the stage that mounts context ``name`` (0: none)."""
    return next((i.line for i in stage.instructions if i.keyword == "RUN"
                 for m in i.flags.get("mount", []) if csv_options(m).get("from") == name), 0)


def _exported(definition: Definition, cells: dict[str, BakeTarget], files: Dockerfiles,
              targets: list[BakeTarget], root: Path) -> Iterator[Finding]:
    """A component the export does not take is carried by a consumer's ``/wheels`` (a
    library reaches no export: its consumers install it)."""
    shared = components.libraries(definition)
    archs = components.all_archs(definition)
    export = next((t for t in targets if (components.split_cell(t.name, archs) or ("",))[0]
                   == components.EXPORT_TARGET), None)
    if export is None:
        return
    for name, images in components.consumers(definition).items():
        if name in export.contexts or not images or name in shared:
            continue
        carriers = [i for i in images if i in cells and any(
            source == name for st in files.get(_dockerfile(cells[i])).stages
            for source, _ in _copies_wheels(st))]
        users = [i for i in images if i in cells and any(
            r.name == name for st in files.get(_dockerfile(cells[i])).stages for r in st.refs)]
        if users and not carriers:    # (a context no consumer uses is context-unused's line)
            first = cells.get(images[0])
            file = relative(_dockerfile(first), root) if first else export.file
            yield Finding(file, 1, "component-export",
                          f"'{name}' reaches the wheels export neither as a context of target "
                          f"\"{components.EXPORT_TARGET}\" nor through its consumers "
                          f"({', '.join(images)}): add COPY --from={name} /wheels/ /wheels/ "
                          "to the stage whose /wheels the consumer's image carries")


def _dockerfile(target: BakeTarget) -> Path:
    assert target.dockerfile is not None
    return target.dockerfile


def _consumers(definition: Definition, cells: dict[str, BakeTarget], files: Dockerfiles,
               root: Path) -> Iterator[Finding]:
    declared = components.consumers(definition)
    shared = components.libraries(definition)
    names = {n for n, w in components.wheels(definition).items() if w}   # base builds none
    for image, target in cells.items():
        assert target.dockerfile is not None
        parsed = files.get(target.dockerfile)
        stage = target_stage(target, parsed)
        if stage is None:
            continue
        installed = installs(parsed, stage)
        copied = library_installs(parsed, stage)
        file = relative(target.dockerfile, root)
        for name, images in declared.items():
            used = any(r.name == name for st in parsed.stages for r in st.refs)
            if image not in images or name not in target.contexts or not used:
                continue     # (a context it never uses is context-unused's line)
            if name in shared:
                yield from _library_consumer(file, stage, image, name, copied.get(name))
            elif name in copied:
                yield Finding(file, copied[name][0], "component-consumer",
                              f"stage {stage.name} (the {image} image) copies '{name}''s "
                              f"{components.STAGING} as a library's, but the bake file gives "
                              f"it no libraries: add \"{name}\" = [\"<lib>\", ...] (its shared "
                              f"libraries under {components.STAGING}/lib) to LIBRARIES")
            elif name not in installed:
                yield Finding(file, stage.base.line, "component-consumer",
                              f"stage {stage.name} (the {image} image) does not install "
                              f"'{name}', which CONSUMERS says it does: COPY --from={name} "
                              "/wheels/ /wheels/ into the stage whose /wheels its pip install "
                              f"mounts, or mount it there (RUN --mount=type=bind,from={name},"
                              f"source=/wheels,target=/deps/{name})")
        taken = [*((n, line) for n, line in installed.items() if n in names),
                 *((n, line) for n, (line, _, _) in copied.items() if n in shared)]
        for name, line in taken:
            if name != image and image not in declared.get(name, []):
                yield Finding(file, line, "component-consumer",
                              f"stage {stage.name} (the {image} image) installs '{name}', but "
                              f"CONSUMERS[\"{name}\"] does not name {image}: add \"{image}\" "
                              "to it in the bake file")


def _library_consumer(file: str, stage: Stage, image: str, name: str,
                      copied: tuple[int, str, bool] | None) -> Iterator[Finding]:
    """The image stage installs library ``name``: copies its /staging, then registers it."""
    staging = components.STAGING
    if copied is None:
        mounted = _mounts(stage, name)
        said = (f"mounts library '{name}' (line {mounted}) but never installs it" if mounted
                else f"does not install library '{name}'")
        yield Finding(file, mounted or stage.base.line, "component-consumer",
                      f"stage {stage.name} (the {image} image) {said}, which CONSUMERS says it "
                      f"does: COPY --from={name} {staging}/ /opt/rocm/ into it (its prefix; a "
                      "mount is gone after its RUN), then RUN ldconfig")
    elif not copied[2]:
        yield Finding(file, copied[0], "component-consumer",
                      f"stage {stage.name} (the {image} image) copies library '{name}' into "
                      f"{copied[1]} but never registers it with the dynamic linker: RUN "
                      f"ldconfig after the COPY (or ENV LD_LIBRARY_PATH={copied[1]}/lib)")
