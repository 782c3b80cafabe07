"""What a bump must hold before it writes: every building stage of upstream's recipe is a
component or a waiver here (lint's build-components rule on the new files), and, for
``--only``, version-check's coherence rules on the new set (drift/coherence.py)."""

from __future__ import annotations

from pathlib import Path

from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.bump.config import Recipe
from rocm_bake_checks.bump.recipe import Files
from rocm_bake_checks.drift import declarations
from rocm_bake_checks.drift.coherence import Coherence
from rocm_bake_checks.drift.model import Finding as DriftFinding
from rocm_bake_checks.drift.model import Status
from rocm_bake_checks.drift.sources.git import GitSource
from rocm_bake_checks.lint import buildflags, policy, upstream, upstreamdocker, upstreamstages
from rocm_bake_checks.lint.dockerfile import parse_text
from rocm_bake_checks.lint.findings import Finding


def unmapped_stages(recipe: Recipe, files: Files, root: Path,
                    definition: Definition | None = None) -> list[str]:
    """Upstream stages of the recipe that build something and are neither answered by a
    component here (its ``build_<name>`` stage or the bake file's ``UPSTREAM_STAGE``, as lint's
    upstreamstages finds them), mapped in [dockerfiles.stages], nor waived (lint/policy.toml,
    rule build-components)."""
    settings = upstreamdocker.load(upstream.DOCKERFILES)
    if settings is None:
        return []
    roles = {upstreamdocker.split(settings.base_stages[0], "base-stages")[0]: recipe.base,
             upstreamdocker.split(settings.final, "final")[0]: recipe.image}
    parsed = {}
    for key, path in roles.items():
        text = files.text(path)
        if text is None:
            return [f"{path}: not in {files.where}"]
        parsed[key] = parse_text(text, Path(path.rsplit("/", 1)[-1]))
    up = upstreamdocker.Upstream(settings, parsed, {k: v for k, v in roles.items()})
    answered = set()
    if definition is not None:   # the stages a component of the bake file answers
        for ref in upstreamstages.stage_refs(definition, up):
            key, _, stage = ref.rpartition(":")
            answered.add(f"{roles.get(key, key).rsplit('/', 1)[-1]} stage {stage}")
    waivers = [w for w in policy.load().exceptions if w.rule == "build-components"]
    return [_stage(f) for f in buildflags.components(up, root)
            if _stage(f) not in answered and not any(w.contains in f.message for w in waivers)]


def _stage(finding: Finding) -> str:
    return finding.message.removeprefix("upstream's ").split(" builds something")[0]


def recipe_files(recipe: Recipe) -> list[str]:
    """What still needs a person when lint's upstream-dockerfiles.toml reads other files than
    the recipe followed ([dockerfiles.files] is lint's, not the bump's, to change)."""
    settings = upstreamdocker.load(upstream.DOCKERFILES)
    if settings is None:
        return []
    out = []
    for key, path in ((upstreamdocker.split(settings.base_stages[0], "")[0], recipe.base),
                      (upstreamdocker.split(settings.final, "")[0], recipe.image)):
        template = settings.files.get(key, "")
        if not template.endswith("/" + path):
            out.append(f"{upstream.DOCKERFILES.name} [dockerfiles.files] {key} reads "
                       f"{template.rsplit('/', 1)[-1]}; the recipe followed is {path}")
    return out


def coherence(definition: Definition, git: GitSource) -> list[DriftFinding]:
    """version-check's coherence rules on ``definition``: those not up to date."""
    specs, _ = declarations.read(definition)
    rules = Coherence(definition, specs, git)
    found = [Coherence.run(rule) for rule in rules.rules()]
    return [f for f in found if f is not None and f.status is not Status.UP_TO_DATE]
