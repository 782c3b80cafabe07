"""Rule ``runtime-env`` (family conformance): the runtime image here has every environment
variable upstream's final image has (the ENV of its FROM chain, and of upstream's base), at the
same value where upstream's is a literal (one with ``$`` only has to be set).  An ENV upstream
sets empty (its reset of build-only settings) asks for nothing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rocm_bake_checks.lint import stages
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.upstreamdocker import Upstream, split


def upstream_env(up: Upstream) -> dict[str, tuple[str, str]]:
    """Name -> (value, where) of upstream's final image: its base's ENV, then its own chain's."""
    env: dict[str, tuple[str, str]] = {}
    final_file, final = up.stage(up.settings.final)
    in_chain = {id(s) for s in stages.chain(final_file, final)}
    refs = [r for r in up.settings.base_stages if id(up.stage(r)[1]) not in in_chain]
    for ref in [*refs, up.settings.final]:
        parsed, stage = up.stage(ref)
        for name, flag in stages.image_env(parsed, stage).items():
            env[name] = (flag.value, f"{parsed.path.name}:{flag.line}")
    return {n: v for n, v in env.items() if v[0]}


def ours_env(up: Upstream, root: Path, files: Dockerfiles,
             variables: Mapping[str, str]) -> tuple[dict[str, stages.Flag], int]:
    """Our runtime image's ENV (base Dockerfile's, then the runtime stage's chain) and the
    runtime stage's line."""
    file, name = split(up.settings.ours_final, f"{up.settings.config} ours-final")
    env: dict[str, stages.Flag] = {}
    for path in (root / up.settings.ours_base, root / file):
        if not path.is_file():
            raise LintError(f"{up.settings.config}: {path.relative_to(root)} does not exist")
    base = files.get(root / up.settings.ours_base)
    for stage in base.stages:
        env.update(stages.image_env(base, stage, variables))
    parsed = files.get(root / file)
    runtime = parsed.stage(name)
    if runtime is None:
        raise LintError(f"{up.settings.config}: ours-final: {file} has no stage {name!r}")
    env.update(stages.image_env(parsed, runtime, variables))
    return env, runtime.base.line


def check(up: Upstream, root: Path, files: Dockerfiles,
          variables: Mapping[str, str]) -> list[Finding]:
    ours, line = ours_env(up, root, files, variables)
    file = split(up.settings.ours_final, "ours-final")[0]
    found = []
    for name, (value, where) in sorted(upstream_env(up).items()):
        have = ours.get(name)
        if have is None or not have.value:
            found.append(Finding(file, line, "runtime-env",
                                 f"upstream's final image sets {name}={value} ({where}); "
                                 "the runtime image here does not"))
        elif "$" not in value and "$" not in have.value and have.value != value:
            found.append(Finding(file, line, "runtime-env",
                                 f"upstream's final image sets {name}={value} ({where}); "
                                 f"the runtime image here sets {name}={have.value}"))
    return found
