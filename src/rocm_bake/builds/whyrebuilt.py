"""``inv why-rebuilt CELL``: why the newer of two builds of a cell was not served from the layer
cache, in the user's terms.

The two builds are the cell's last two completed builds in the buildx history (a cell's builds
carry its name: its target sets the ``BUILDKIT_BUILD_NAME`` build arg). From the history: the
first Dockerfile step the newer build did not take from the cache, the build args, the images
it read and their digests, ``--no-cache``; from the file records ``inv build`` writes
(:mod:`rocm_bake.builds.contextfiles`): every file of the local contexts. Each input that differs is
one sentence:

- a pin (a variable of the bake file's ``PINS``): ``PYTORCH_COMMIT changed 6bbd260 → 1a2b3c4``;
- any other build arg: ``build arg MAX_JOBS changed 32 → 48``;
- the same base image at another digest: ``the base image digest changed (...)``;
- a file of a local context or the Dockerfile: ``dockerfiles/scripts/x.sh changed``;
- none of them: ``no input changed: the layer cache was not available (hot → cold)``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.builds import contextfiles
from rocm_bake.core.errors import HCLError, RocmBakeError, UsageError
from rocm_bake.docker import history as buildx_history
from rocm_bake.docker import preflight
from rocm_bake.docker.history import NAME_ARG, Record
from rocm_bake.model import bakefile
from rocm_bake.model.bakefile import Definition

PINS_ATTRIBUTE = "PINS"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_LOCAL_INPUT = re.compile(r"^\[(?:internal\] load build context|context (\S+)\] load from client)")


@dataclass(frozen=True)
class Cause:
    """One input that differs between the two builds, or why none explains the rebuild."""

    # pin | build-arg | base-image | context-image | context-file | context | no-cache | cache
    kind: str
    sentence: str
    subject: str = ""  # the pin, arg, image, file or context concerned
    old: str = ""
    new: str = ""

    def to_json(self) -> dict[str, str]:
        out = {"kind": self.kind, "sentence": self.sentence}
        out.update({k: v for k, v in (("subject", self.subject), ("old", self.old),
                                      ("new", self.new)) if v})
        return out


@dataclass(frozen=True)
class Build:
    id: str
    created_at: str
    condition: str     # hot (every step cached) | warm | cold (none)

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "created_at": self.created_at, "condition": self.condition}


@dataclass
class Explanation:
    cell: str
    old: Build
    new: Build
    first_uncached: str                 # the step's name, "" when every step was cached
    causes: list[Cause] = field(default_factory=list)

    def lines(self) -> list[str]:
        head = (f"{self.cell}: build {self.new.id} ({_when(self.new.created_at)}) against build "
                f"{self.old.id} ({_when(self.old.created_at)})")
        first = (f"first step not cached: {self.first_uncached}" if self.first_uncached
                 else "every step was cached: nothing was rebuilt")
        return [head, first, *(c.sentence for c in self.causes)]

    def to_json(self) -> dict[str, object]:
        return {"cell": self.cell, "old": self.old.to_json(), "new": self.new.to_json(),
                "first_uncached": self.first_uncached or None,
                "causes": [c.to_json() for c in self.causes]}


def _when(created_at: str) -> str:
    """buildx's RFC 3339 time to the second (``2026-12-01T19:29:30Z``)."""
    return created_at.split(".", 1)[0].removesuffix("Z") + "Z" if created_at else "?"


# --------------------------------------------------------------------------- the cell


def check_cell(definition: Definition, cell: str) -> None:
    """``cell`` is a target of the bake files whose builds carry its name (its args set
    BUILDKIT_BUILD_NAME to it: the cells of rocm-bake.hcl, through ``_cell``)."""
    names = [n for n in definition.target_names if not n.startswith("_")]
    targets = definition.plan(names).targets
    cells = sorted(n for n in names if (targets[n].get("args") or {}).get(NAME_ARG) == n)
    if cell in cells:
        return
    if cell in names:
        raise UsageError(f"the target {cell} does not set args.{NAME_ARG} = \"{cell}\", so its "
                         "builds cannot be told apart in the buildx history: add it to the "
                         "target's args")
    raise UsageError(f"unknown cell {cell!r}; valid cells: {', '.join(cells) or 'none'}")


def pins(definition: Definition) -> set[str]:
    """The pins: the keys of the bake file's PINS map, else every variable."""
    try:
        value = definition.value(PINS_ATTRIBUTE)
    except HCLError:
        value = None
    if isinstance(value, dict):
        return {str(k) for k in value}
    return {v.name for v in definition.variables()}


# --------------------------------------------------------------------------- comparing


def short(value: str) -> str:
    """A value as a sentence shows it: a full git commit by its first 7 hex digits."""
    return value[:7] if _COMMIT.match(value) else value


def _changed(subject: str, old: str, new: str, is_pin: bool, label: str = "") -> Cause:
    name = label or subject
    if old and not new:
        how = f"removed (was {short(old)})"
    elif new and not old:
        how = f"added ({short(new)})"
    else:
        how = f"changed {short(old)} → {short(new)}"
    if is_pin:
        return Cause("pin", f"{name} {how}", subject, old, new)
    return Cause("build-arg", f"build arg {name} {how}", subject, old, new)


def _json_object(text: str) -> dict[str, object] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def arg_causes(old: Mapping[str, str], new: Mapping[str, str], pin_names: set[str]
               ) -> list[Cause]:
    """One cause per build arg that differs; an arg holding a JSON object (ROCM_BAKE_PINS)
    by its keys, so a pin reads as the pin whichever arg carries it."""
    causes: list[Cause] = []
    for name in sorted((set(old) | set(new)) - {NAME_ARG}):
        before, after = old.get(name, ""), new.get(name, "")
        if before == after:
            continue
        inner_old, inner_new = _json_object(before), _json_object(after)
        if inner_old is not None and inner_new is not None:
            for key in sorted(set(inner_old) | set(inner_new)):
                a, b = _text(inner_old.get(key)), _text(inner_new.get(key))
                if a != b:
                    causes.append(_changed(key, a, b, key in pin_names,
                                           "" if key in pin_names else f"{name}.{key}"))
            continue
        causes.append(_changed(name, before, after, name in pin_names))
    return _unique(causes)


def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _unique(causes: list[Cause]) -> list[Cause]:
    seen: set[str] = set()
    out = []
    for cause in causes:
        if cause.sentence not in seen:
            seen.add(cause.sentence)
            out.append(cause)
    return out


def _context_images(record: Record) -> dict[str, str]:
    """Named context -> the image reference it is (``docker-image://REF``)."""
    return {name: value.removeprefix("docker-image://")
            for name, value in record.named_contexts.items()
            if value.startswith("docker-image://")}


def _digests(record: Record) -> dict[str, str]:
    return {_normal(m.image): m.digest for m in record.materials}


def _normal(image: str) -> str:
    return image.removeprefix("docker.io/").removeprefix("library/")


def image_causes(old: Record, new: Record) -> list[Cause]:
    """An image the build reads at another digest: a named context's image (a dependency
    a fleet node pulled, under a new tag or the same one), else the base image (the same
    reference, resolved to another digest)."""
    causes = []
    old_images, new_images = _context_images(old), _context_images(new)
    old_digests, new_digests = _digests(old), _digests(new)
    for name in sorted(set(old_images) & set(new_images)):
        before = old_digests.get(_normal(old_images[name]), "")
        after = new_digests.get(_normal(new_images[name]), "")
        if before and after and before != after:
            causes.append(Cause("context-image", f"the image of context {name} changed "
                                f"({new_images[name]}: {before[:19]} → {after[:19]})",
                                name, before, after))
    own = {_normal(ref) for ref in (*old_images.values(), *new_images.values())}
    for material in new.materials:
        image = _normal(material.image)
        was = old_digests.get(image, "")
        if image not in own and was and was != material.digest:
            causes.append(Cause("base-image", f"the base image digest changed "
                                f"({material.image}: {was[:19]} → {material.digest[:19]})",
                                material.image, was, material.digest))
    return causes


def file_causes(old: Record, new: Record, records: Path) -> list[Cause]:
    """Each file of the local contexts (and the Dockerfile) that differs; when a build has no
    file record, the contexts the first uncached step reads, as not known."""
    old_files = contextfiles.read(old.summary.id, records)
    new_files = contextfiles.read(new.summary.id, records)
    if old_files is not None and new_files is not None:
        return [Cause("context-file", f"{path} {how}", path,
                      old_files.get(path, ""), new_files.get(path, ""))
                for path, how in contextfiles.differences(old_files, new_files)]
    missing = old.summary.id if old_files is None else new.summary.id
    step = new.first_uncached()
    contexts = []
    for name in new.step_names(step.inputs if step else []):
        if m := _LOCAL_INPUT.match(name):
            contexts.append(m.group(1) or "context")
    return [Cause("context", f"the files of context {context} may have changed (build "
                  f"{missing} has no file record: it was not built by inv build)", context)
            for context in contexts]


def condition(record: Record) -> str:
    steps = record.instructions
    cached = sum(1 for s in steps if s.cached)
    if steps and cached == len(steps):
        return "hot"
    return "cold" if cached == 0 else "warm"


def compare(cell: str, old: Record, new: Record, pin_names: set[str], records: Path
            ) -> Explanation:
    first = new.first_uncached()
    causes = [*arg_causes(old.build_args, new.build_args, pin_names), *image_causes(old, new),
              *file_causes(old, new, records)]
    before, after = condition(old), condition(new)
    if first is not None and not causes:
        if new.no_cache:
            causes.append(Cause("no-cache", "no input changed: the build ran with --no-cache"))
        else:
            causes.append(Cause("cache", "no input changed: the layer cache was not available "
                                f"({before} → {after})", old=before, new=after))
    return Explanation(cell, Build(old.summary.id, old.summary.created_at, before),
                       Build(new.summary.id, new.summary.created_at, after),
                       first.name if first else "", causes)


# --------------------------------------------------------------------------- the task


def explain(cell: str, files: Sequence[str], env: Mapping[str, str] | None = None,
            records: Path | None = None) -> Explanation:
    """Why the last build of ``cell`` in the buildx history rebuilt, against the one before.
    The builder is the one ``inv build`` uses (the environment's, else the project's engine,
    found running, never started: a new engine has no history)."""
    environ = dict(os.environ if env is None else env)
    definition = bakefile.load(files, environ)
    check_cell(definition, cell)
    environ.update(preflight.ensure_builder(environ, start=False))
    builds = buildx_history.builds_named(cell, env=environ)
    if len(builds) < 2:
        raise RocmBakeError(f"{cell} has {len(builds)} completed build(s) in the buildx history; "
                            f"why-rebuilt compares two (build it again: inv build {cell})")
    old, new = (buildx_history.record(s, env=environ) for s in builds[-2:])
    return compare(cell, old, new, pins(definition),
                   records or contextfiles.records_dir(environ))
