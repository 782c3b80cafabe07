"""Bake <-> Dockerfile consistency, from the resolved plan of every target.

Rules (BuildKit scoping: an ARG reaches a stage only if that stage declares it; a global ARG
before the first FROM is visible in FROM lines and must be redeclared to be used inside):

- ``dockerfile-missing``: the target's Dockerfile does not exist.
- ``target-stage``: the target's ``target`` stage does not exist.
- ``arg-undeclared``: a target passes an arg no stage it builds declares (BuildKit drops it).
- ``arg-missing``: an ARG without default in a stage the target builds is not passed.
- ``context-missing``: ``FROM``/``COPY --from``/``RUN --mount from=`` names neither a stage nor
  a context the target provides (BuildKit would pull it from a registry).
- ``context-unused``: the target passes a named context no stage it builds uses (a component
  handed to a consumer whose Dockerfile never mounts it: its wheels silently go missing).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from rocm_bake_checks.lint import dockerfile
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.dockerfile import BUILTIN_ARGS, Dockerfile, Instruction, Stage
from rocm_bake_checks.lint.findings import Finding, merge_cells

Seen = tuple[Finding, str]


class Dockerfiles:
    """Each Dockerfile parsed once."""

    def __init__(self) -> None:
        self._parsed: dict[Path, Dockerfile] = {}

    def get(self, path: Path) -> Dockerfile:
        if path not in self._parsed:
            self._parsed[path] = dockerfile.parse(path)
        return self._parsed[path]

    def instructions(self, paths: list[Path], root: Path
                     ) -> Iterator[tuple[str, Path, Instruction]]:
        """Every instruction of every stage of ``paths``: its file's name relative to
        ``root``, the file, the instruction."""
        for path in paths:
            name = relative(path, root)
            for stage in self.get(path).stages:
                for instruction in stage.instructions:
                    yield name, path, instruction


def check(targets: list[BakeTarget], files: Dockerfiles, root: Path) -> list[Finding]:
    seen: list[Seen] = []
    for target in targets:
        seen.extend(_check_target(target, files, root))
    return merge_cells(seen)


def target_stage(target: BakeTarget, parsed: Dockerfile) -> Stage | None:
    if target.stage:
        return parsed.stage(target.stage)
    return parsed.stages[-1] if parsed.stages else None


def _check_target(target: BakeTarget, files: Dockerfiles, root: Path) -> Iterator[Seen]:
    if target.dockerfile is None:
        return
    name = relative(target.dockerfile, root)
    if not target.dockerfile.is_file():
        yield Finding(target.file, target.line, "dockerfile-missing",
                      f"Dockerfile {name} does not exist"), target.name
        return
    parsed = files.get(target.dockerfile)
    stage = target_stage(target, parsed)
    if stage is None:
        stages = ", ".join(s.name or str(s.index) for s in parsed.stages) or "none"
        yield Finding(target.file, target.line, "target-stage",
                      f"target stage '{target.stage}' does not exist in {name} "
                      f"(stages: {stages})"), target.name
        return
    reach = parsed.reachable(stage)
    yield from _undeclared(target, parsed, stage, reach, name)
    yield from _missing(target, parsed, reach, name)
    yield from _contexts(target, parsed, reach, name)
    yield from _unused(target, parsed, reach, name)


def _from_variables(reach: list[Stage]) -> set[str]:
    return {v for s in reach for v in dockerfile.variables(s.base.name)}


def _undeclared(target: BakeTarget, parsed: Dockerfile, stage: Stage, reach: list[Stage],
                name: str) -> Iterator[Seen]:
    in_stages = {a for s in reach for a in s.args}
    in_from = _from_variables(reach) & set(parsed.global_args)
    for arg in sorted(target.args):
        if arg in BUILTIN_ARGS or arg.startswith("BUILDKIT_") or arg in in_stages | in_from:
            continue
        where = "declared only before FROM and never used" if arg in parsed.global_args \
            else "not declared"
        yield Finding(target.file, target.line, "arg-undeclared",
                      f"passes arg {arg}, {where} in stage '{stage.name or stage.index}' of "
                      f"{name} or a stage it builds from (BuildKit ignores it)"), target.name


def _missing(target: BakeTarget, parsed: Dockerfile, reach: list[Stage],
             name: str) -> Iterator[Seen]:
    global_defaults = {a.name for a in parsed.global_args.values() if a.default is not None}
    wanted = [a for s in reach for a in s.args.values()]
    wanted += [parsed.global_args[v] for v in sorted(_from_variables(reach))
               if v in parsed.global_args]
    for decl in wanted:
        if decl.default is not None or decl.name in target.args or decl.name in BUILTIN_ARGS:
            continue
        if decl.name in global_defaults:
            continue
        yield Finding(name, decl.line, "arg-missing",
                      f"ARG {decl.name} has no default and the target does not pass it"
                      ), target.name


def _contexts(target: BakeTarget, parsed: Dockerfile, reach: list[Stage],
              name: str) -> Iterator[Seen]:
    values = {a.name: a.default or "" for a in parsed.global_args.values()} | dict(target.args)
    for stage in reach:
        for ref in stage.refs:
            ref_name = expand(ref.name, values)
            if ref_name == "scratch" or ref_name in target.contexts:
                continue
            found = parsed.stage(ref_name)
            if found is not None and found.index < stage.index:
                continue
            if is_bare_name(ref_name):
                yield Finding(name, ref.line, "context-missing",
                              f"{ref.how} {ref_name}: no earlier stage and no bake context "
                              f"named '{ref_name}' (BuildKit would pull "
                              f"docker.io/library/{ref_name})"), target.name


def _unused(target: BakeTarget, parsed: Dockerfile, reach: list[Stage],
            name: str) -> Iterator[Seen]:
    values = {a.name: a.default or "" for a in parsed.global_args.values()} | dict(target.args)
    used = {expand(ref.name, values) for stage in reach for ref in stage.refs}
    for context in sorted(set(target.contexts) - used):
        yield Finding(target.file, target.line, "context-unused",
                      f"passes context '{context}', which no stage of {name} it builds uses: "
                      f"mount it there (RUN --mount=type=bind,from={context},... or COPY "
                      f"--from={context}) or drop it from the target's contexts"), target.name


def expand(text: str, values: dict[str, str]) -> str:
    """``$NAME``/``${NAME}`` replaced by their values (unknown names by "")."""
    for var in sorted(dockerfile.variables(text), key=len, reverse=True):
        text = text.replace("${" + var + "}", values.get(var, ""))
        text = text.replace("$" + var, values.get(var, ""))
    return text


def is_bare_name(name: str) -> bool:
    """A name with no registry, path, tag or digest: a stage or a named context, not an image."""
    return bool(name) and not any(c in name for c in "/:@.$")
