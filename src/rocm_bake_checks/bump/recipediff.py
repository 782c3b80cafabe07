"""What changed in vLLM's ROCm recipe between the release the bake file follows and the one a
bump moves to: the recipe's files (``docker/Dockerfile.rocm*``, ``tools/vllm-rocm/*``) added or
removed, and for the followed pair (base + image Dockerfile) the stages, ARGs and install steps
added, removed or changed, as a reviewer reads them before any pin moves.  When the new release
no longer has the followed recipe, :func:`replacements` names the pairs it has instead.

Both sides are read from the releases themselves (their sdists, or git at the tags): nothing
here is written by hand about a release.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

RECIPE_FILE = re.compile(r"^(?:docker/Dockerfile\.rocm[^/]*|tools/vllm-rocm/[^/]+)$")
_BASE = re.compile(r"^docker/Dockerfile\.rocm(?P<kind>[^/]*?)_base(?P<arch>[^/]*)$")
# The steps that bring something into an image: packages, sources, builds.
_INSTALL = re.compile(r"\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b|"
                      r"\bapt-get\s+install\b|\bgit\s+clone\b|\bsetup\.py\b|"
                      r"\bpython3?\s+-m\s+build\b|\bcmake\s+--build\b|\bcurl\b|\bwget\b")
_SPLIT = re.compile(r"\s*(?:&&|;|\|\|)\s*")
# BuildKit reads a comment after an ARG as more ARG names ("# release/2.13 as of 09/17"):
# those are not the recipe's ARGs.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Shape:
    """One Dockerfile as a reviewer compares it: its stages (in order), its ARGs (``NAME`` for
    a global one, ``stage/NAME`` in a stage) with their defaults, and its install steps
    (``stage: command``, whitespace folded)."""

    stages: tuple[str, ...]
    args: Mapping[str, str]
    installs: tuple[str, ...]


@dataclass
class Diff:
    """Added / removed / changed, each a list of one-line descriptions."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass
class Change:
    old_release: str
    new_release: str
    old_pair: tuple[str, str]
    new_pair: tuple[str, str]
    files: Diff
    stages: Diff
    args: Diff
    installs: Diff

    def __bool__(self) -> bool:
        return bool(self.old_pair != self.new_pair or self.files or self.stages or self.args
                    or self.installs)


def recipe_files(paths: Iterable[str]) -> list[str]:
    return sorted(p for p in paths if RECIPE_FILE.match(p))


def pairs(paths: Iterable[str]) -> list[tuple[str, str]]:
    """The recipes a release has: (base, image) for every ``Dockerfile.rocm*_base*`` whose
    image Dockerfile (the same name less ``_base``) is there too, the arch-neutral pair first."""
    have = set(paths)
    found = []
    for path in sorted(have):
        match = _BASE.match(path)
        if match is None:
            continue
        image = f"docker/Dockerfile.rocm{match['kind']}{match['arch']}"
        if image in have:
            found.append((bool(match["arch"]), path, image))
    return [(base, image) for _, base, image in sorted(found)]


def replacements(paths: Iterable[str], gone: tuple[str, str]) -> list[tuple[str, str]]:
    """The pairs a release has instead of ``gone`` (which it does not have)."""
    return [pair for pair in pairs(paths) if pair != gone]


def shape(text: str, path: str) -> Shape:
    from rocm_bake_checks.lint.dockerfile import parse_text  # noqa: PLC0415 (the lint extra)

    parsed = parse_text(text, Path(path))
    args = {a.name: a.default or "" for a in parsed.global_args.values() if _NAME.match(a.name)}
    stages: list[str] = []
    installs: list[str] = []
    for stage in parsed.stages:
        name = stage.name or f"#{stage.index}"
        stages.append(name)
        args.update({f"{name}/{a.name}": a.default or "" for a in stage.args.values()
                     if _NAME.match(a.name)})
        for instruction in stage.instructions:
            if instruction.keyword == "RUN":
                installs += [f"{name}: {step}" for step in _steps(instruction.body)]
    return Shape(tuple(stages), args, tuple(dict.fromkeys(installs)))


def _steps(body: str) -> list[str]:
    folded = " ".join(body.replace("\\\n", " ").split())
    return [step for step in _SPLIT.split(folded) if _INSTALL.search(step)]


def compare(old: Mapping[str, str], new: Mapping[str, str], old_pair: tuple[str, str],
            new_pair: tuple[str, str], releases: tuple[str, str]) -> Change:
    """``old`` / ``new``: the recipe files of the two releases (path -> text); the pairs
    compared are the followed one at the old release and the one followed at the new."""
    old_files, new_files = set(recipe_files(old)), set(recipe_files(new))
    files = Diff(sorted(new_files - old_files), sorted(old_files - new_files),
                 sorted(p for p in old_files & new_files if old[p] != new[p]))
    stages, args, installs = Diff(), Diff(), Diff()
    for which, before, after in zip(("base", "image"), old_pair, new_pair, strict=True):
        if before not in old or after not in new:
            continue
        a, b = shape(old[before], before), shape(new[after], after)
        label = f"{which} ({PurePosixPath(after).name})"
        _sets(stages, label, a.stages, b.stages)
        _values(args, label, a.args, b.args)
        _sets(installs, label, a.installs, b.installs)
    return Change(releases[0], releases[1], old_pair, new_pair, files, stages, args, installs)


def _sets(diff: Diff, label: str, before: Iterable[str], after: Iterable[str]) -> None:
    was, now = list(before), list(after)
    diff.added += [f"{label}: {x}" for x in now if x not in was]
    diff.removed += [f"{label}: {x}" for x in was if x not in now]


def _values(diff: Diff, label: str, before: Mapping[str, str], after: Mapping[str, str]) -> None:
    diff.added += [f"{label}: {k}={after[k]}" for k in after if k not in before]
    diff.removed += [f"{label}: {k}={before[k]}" for k in before if k not in after]
    diff.changed += [f"{label}: {k}: {before[k]} -> {after[k]}" for k in after
                     if k in before and before[k] != after[k]]


def render(change: Change) -> str:
    """The change as Markdown, for the bump's summary (and a pull request's body)."""
    lines = [f"### Upstream's recipe, v{change.old_release} -> v{change.new_release}", ""]
    if not change:
        return "\n".join([*lines, "- unchanged", ""])
    if change.old_pair != change.new_pair:
        lines += [f"- followed: `{change.old_pair[0]}` + `{change.old_pair[1]}` -> "
                  f"`{change.new_pair[0]}` + `{change.new_pair[1]}`"]
    for title, diff in (("files", change.files), ("stages", change.stages),
                        ("ARGs", change.args), ("install steps", change.installs)):
        for verb, items in (("added", diff.added), ("removed", diff.removed),
                            ("changed", diff.changed)):
            if items:
                lines.append(f"- {title} {verb} ({len(items)}):")
                lines += [f"  - `{item}`" for item in items]
    return "\n".join(lines) + "\n"
