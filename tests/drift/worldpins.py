"""The world commit each commit pin of a bake file stands for, derived from the bake file.

make_snapshot records a run against the local world with every commit pin pointed at a
commit of its world repository, then renames those commits to the real pins.  The pins the
world does not choose itself (``Upstream.pins``) are derived here, so a new component's pin
needs no entry: the commit of the world tag named by its ``<PREFIX>_REF`` when the world has
that tag, else the head of the branch its source follows (``branch``) when the world has that
branch, else the head of the world repository's default branch -- the first of those no other
pin has taken (two pins of one repository stand for two commits).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rocm_bake.model import bakefile
from rocm_bake_checks.drift import declarations
from tests.drift.gitworld import Repo

GITHUB = "https://github.com/"


def derive(bake: Path, repos: Mapping[str, Repo], chosen: Mapping[str, str]) -> dict[str, str]:
    """Variable -> world commit for every commit pin on a github.com repository of the world,
    ``chosen`` (the world's own choices) first."""
    definition = bakefile.load([bake], {})
    specs, _ = declarations.read(definition)
    out = dict(chosen)
    for spec in specs:
        if (spec.pin != "commit" or spec.name in out or spec.upstream != "git"
                or not spec.location.startswith(GITHUB)):
            continue
        slug = spec.location.removeprefix(GITHUB).removesuffix(".git")
        repo = repos.get(slug)
        if repo is None:
            continue
        ref = definition.value(spec.name.removesuffix("_COMMIT") + "_REF") \
            if spec.name.endswith("_COMMIT") else None
        candidates = [repo.commits[ref]] if isinstance(ref, str) and ref in repo.commits else []
        if spec.branch in repo.heads:
            candidates.append(repo.rev("rev-parse", f"refs/heads/{spec.branch}"))
        candidates.append(repo.rev("rev-parse", "HEAD"))
        # two pins of one repository (rocm-runtime's ROCr and rocprofiler-sdk commits) stand
        # for two commits: the snapshot's commits are renamed back to each pin
        taken = set(out.values())
        out[spec.name] = next((c for c in candidates if c not in taken), candidates[0])
    return out
