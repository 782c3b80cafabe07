"""`inv rehearse` runs the real bake file and Dockerfiles on the real engine in the stand-in
world, and fails where a real builder would, naming the cell, the Dockerfile line and the
command's own error.

Each case is a copy of this tree with one recipe file as it was on main before issue 38
(commit ``BEFORE``, read from git history) or with one deliberate mistake:

- F-A: torch.Dockerfile and its lock as they were: the torch lock lacked what torch's own
  requirement files name, and the stage's ``pip install --no-index -r requirements.txt``
  stops on it (a ``--no-index`` requirement the lock lacks);
- F-B: lmcache.Dockerfile as it was: its build stage mounted torch, triton, cupy and vllm but
  not the AITER wheel the vLLM wheel pins (a consumer that does not mount a wheel another
  wheel pins);
- a lock missing a requirement a built wheel declares (einops, which amd-aiter requires,
  taken out of the vllm lock).

The layer cache is the engine's: the copies share every step before the one they change,
so each case rebuilds only from there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, VENV_BIN, Result, run_cli

pytestmark = pytest.mark.engine

BEFORE = "3c7e253"   # main before issue 38's recipe fixes
FAILED = re.compile(r"^rehearse: FAILED (\S+): (dockerfiles/\S+):(\d+): (.+)$", re.M)
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


# How this machine reaches PyPI (a CA bundle of its own): the rehearsal's first run fetches the
# locks' files from it.
REACH = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR",
         "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy")


def rehearse(cwd: Path, engine: str, *args: str) -> Result:
    env = {"DOCKER_HOST": engine, "XDG_CACHE_HOME": os.environ.get(
        "XDG_CACHE_HOME", str(Path.home() / ".cache"))}
    env.update({name: os.environ[name] for name in REACH if name in os.environ})
    return run_cli([str(VENV_BIN / "inv"), "rehearse", *args], cwd=cwd, env=env, timeout=3000)


def failure(result: Result) -> tuple[str, str, int, str]:
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    found = FAILED.search(result.stdout)
    assert found, result.stdout[-3000:]
    cell, dockerfile, line, error = found.groups()
    return cell, dockerfile, int(line), error


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


def test_default_target_passes_on_gfx950(engine: str) -> None:
    result = rehearse(ROOT, engine, "--arch", "gfx950")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "rehearse: passed (vllm, lmcache for gfx950)" in result.stdout
    for substitution in ("base image: rocm/dev-ubuntu-22.04", "download VLLM_SDIST_URL:",
                         "source PYTORCH:", "vllm-0.28.0.tar.gz", "download RUST_URL:",
                         "packages:"):
        assert substitution in result.stdout, substitution


def test_vllm_passes_on_gfx1201(engine: str) -> None:
    result = rehearse(ROOT, engine, "--arch", "gfx1201", "--target", "vllm")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "rehearse: passed (vllm for gfx1201)" in result.stdout


def test_main_before_the_fixes_stops_at_torchs_requirements(engine: str,
                                                             tmp_path: Path) -> None:
    copy = tree(tmp_path)
    restore(copy, "dockerfiles/torch.Dockerfile")
    restore(copy, "dockerfiles/locks/torch.txt")
    cell, dockerfile, line, error = failure(rehearse(copy, engine, "--target", "torch"))
    assert (cell, dockerfile) == ("torch-gfx950", "dockerfiles/torch.Dockerfile")
    assert "pip install --no-cache-dir --no-index -r requirements.txt" in run_line(
        copy, dockerfile, line)
    assert re.fullmatch(r"ERROR: No matching distribution found for \S+", error), error


def test_main_before_the_fixes_cannot_install_the_vllm_wheel_in_lmcache(
        engine: str, tmp_path: Path) -> None:
    copy = tree(tmp_path)
    restore(copy, "dockerfiles/lmcache.Dockerfile")
    cell, dockerfile, line, error = failure(rehearse(copy, engine, "--target", "lmcache"))
    assert (cell, dockerfile) == ("lmcache-gfx950", "dockerfiles/lmcache.Dockerfile")
    assert "/opt/rocm-bake/locks/lmcache.txt" in run_line(copy, dockerfile, line)
    # the vLLM wheel pins the cell's AITER (and FlashAttention) wheels, which it lacks
    assert re.search(r"amd-aiter|flash-attn|flash_attn", error), error


def test_a_lock_missing_a_requirement_of_a_built_wheel_fails(engine: str,
                                                             tmp_path: Path) -> None:
    copy = tree(tmp_path)
    lock = copy / "dockerfiles" / "locks" / "vllm.txt"
    text = lock.read_text(encoding="utf-8")
    cut = re.sub(r"(?m)^einops==\S+ \\\n(?:    .*\n)+?(?=\S)", "", text, count=1)
    assert cut != text, "the vllm lock has no einops pin to take out"
    lock.write_text(cut, encoding="utf-8")
    cell, dockerfile, _, error = failure(rehearse(copy, engine, "--target", "vllm"))
    assert (cell, dockerfile) == ("vllm-gfx950", "dockerfiles/vllm.Dockerfile")
    assert "einops" in error or "require-hashes" in error or "hash" in error.lower(), error
