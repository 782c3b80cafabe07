"""inv bump: follow vLLM's ROCm recipe at a release (rocm_bake_checks.bump)."""

from __future__ import annotations

import sys
from pathlib import Path

from invoke.context import Context
from invoke.exceptions import Exit
from invoke.tasks import task

from tasks._cli import print_report, reports_errors

STEPS = "snapshot,lock,regen,lint,drift"


@task(iterable=["rewrite"], auto_shortflags=False, help={
    "vllm": "the vLLM release to follow, e.g. v0.33.0 (default: the newest on PyPI)",
    "dry_run": "print the summary only; write nothing (exit 1 when it lists something that "
               "needs a person)",
    "branch": "commit the result on this new branch: the commit holds exactly what the bump "
              "wrote (a work tree with untracked files that are not ignored is refused)",
    "only": "bump one coherence group only: rocm, torch (with torchvision, torchaudio, triton), "
            "aiter, flash-attn, mori, nixl (UCX with NIXL), vllm, lmcache; refused when the "
            "set breaks a coherence rule of version-check",
    "resolve": "replace every abbreviated pin (ABBREVIATED in the bake file) by the full "
               "commit it names on its branch, where the host is reachable; nothing else moves",
    "recipe": "the base Dockerfile of upstream's recipe to follow, e.g. "
              "docker/Dockerfile.rocm_base (default: the one bump/upstream.toml names for the "
              "release; a release without it stops the bump, naming what it has instead)",
    "source": "where upstream's recipe is read: sdist (the release's vllm-X.Y.Z.tar.gz on "
              "PyPI, default) or git (VLLM_REPO at the tag)",
    "file": "bake file (default: rocm-bake.hcl)",
    "rewrite": "PREFIX=REPLACEMENT applied to every upstream address (git, PyPI, the base "
               "image's registry: docker.io/=HOST:PORT/), as inv version-check --rewrite",
    "pypi": "PyPI base URL (default https://pypi.org)",
    "cache_dir": "git/HTTP cache (default: version-check's; 'off': none)",
    "timeout": "seconds one upstream may take in all (default 60)",
    "steps": f"follow-up steps after writing, comma-separated (default {STEPS}; '' none)",
})
@reports_errors
def bump(c: Context, rewrite: list[str], vllm: str = "", dry_run: bool = False,
         branch: str = "", only: str = "", resolve: bool = False, recipe: str = "",
         source: str = "sdist",
         file: str = "rocm-bake.hcl", pypi: str = "", cache_dir: str = "",
         timeout: float = 60.0, steps: str = STEPS) -> None:
    """Bump the pins to vLLM's ROCm recipe at a release: resolve, rewrite, relock, recheck.

    Every name upstream's recipe pins is resolved (commits by git, versions at the commit,
    the base image's digest by its registry); only the default values of the bake file are
    rewritten. Exit status: 0 bumped and clean, 1 bumped with findings for a person (listed),
    2 nothing written (the one line says which pin and what was asked). A dry run's status is
    the same: 1 when its summary lists findings for a person.
    """
    from rocm_bake.core import extras

    extras.require("lint", "inv bump")   # the recipe's Dockerfiles are read as inv lint reads
    from rocm_bake_checks.bump import abbreviated
    from rocm_bake_checks.bump import run as bumping

    options = bumping.Options(
        file=Path(file), root=Path.cwd(), vllm=vllm, source=source, recipe=recipe,
        dry_run=dry_run,
        branch=branch, only=only, rewrites=list(rewrite), pypi=pypi, cache_dir=cache_dir,
        timeout=timeout, steps=tuple(s.strip() for s in steps.split(",") if s.strip()))
    if resolve:
        code, text = abbreviated.resolve(options)
    else:
        try:
            code, text = bumping.run(options, _regen)
        except bumping.RecipeGoneError as gone:   # upstream's recipe change first, then the line
            print_report(gone.report)
            raise
    print_report(text)   # `inv bump | head`: the reader left, the status kept
    if code:
        raise Exit(code=code)


def _regen(root: Path, files: list[Path]) -> list[str]:
    from rocm_bake.core.errors import RocmBakeError
    from rocm_bake_docs import regen

    try:
        regen.regenerate(root, lambda line: print(line, file=sys.stderr))
    except RocmBakeError as exc:
        return [f"regen: {exc}"]
    return []
