"""`inv rehearse` runs the real bake file and Dockerfiles on the real engine in the stand-in
world, and fails where a real builder would, naming the cell, the Dockerfile line and the
command's own error: on the tree as it is it passes, and it stops each of the deliberate bad
cases of tests/rehearse/badcases.py (one recipe file as it was before issue 38's fixes, or one
deliberate mistake) at its step, which ``inv lint``'s resolution family names too
(tests/lint/test_rehearsal_agreement.py).

The layer cache is the engine's: the copies share every step before the one they change,
so each case rebuilds only from there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rocm_bake.model import bakefile
from tests.conftest import ROOT, VENV_BIN, Result, run_cli
from tests.rehearse.badcases import CASES, tree

pytestmark = pytest.mark.engine

FAILED = re.compile(r"^rehearse: FAILED (\S+): (dockerfiles/\S+):(\d+): (.+)$", re.M)


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


def pinned(name: str) -> str:
    """A pin of rocm-bake.hcl, as the builds stamp it (a tag's ``v`` dropped)."""
    return str(bakefile.load([ROOT / "rocm-bake.hcl"], {}).value(name)).removeprefix("v")


def test_default_target_passes_on_gfx950(engine: str) -> None:
    result = rehearse(ROOT, engine, "--arch", "gfx950")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "rehearse: passed (vllm, lmcache for gfx950)" in result.stdout
    for substitution in ("base image: rocm/dev-ubuntu-22.04", "download VLLM_SDIST_URL:",
                         "source PYTORCH:", f"vllm-{pinned('VLLM_REF')}.tar.gz",
                         "source ROCM_RUNTIME:", "download RUST_URL:",
                         "packages:"):
        assert substitution in result.stdout, substitution


def test_default_target_passes_on_gfx1201(engine: str, tmp_path: Path) -> None:
    """gfx1201 as upstream ships it (issue 38): AITER's Triton-only build and FlashAttention's
    Triton backend, each stamped as that build stamps itself, in an image that imports them;
    LMCache's image on top of it."""
    log = tmp_path / "build.log"
    result = rehearse(ROOT, engine, "--arch", "gfx1201", "--log", str(log))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "rehearse: passed (vllm, lmcache for gfx1201)" in result.stdout
    text = log.read_text(encoding="utf-8")
    # A step taken from the layer cache prints nothing (an identical build ran it and printed
    # it): each line is checked where its step ran.
    for step, lines in (
            ("AITER_USE_SYSTEM_TRITON=1", (
                "rehearsal: AITER_TRITON_ONLY=1: the amd-aiter wheel of its Triton-only build",
                f"rehearsal: stand-in build of amd-aiter {pinned('AITER_REF')} (")),
            ("FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE, but upstream builds composable_kernel", (
                "rehearsal: FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE: the flash_attn wheel of its "
                "Triton backend",
                f"rehearsal: stand-in build of flash-attn {pinned('FA_VERSION')} (")),
            (VLLM_RUNTIME_CHECK, (f"/wheels/flash_attn-{pinned('FA_VERSION')}-py3-none-any.whl",))):
        if ran(text, "gfx1201", step):
            for line in lines:
                assert line in text, line
    if ran(text, "gfx1201", VLLM_RUNTIME_CHECK):
        assert re.search(r"expected modules \(torch, vllm, amdsmi, vllm\._rust_tool_parser, "
                         r"msgpack, quart, blinker, aiter, aiter\.ops\.triton, flash_attn, "
                         r"flash_attn\.flash_attn_triton_amd\): present", text), \
            "the gfx1201 image does not import AITER and flash_attn"


VLLM_RUNTIME_CHECK = "check-runtime.py --expect torch vllm amdsmi"


def ran(log: str, arch: str, command: str) -> bool:
    """Whether the RUN step of an ``arch`` cell running ``command`` ran in this build (buildx's
    plain log says ``#N CACHED`` for a step taken from the layer cache). The step is found by
    its command, not its name: a step two targets share is named after either of them."""
    steps = re.findall(rf"^#(\d+) \[[^\]]*-{re.escape(arch)}\b[^\]]*\] RUN .*"
                       rf"{re.escape(command)}", log, re.M)
    assert steps, f"no RUN step of an {arch} cell running {command} in the log"
    return not all(re.search(rf"^#{step} CACHED$", log, re.M) for step in steps)


def bad(name: str, engine: str, tmp_path: Path) -> str:
    """Rehearse bad case ``name`` in a copy of the tree: it stops at the cell, Dockerfile and
    RUN the case names (the step lint's resolution family names too), and the error names
    the distribution at fault; the error."""
    case = CASES[name]
    copy = tree(tmp_path)
    case.make(copy)
    cell, dockerfile, line, error = failure(rehearse(copy, engine, "--target", case.target))
    assert (cell, dockerfile, line) == (case.cell, case.dockerfile, case.line(copy))
    assert re.search(case.names, error), error
    return error


def test_main_before_the_fixes_stops_at_torchs_requirements(engine: str,
                                                             tmp_path: Path) -> None:
    error = bad("F-A", engine, tmp_path)
    assert re.fullmatch(r"ERROR: No matching distribution found for \S+", error), error


def test_main_before_the_fixes_cannot_install_the_vllm_wheel_in_lmcache(
        engine: str, tmp_path: Path) -> None:
    # the vLLM wheel pins the cell's AITER wheel, which the build stage does not mount
    bad("F-B", engine, tmp_path)


def test_a_lock_missing_a_requirement_of_a_built_wheel_fails(engine: str,
                                                             tmp_path: Path) -> None:
    bad("einops", engine, tmp_path)


def test_a_pip_check_conflict_fails_at_pip_check(engine: str, tmp_path: Path) -> None:
    error = bad("pip-check", engine, tmp_path)
    # pip check's own line, not pip install's warning before it
    assert re.fullmatch(r"vllm \S+ has requirement lark==1\.2\.2, but you have lark 1\.3\.1\.",
                        error), error
