"""The rehearsal's deliberate bad cases, each made in a copy of this tree: the rehearsal
(tests/rehearse/test_rehearse.py, on the engine) and ``inv lint``'s resolution family
(tests/lint/test_rehearsal_agreement.py, no engine) must both stop each one at the same
cell and Dockerfile step, and both pass the tree as it is.

Each case is one recipe file as it was on main before issue 38 (commit ``BEFORE``, read from
git history) or a deliberate mistake:

- F-A: torch.Dockerfile and its lock as they were: the torch lock lacked what torch's own
  requirement files name, and the stage's ``pip install --no-index -r requirements.txt``
  stops on it (a ``--no-index`` requirement the lock lacks);
- F-B: lmcache.Dockerfile as it was: its build stage mounted torch, triton, cupy and vllm but
  not the AITER wheel the vLLM wheel pins (a consumer that does not mount a wheel another
  wheel pins);
- a lock missing a requirement a built wheel declares (einops, which amd-aiter requires,
  taken out of the vllm lock);
- a ``pip check`` conflict: the lmcache lock moves lark to 1.3.1 (PyPI's file, by its real
  sha256) under the vLLM image, whose vLLM wheel requires ``lark == 1.2.2`` (vLLM's
  requirements/common.txt), and LMCache's build stage stops installing the vLLM wheels (its
  build does not need them).  The runtime stage's ``pip install`` installs the lock over the
  vLLM image without resolving vLLM's requirements again (pip's warning, exit 0); the step's
  ``pip check`` stops it.  A lock edit alone cannot get past ``pip install``: the build stage
  installs the lmcache lock together with the vLLM wheel, and every other distribution of the
  vLLM image is pinned in the lmcache lock, so pip's resolver sees any conflict first.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocm_bake_checks.lint.locks import metadata as lockmeta
from tests.conftest import ROOT

BEFORE = "3c7e253"   # main before issue 38's recipe fixes
COPIED = ("rocm-bake.hcl", "dockerfiles", "scripts", "tasks", "pyproject.toml")


def tree(tmp_path: Path) -> Path:
    """A copy of what a rehearsal reads: the bake file, the Dockerfiles, the scripts, tasks."""
    copy = tmp_path / "tree"
    copy.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    return copy


def restore(copy: Path, path: str) -> None:
    """``path`` in the copy as it was at ``BEFORE``."""
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:{path}"],
                           capture_output=True, check=False)
    if shown.returncode != 0:
        pytest.fail(f"git show {BEFORE}:{path}: {shown.stderr.decode().strip()} "
                    "(the test reads main's history: a full clone)")
    (copy / path).write_bytes(shown.stdout)


def run_line(copy: Path, dockerfile: str, line: int) -> str:
    """The Dockerfile instruction at ``line`` (the one buildx names), joined."""
    text = (copy / dockerfile).read_text(encoding="utf-8").splitlines()
    assert text[line - 1].startswith("RUN"), text[line - 1]
    body = []
    for row in text[line - 1:]:
        body.append(row.rstrip("\\").strip())
        if not row.endswith("\\"):
            break
    return " ".join(body)


def torch_before(copy: Path) -> None:
    restore(copy, "dockerfiles/torch.Dockerfile")
    restore(copy, "dockerfiles/locks/torch.txt")


def lmcache_before(copy: Path) -> None:
    restore(copy, "dockerfiles/lmcache.Dockerfile")


def vllm_lock_without_einops(copy: Path) -> None:
    lock = copy / "dockerfiles" / "locks" / "vllm.txt"
    text = lock.read_text(encoding="utf-8")
    cut = re.sub(r"(?m)^einops==\S+ \\\n(?:    .*\n)+?(?=\S)", "", text, count=1)
    assert cut != text, "the vllm lock has no einops pin to take out"
    lock.write_text(cut, encoding="utf-8")


# lark 1.3.1 on PyPI: its wheel and its sdist, as `inv lock` writes a pin
LARK = ("lark==1.3.1 \\\n"
        "    --hash=sha256:c629b661023a014c37da873b4ff58a817398d12635d3bbb2c5a03be7fe5d1e12 \\\n"
        "    --hash=sha256:b426a7a6d6d53189d318f2b6236ab5d6429eaf09259f1ca33eb716eed10d2905\n")
# and its core metadata (PEP 658), as `inv lock` records it for `inv lint`
LARK_METADATA = lockmeta.Dist(
    "lark", "1.3.1", ('regex; extra == "regex"', 'js2py; extra == "nearley"',
                      'atomicwrites; extra == "atomic-cache"',
                      'interegular<0.4.0,>=0.3.1; extra == "interegular"'), ">=3.8",
    "https://files.pythonhosted.org/packages/82/3d/14ce75ef66813643812f3093ab17e46d3a206942ce"
    "7376d31ec2d36229e7/lark-1.3.1-py3-none-any.whl.metadata")


def pip_check_conflict(copy: Path) -> None:
    """The lmcache lock pins lark 1.3.1, which the vLLM wheel excludes, and LMCache's build
    stage does without the vLLM wheels (where pip install would refuse the lock)."""
    lock = copy / "dockerfiles" / "locks" / "lmcache.txt"
    text = lock.read_text(encoding="utf-8")
    moved = re.sub(r"(?m)^lark==1\.2\.2 \\\n(?:    --hash=\S+(?: \\)?\n)+", LARK, text,
                   count=1)
    assert moved != text, "the lmcache lock has no lark==1.2.2 pin to move"
    lock.write_text(moved, encoding="utf-8")
    recorded = lockmeta.load(copy / lockmeta.SNAPSHOT)
    recorded[lockmeta.key("lark", "1.3.1")] = LARK_METADATA
    lockmeta.save(copy / lockmeta.SNAPSHOT, recorded)
    dockerfile = copy / "dockerfiles" / "lmcache.Dockerfile"
    text = dockerfile.read_text(encoding="utf-8")
    build, runtime = text.split("FROM vllm AS runtime", 1)
    trimmed = build.replace(
        "    --mount=type=bind,from=vllm,source=/wheels,target=/deps/vllm \\\n", "").replace(
        " /deps/cupy /deps/vllm \\\n", " /deps/cupy \\\n")
    assert "/deps/vllm" not in trimmed, "the lmcache build stage's vllm mount is not as expected"
    dockerfile.write_text(trimmed + "FROM vllm AS runtime" + runtime, encoding="utf-8")


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], None]
    target: str          # the bake group rehearsed
    cell: str            # the cell that fails
    dockerfile: str
    step: str            # a text of the RUN instruction that fails: the first one holding it
    names: str           # a pattern the error names (the distribution at fault)

    def line(self, copy: Path) -> int:
        """The line of the first RUN of the copy's Dockerfile holding ``step``."""
        lines = (copy / self.dockerfile).read_text(encoding="utf-8").splitlines()
        for number, text in enumerate(lines, 1):
            if text.startswith("RUN") and self.step in run_line(copy, self.dockerfile, number):
                return number
        raise AssertionError(f"no RUN of {self.dockerfile} holds {self.step!r}")


CASES = {
    "F-A": Case(torch_before, "torch", "torch-gfx950", "dockerfiles/torch.Dockerfile",
                "pip install --no-cache-dir --no-index -r requirements.txt", "astunparse"),
    "F-B": Case(lmcache_before, "lmcache", "lmcache-gfx950", "dockerfiles/lmcache.Dockerfile",
                "/opt/rocm-bake/locks/lmcache.txt", r"amd-aiter|amd_aiter"),
    "einops": Case(vllm_lock_without_einops, "vllm", "vllm-gfx950",
                   "dockerfiles/vllm.Dockerfile", "/opt/rocm-bake/locks/vllm.txt", "einops"),
    "pip-check": Case(pip_check_conflict, "lmcache", "lmcache-gfx950",
                      "dockerfiles/lmcache.Dockerfile", "&& pip check", "lark"),
}
