"""Rule ``apt-base`` (family conformance): every apt package upstream's base installs
(``upstream-dockerfiles.toml`` base-stages, with the stages they are built from) is installed
by the base Dockerfile here; a package left out on purpose is a policy.toml exception."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rocm_bake_checks.lint import stages
from rocm_bake_checks.lint.consistency import Dockerfiles
from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.upstreamdocker import Upstream


def theirs(up: Upstream, values: Mapping[str, str]) -> dict[str, str]:
    """Package -> where upstream's base installs it (``Dockerfile.rocm_base stage base:46``)."""
    found: dict[str, str] = {}
    for ref in up.settings.base_stages:
        parsed, stage = up.stage(ref)
        defaults = {n: a.default or "" for n, a in parsed.global_args.items()}
        for link in stages.chain(parsed, stage, values):
            args = {n: a.default or "" for n, a in link.args.items()}
            for name, line in stages.apt_packages(link, {**defaults, **args, **values}).items():
                found.setdefault(name, f"{parsed.path.name} stage {link.name}:{line}")
    return found


def check(up: Upstream, root: Path, files: Dockerfiles,
          values: Mapping[str, str]) -> list[Finding]:
    path = root / up.settings.ours_base
    if not path.is_file():
        raise LintError(f"{up.settings.config}: ours-base {up.settings.ours_base} does not exist")
    parsed = files.get(path)
    ours: dict[str, int] = {}
    for stage in parsed.stages:
        ours.update(stages.apt_packages(stage, values))
    line = max(ours.values(), default=1)
    return [Finding(up.settings.ours_base, line, "apt-base",
                    f"upstream's base installs {name} ({where}); this base does not")
            for name, where in sorted(theirs(up, values).items()) if name not in ours]
