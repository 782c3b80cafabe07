"""Pin policy: every input of a build is immutable.

- ``pin-source``: a source is a 40-hex ``X_COMMIT`` with its human ref in an ``X_REF``
  declared next to it, or (no commit) an ``X_REF`` that is an exact version.
- ``pin-version``: every ``*_VERSION`` is an exact version; ``pin-sha256``: every ``*_SHA256``
  is 64 hex and every ``*_DIGEST`` is ``sha256:<64 hex>``.
- ``moving-ref``: no main/master/latest/HEAD/... anywhere (variables, ARG defaults, image
  tags, git and pip references in RUN lines).
- ``base-image``: every image a target builds from is pinned by tag and digest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from rocm_bake.core.errors import HCLError
from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.lint.bakemodel import BakeTarget, relative
from rocm_bake_checks.lint.consistency import Dockerfiles, expand, is_bare_name, target_stage
from rocm_bake_checks.lint.findings import Finding, merge_cells

COMMIT = re.compile(r"^[0-9a-f]{40}$")
ABBREVIATED = "ABBREVIATED"        # the variable naming the pins kept in upstream's short form
SHORT_COMMIT = re.compile(r"^[0-9a-f]{4,39}$")


def abbreviated(definition: Definition) -> list[str]:
    """The commit pins the bake file declares abbreviated (its list variable ABBREVIATED;
    none without one): ``inv lint`` warns about them instead of failing on them."""
    try:
        value = definition.value(ABBREVIATED)
    except HCLError:
        return []
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
EXACT_VERSION = re.compile(r"^v?\d+(\.\d+)+((\.post|rc|a|b)\d+)?$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
PINNED_IMAGE = re.compile(r"^[^\s@]+:[^\s@/]+@sha256:[0-9a-f]{64}$")
MOVING = frozenset({"main", "master", "latest", "head", "develop", "trunk", "nightly"})
_MOVING_TEXT = re.compile(
    r"(?::latest\b|@(?:main|master|HEAD)\b|(?:--branch|-b)[ =](?:main|master)\b"
    r"|\bcheckout\s+(?:main|master)\b)")


def _variables(definition: Definition) -> dict[str, tuple[object, str, int]]:
    """name -> (value in effect, file, line)."""
    declared = definition.namespace.declared.variables
    out: dict[str, tuple[object, str, int]] = {}
    for info in definition.variables():
        source = declared[info.name].source
        out[info.name] = (info.value, source.file, source.line or 1)
    return out


def check_variables(definition: Definition, root: Path) -> list[Finding]:
    found = list(_sources(definition, root))
    for name, (value, file, line) in sorted(_variables(definition).items()):
        where = relative(Path(file), root)
        if not isinstance(value, str):
            continue
        if name.endswith("_VERSION") and not EXACT_VERSION.match(value):
            found.append(Finding(where, line, "pin-version",
                                 f"{name} = '{value}' is not an exact version"))
        if name.endswith("_SHA256") and not SHA256.match(value):
            found.append(Finding(where, line, "pin-sha256",
                                 f"{name} = '{value}' is not a sha256 (64 lowercase hex)"))
        if name.endswith("_DIGEST") and not DIGEST.match(value):
            found.append(Finding(where, line, "pin-sha256",
                                 f"{name} = '{value}' is not a digest sha256:<64 hex>"))
        if value.lower() in MOVING or _MOVING_TEXT.search(value):
            found.append(Finding(where, line, "moving-ref",
                                 f"{name} = '{value}' is a moving reference"))
    return found


def _sources(definition: Definition, root: Path) -> Iterator[Finding]:
    variables = _variables(definition)
    order = sorted(variables, key=lambda n: (variables[n][1], variables[n][2]))
    prefixes = sorted({n.rsplit("_", 1)[0] for n in variables
                       if n.endswith(("_REPO", "_COMMIT"))})
    short = set(abbreviated(definition))
    for prefix in prefixes:
        commit_name, ref_name = f"{prefix}_COMMIT", f"{prefix}_REF"
        commit = variables.get(commit_name, ("", "", 0))[0]
        ref = variables.get(ref_name, ("", "", 0))[0]
        anchor = commit_name if commit_name in variables else f"{prefix}_REPO"
        _, file, line = variables[anchor]
        where = relative(Path(file), root)
        if not isinstance(commit, str) or not isinstance(ref, str):
            continue
        if commit and not COMMIT.match(commit) and not (commit_name in short
                                                        and SHORT_COMMIT.match(commit)):
            yield Finding(where, line, "pin-source",
                          f"{commit_name} = '{commit}' is not a full 40-hex commit")
        elif commit and not ref:
            yield Finding(where, line, "pin-source",
                          f"{commit_name} is pinned but its human ref is not recorded: declare "
                          f"{ref_name} next to it")
        elif commit and not _adjacent(order, commit_name, ref_name, prefix):
            yield Finding(where, line, "pin-source",
                          f"{ref_name} must be declared next to {commit_name}")
        elif not commit and not EXACT_VERSION.match(ref):
            yield Finding(where, line, "pin-source",
                          f"source {prefix} is pinned by neither a 40-hex {commit_name} nor "
                          f"an exact version {ref_name} (got '{ref}')")


def _adjacent(order: list[str], first: str, second: str, prefix: str) -> bool:
    """Nothing but the same source's variables between the two declarations."""
    if second not in order:
        return False
    a, b = sorted((order.index(first), order.index(second)))
    return all(n.startswith(f"{prefix}_") for n in order[a:b + 1])


def check_targets(targets: list[BakeTarget], files: Dockerfiles, root: Path) -> list[Finding]:
    seen: list[tuple[Finding, str]] = []
    for target in targets:
        for name, value in sorted(target.contexts.items()):
            image = value.removeprefix("docker-image://")
            if value.startswith("docker-image://") and not PINNED_IMAGE.match(image):
                seen.append((Finding(target.file, target.line, "base-image",
                                     f"context {name} = '{value}' is not pinned by tag and "
                                     "digest (name:tag@sha256:...)"), target.name))
        if target.dockerfile is None or not target.dockerfile.is_file():
            continue
        seen.extend((f, target.name) for f in _images(target, files, root))
    return merge_cells(seen)


def _images(target: BakeTarget, files: Dockerfiles, root: Path) -> Iterator[Finding]:
    assert target.dockerfile is not None
    parsed = files.get(target.dockerfile)
    stage = target_stage(target, parsed)
    if stage is None:
        return
    values = {a.name: a.default or "" for a in parsed.global_args.values()} | dict(target.args)
    name = relative(target.dockerfile, root)
    for reached in parsed.reachable(stage):
        for ref in reached.refs:
            image = expand(ref.name, values)
            found = parsed.stage(image)
            if image == "scratch" or image in target.contexts or is_bare_name(image) or (
                    found is not None and found.index < reached.index):
                continue
            if not PINNED_IMAGE.match(image):
                shown = f"{ref.name} = '{image}'" if image != ref.name else f"'{image}'"
                yield Finding(name, ref.line, "base-image",
                              f"{ref.how} {shown} is not pinned by tag and digest "
                              "(name:tag@sha256:...)")


def check_dockerfile_text(paths: list[Path], files: Dockerfiles, root: Path) -> list[Finding]:
    """Moving references in ARG defaults and instructions of each Dockerfile."""
    found = []
    for path in paths:
        parsed = files.get(path)
        name = relative(path, root)
        args = list(parsed.global_args.values())
        args += [a for s in parsed.stages for a in s.args.values()]
        for arg in args:
            if arg.default is not None and (arg.default.lower() in MOVING
                                            or _MOVING_TEXT.search(arg.default)):
                found.append(Finding(name, arg.line, "moving-ref",
                                     f"ARG {arg.name} defaults to a moving reference "
                                     f"'{arg.default}'"))
        for stage in parsed.stages:
            texts = [(stage.base.line, stage.base.name)]
            texts += [(i.line, i.body) for i in stage.instructions]
            for line, text in texts:
                match = _MOVING_TEXT.search(text)
                if match:
                    found.append(Finding(name, line, "moving-ref",
                                         f"moving reference '{match.group(0)}'"))
    return found
