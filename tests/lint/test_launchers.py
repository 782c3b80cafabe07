"""``launcher-upstream``: a component's upstream file that decides its compiler launcher, served
by a real HTTP server on loopback, against its declared way (upstream.toml) and against what
with-compiler-cache.sh answers; a bad and a good case per way. The upstream texts here are
small stand-ins written for the test in the shape of the real deciders (vLLM's setup.py looks
sccache then ccache up on PATH; PyTorch reads USE_CCACHE; UCX's configure takes CC)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_bake_checks.lint import launchers, upstream
from rocm_bake_checks.lint.findings import LintError
from tests.drift.webworld import Route, Server, World

ROOT = Path(__file__).resolve().parents[2]
SETUP_PY = '''
def is_sccache_available():
    return which("sccache") is not None
def is_ccache_available():
    return which("ccache") is not None
if is_sccache_available():
    args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=sccache"]
elif is_ccache_available():
    args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
'''
CMAKELISTS = 'option(USE_CCACHE "Attempt using CCache to wrap the compilation" ON)\n'
CONFIGURE = "AC_PROG_CC\nAC_PROG_CXX\n"
FILES = {"/good/setup.py": SETUP_PY, "/good/CMakeLists.txt": CMAKELISTS,
         "/good/configure.ac": CONFIGURE,
         # an upstream that turned to ccache only, and reads no USE_CCACHE any more
         "/bad/setup.py": SETUP_PY.split("elif", maxsplit=1)[0].replace("sccache", "ccache"),
         "/bad/CMakeLists.txt": "project(x)\n", "/bad/configure.ac": "AC_INIT(x)\n"}
WAYS = {"setup.py": "path:sccache,ccache", "CMakeLists.txt": "env:USE_CCACHE",
        "configure.ac": "cc"}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    world = World()
    for path, text in FILES.items():
        world.add(path, Route(body=text, content_type="text/plain; charset=utf-8"))
    with Server(world) as running:
        yield running.url


def repo(tmp_path: Path, url: str, side: str, wrapper: str) -> Path:
    entries = "".join(
        f'[[component]]\nname = "c{n}"\ndockerfile = "d"\nbase = "{url}/{side}"\n'
        f'build-system = "pyproject.toml"\nlauncher = "{file}"\nlauncher-way = "{way}"\n\n'
        for n, (file, way) in enumerate(WAYS.items()))
    (tmp_path / "upstream.toml").write_text(entries)
    script = tmp_path / launchers.WRAPPER_PATH
    script.parent.mkdir(parents=True)
    script.write_text(wrapper)
    return tmp_path / "upstream.toml"


def findings(config: Path) -> list[str]:
    metadata = upstream.Metadata(upstream.Settings(offline=None, config=config))
    return [str(f) for f in launchers.check_upstream(config, {}, config.parent, metadata)]


def test_good_upstream_and_a_wrapper_that_answers_it(server: str, tmp_path: Path) -> None:
    real = (ROOT / launchers.WRAPPER_PATH).read_text()
    assert findings(repo(tmp_path, server, "good", real)) == []


def test_upstream_that_decides_otherwise(server: str, tmp_path: Path) -> None:
    real = (ROOT / launchers.WRAPPER_PATH).read_text()
    found = findings(repo(tmp_path, server, "bad", real))
    assert found == [
        "upstream.toml:6: launcher-upstream: c0: setup.py at the pin no longer looks sccache "
        "up on PATH (declared launcher-way path:sccache,ccache)",
        "upstream.toml:14: launcher-upstream: c1: CMakeLists.txt at the pin no longer reads "
        "USE_CCACHE (declared launcher-way env:USE_CCACHE)",
        "upstream.toml:22: launcher-upstream: c2: configure.ac at the pin no longer takes the "
        "compiler from CC (AC_PROG_CC) (declared launcher-way cc)"], found


def test_a_wrapper_that_does_not_answer(server: str, tmp_path: Path) -> None:
    found = findings(repo(tmp_path, server, "good", "#!/bin/sh\nexec \"$@\"\n"))
    assert [f.split(": ", 3)[3] for f in found] == [
        "setup.py decides by path:sccache,ccache, and dockerfiles/scripts/"
        "with-compiler-cache.sh does not answer it (a PATH without the cache tools not chosen)",
        "CMakeLists.txt decides by env:USE_CCACHE, and dockerfiles/scripts/"
        "with-compiler-cache.sh does not answer it (USE_CCACHE=0)",
        "configure.ac decides by cc, and dockerfiles/scripts/with-compiler-cache.sh does not "
        "answer it (CC/CXX pointed at the host wrappers)"], found


def test_a_bad_declaration_is_one_line() -> None:
    with pytest.raises(LintError, match="launcher-way must be"):
        launchers.parse_way("path:distcc", "upstream.toml: component x")
