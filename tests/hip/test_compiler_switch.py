"""A compiler cache keys on the compiler that really runs (issue 38): the same units, compiled
with the same flags through the real wrappers (install-compiler-wrappers.sh) and the real
ccache and sccache by with-compiler-cache.sh, hit when nothing changed and miss, by each tool's
own counters, once the compiler behind a wrapper changed -- a rebuilt g++ of the same version
behind /usr/bin/c++ (update-alternatives, as torch.Dockerfile switches gcc/g++), a rebuilt
clang behind the HIP wrapper's clang++, then clang++-22 behind /usr/bin/c++. Before the fix, a
cache tool run as a launcher in front of a wrapper hashed the unchanged wrapper: both tools hit
after the rebuilt g++, and ccache served g++'s object to the clang++ build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_bake.compilercache.health import STATS_MARK, CacheStats
from tests.conftest import ROOT, missing
from tests.hip.conftest import HERE, docker_run
from tests.hip.test_toolchain import SCCACHE

pytestmark = pytest.mark.engine

TOOLS = ("ccache", "sccache")


def _stats(output: str) -> dict[str, CacheStats]:
    found = {}
    for line in output.splitlines():
        if line.startswith(STATS_MARK):
            name, payload = line[len(STATS_MARK):].split(" ", 1)
            found[name] = CacheStats.parse(name, json.loads(payload))
    return found


def _comments(output: str) -> dict[str, str]:
    """`objects STEP TOOL COMMENT`: the .comment of each step's launcher-route object."""
    found = {}
    for line in output.splitlines():
        if line.startswith("objects "):
            _, step, tool, comment = line.split(" ", 3)
            found[f"{step}-{tool}"] = comment
    return found


@pytest.fixture(scope="module")
def switched(engine: str, hip_image: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    if not SCCACHE.is_file():
        missing(str(SCCACHE), "bash scripts/cachestack.sh")
    work = tmp_path_factory.mktemp("compiler-switch")
    proc = docker_run(engine, {ROOT / "dockerfiles" / "scripts": "/opt/rocm-bake/bin:ro",
                               SCCACHE: "/usr/local/bin/sccache:ro",
                               HERE / "compiler-switch.sh": "/compiler-switch.sh:ro",
                               work: "/w"}, "/compiler-switch.sh")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("tool", TOOLS)
def test_nothing_changed_hits(switched: str, tool: str) -> None:
    stats = _stats(switched)
    cold, warm = stats[f"cold-{tool}"], stats[f"warm-{tool}"]
    assert (cold.hits, cold.misses) == (0, 3)
    assert (warm.hits, warm.misses) == (3, 0)
    again = stats[f"clang-again-{tool}"]          # the new compilers, compiled again
    assert (again.hits, again.misses) == (3, 0)


@pytest.mark.parametrize("tool", TOOLS)
def test_a_rebuilt_compiler_of_the_same_version_misses(switched: str, tool: str) -> None:
    """g++ and ROCm's clang rebuilt, their version unchanged: every route misses, the two
    through a launcher in front of a wrapper included."""
    assert "(Debian 14.2.0" in switched.split("c++ is now ", 1)[1].splitlines()[0]
    rebuilt = _stats(switched)[f"rebuilt-{tool}"]
    assert (rebuilt.hits, rebuilt.misses) == (0, 3)


@pytest.mark.parametrize("tool", TOOLS)
def test_another_compiler_misses_and_its_own_object_is_kept(switched: str, tool: str) -> None:
    """clang++-22 behind /usr/bin/c++: the two host units miss and their objects are clang's;
    the HIP unit, whose compiler did not change this time, hits."""
    clang = _stats(switched)[f"clang-{tool}"]
    assert (clang.hits, clang.misses) == (1, 2)
    comments = _comments(switched)
    assert comments[f"warm-{tool}"].startswith("GCC: (Debian 14.2.0")
    assert comments[f"clang-{tool}"].startswith("Debian clang version 22.")
    assert comments[f"clang-again-{tool}"].startswith("Debian clang version 22.")


def test_a_switch_rewrites_only_the_wrappers_of_the_switched_compiler(switched: str) -> None:
    """with-compiler-cache.sh says which wrapper's compiler changed: /usr/bin/c++ twice and
    the HIP clang++ once, per tool; cc, gcc and g++ kept theirs."""
    lines = [line for line in switched.splitlines()
             if line.startswith("with-compiler-cache: ") and "compiler now" in line]
    changed = sorted(line.split()[1].rstrip(":") for line in lines)
    assert changed == sorted([f"{t}/host/c++" for t in TOOLS] * 2 +
                             [f"{t}/bin/clang++" for t in TOOLS]), lines


def test_the_identity_follows_the_compiler_a_wrapper_runs(engine: str, hip_image: str,
                                                          tmp_path: Path) -> None:
    """compiler-identity.sh names a wrapper's compiler, not the wrapper: the same line for
    the wrapper and for /usr/bin/c++, another one after the switch."""
    script = """
export PATH=/opt/rocm-bake/bin:$PATH
install-compiler-wrappers.sh /opt/rocm/llvm/bin /tmp/w ccache
compiler-identity.sh /tmp/w/ccache/host/c++
compiler-identity.sh /usr/bin/c++
sha256sum "$(readlink -f /usr/bin/c++)" | cut -c1-64
update-alternatives --install /usr/bin/c++ c++ /usr/bin/clang++-22 100 > /dev/null
compiler-identity.sh /tmp/w/ccache/host/c++
"""
    proc = docker_run(engine, {ROOT / "dockerfiles" / "scripts": "/opt/rocm-bake/bin:ro"}, script)
    assert proc.returncode == 0, proc.stderr
    wrapper, direct, sha, after = proc.stdout.splitlines()
    assert wrapper == direct == f"c++ {sha}"
    assert after.startswith("c++ ") and after != wrapper
