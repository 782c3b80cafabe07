"""The conformance family against real upstream metadata (the files of the pinned versions:
tests/upstream_sdists.py reads them from the releases' sdists on PyPI) served by a real HTTP
server on loopback: recorded, replayed offline, and a bad and a good case per rule."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks import lint
from rocm_bake_checks.lint import policy, upstream
from tests import upstream_sdists
from tests.drift.webworld import Route, Server, World

ROOT = Path(__file__).resolve().parents[2]
RAW = upstream_sdists.RAW
NO_POLICY = Path("no-policy.toml")


def fixture_files() -> dict[str, str]:
    """URL path (/owner/repo/ref/file) -> upstream's text."""
    return {f"/{path}": text for path, text in upstream_sdists.served().items()}


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    """``fixture_files``, had when the tests set up (the sdists downloaded: PyPI unreachable
    is the fixture's one-line failure)."""
    return fixture_files()


@pytest.fixture(scope="module")
def server(files: dict[str, str]) -> Iterator[str]:
    world = World()
    for path, text in files.items():
        world.add(path, Route(body=text, content_type="text/plain; charset=utf-8"))
    with Server(world) as running:
        yield running.url


def online(url: str, record: Path | None = None, config: Path = upstream.CONFIG,
           dockerfiles: Path | None = None) -> upstream.Settings:
    """Fetched from the loopback server; upstream's Dockerfiles compared only when asked
    (``dockerfiles``: tests/lint/test_upstream_dockerfiles.py has their cases)."""
    return upstream.Settings(offline=None, record=record, rewrites=((RAW, url),), config=config,
                             dockerfiles=dockerfiles)


def facts(snapshot: Path) -> dict[str, object]:
    """key -> what was read (the facts, less the sha256 of the file they were read from: the
    tests' own stand-ins for GitHub's files say the same facts in other bytes)."""
    answers = json.loads(snapshot.read_text(encoding="utf-8"))["answers"]
    return {k: v["value"]["value"] for k, v in answers.items()}


def test_the_committed_snapshot_holds_facts_of_exactly_the_release_files(
        files: dict[str, str]) -> None:
    """Every file lint reads has facts in the snapshot, those of a release's sdist were read
    from its very bytes (their sha256), and no answer holds a file's text."""
    answers = json.loads(upstream.SNAPSHOT.read_text(encoding="utf-8"))["answers"]
    read = {k.removeprefix(f"GET {RAW}").split(" [", 1)[0]: v["value"]
            for k, v in answers.items()}
    assert set(read) == set(files)
    for path, value in read.items():
        assert set(value) == {"sha256", "value"}, path       # no body, no text
        where = "/".join(path.split("/", 4)[1:4])
        if where in upstream_sdists.RELEASES:
            text = files[path].encode()
            assert value["sha256"] == hashlib.sha256(text).hexdigest(), path


def test_the_recipes_conform_online_recorded_and_replayed(server: str, tmp_path: Path) -> None:
    record = tmp_path / "metadata.json"
    bake = [ROOT / "rocm-bake.hcl"]
    # every family that reads the snapshot (the locks and resolution read the built wheels'
    # setup.py files), so the recording holds all of it
    families = ["conformance", "locks", "resolution"]
    found = lint.run(ROOT, bake, families, NO_POLICY,
                     online(server, record, dockerfiles=upstream.DOCKERFILES))
    # What differs from upstream's Dockerfiles differs on purpose: lint/policy.toml says why.
    assert policy.apply(policy.load(), found, "policy.toml", checked=()) == []
    assert facts(record) == facts(upstream.SNAPSHOT)
    replay = upstream.Settings(offline=record)
    assert lint.run(ROOT, bake, families, NO_POLICY, replay) == found


def test_files_the_caller_holds_are_read_from_memory_and_recorded_alike(
        files: dict[str, str], tmp_path: Path) -> None:
    """``inv bump``'s way (lint.upstream.Held): every upstream file held in memory, the
    network asked for none (the rewrite leads nowhere), the same findings and recording."""
    texts = {path.removeprefix("/"): text for path, text in files.items()}
    held = upstream.Held(f"{RAW}/", texts.get, "the fixtures")
    record = tmp_path / "metadata.json"
    settings = upstream.Settings(offline=None, record=record, held=(held,),
                                 rewrites=((RAW, "http://127.0.0.1:9"),))
    families = ["conformance", "locks", "resolution"]
    found = lint.run(ROOT, [ROOT / "rocm-bake.hcl"], families, NO_POLICY, settings)
    assert policy.apply(policy.load(), found, "policy.toml", checked=()) == []
    assert facts(record) == facts(upstream.SNAPSHOT)
    metadata = upstream.Metadata(settings)
    with pytest.raises(lint.LintError) as caught:
        metadata.fact(f"{RAW}/vllm-project/vllm/nope/setup.py", "length", len)
    assert str(caught.value) == (f"upstream metadata {RAW}/vllm-project/vllm/nope/setup.py: "
                                 "the fixtures has no vllm-project/vllm/nope/setup.py")


def test_a_held_file_that_cannot_be_had_is_one_line() -> None:
    def broken(path: str) -> str:
        if path == "binary":
            return b"\xff".decode()
        raise RocmBakeError(f"{path} in vllm-0.33.0.tar.gz: 300 bytes, over the 0.1 MB a "
                            "file may have here")

    metadata = upstream.Metadata(upstream.Settings(
        offline=None, held=(upstream.Held(f"{RAW}/v/", broken, "the release"),)))
    for path, message in (("setup.py", "setup.py in vllm-0.33.0.tar.gz: 300 bytes, over the "
                                       "0.1 MB a file may have here"),
                          ("binary", "binary in the release is not UTF-8 text")):
        with pytest.raises(lint.LintError) as caught:
            metadata.fact(f"{RAW}/v/{path}", "length", len)
        assert str(caught.value) == f"upstream metadata {RAW}/v/{path}: {message}"


def test_a_pin_missing_from_the_snapshot_is_one_line_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"format": "rocm-bake-drift-snapshot/1", "recorded_at": "x", '
                     '"answers": {}}\n')
    with pytest.raises(lint.LintError, match="not in the recorded snapshot") as caught:
        lint.run(ROOT, [ROOT / "rocm-bake.hcl"], ["conformance"], NO_POLICY,
                 upstream.Settings(offline=empty))
    assert "\n" not in str(caught.value)


# -- a bad and a good case per rule, on a small repository ----------------------------------
BAKE = """variable "PYTHON_VERSION" {{ default = "3.12" }}
variable "CMAKE_VERSION" {{ default = "3.31.10" }}
variable "PYTORCH_VERSION" {{ default = "2.13.0" }}
variable "TRITON_VERSION" {{ default = "3.8.0" }}
variable "CUPY_REF" {{ default = "v14.2.0" }}
variable "NIXL_COMMIT" {{ default = "8770b655a6b17b5cdf7d2b56b6e0be5392496df5" }}
variable "VLLM_COMMIT" {{ default = "4ba787ec9" }}
variable "LMCACHE_COMMIT" {{ default = "140819c9d57a975dbc5678a6459a218e544cb58b" }}
target "app" {{
  context = "dockerfiles"
  dockerfile = "{dockerfile}"
  args = {{ CMAKE_VERSION = CMAKE_VERSION }}
}}
group "default" {{
  targets = ["app"]
}}
"""
BASE = ("FROM scratch AS base\nARG CMAKE_VERSION\nCOPY requirements/build-tools.txt /r.txt\n"
        'RUN pip install -r /r.txt && pip install "cmake==${CMAKE_VERSION}" "ninja==1.11.1.4"\n')
TOOLS = ("setuptools==79.0.1\nwheel==0.45.1\npackaging==25.0\nbuild==1.2.2.post1\n"
         "pybind11==2.13.6\nCython==3.0.12\nsetuptools-scm==8.3.1\nPyYAML==6.0.2\n")
COMPONENTS = {
    "cupy": ("cupy.Dockerfile", "cupy/cupy/{CUPY_REF}", "", ""),
    "nixl": ("ucx-nixl.Dockerfile", "ai-dynamo/nixl/{NIXL_COMMIT}", "", ""),
    "vllm": ("vllm.Dockerfile", "vllm-project/vllm/{VLLM_COMMIT}",
             '["requirements/build/rocm.txt"]', ""),
    "lmcache": ("lmcache.Dockerfile", "LMCache/LMCache/{LMCACHE_COMMIT}", "",
                '["requirements/common.txt", "requirements/rocm_core.txt"]'),
}
NIXL_TOOLS = ("meson-python==0.18.0\npatchelf==0.17.2.4\nsetuptools==80.9.0\npytest==8.4.2\n"
              "types-PyYAML==6.0.12.20250915\n")
CASES: dict[str, tuple[str, str, dict[str, str], dict[str, str]]] = {
    # rule, component, bad files, good files (beside docker-bake.hcl and base.Dockerfile)
    "cupy-build-tools": ("build-requires", "cupy",
                         {"cupy.Dockerfile": "FROM base AS build\nRUN pip wheel -w /w .\n"},
                         {"cupy.Dockerfile": "FROM base AS build\nCOPY requirements/cupy.txt "
                                             "/c.txt\nRUN pip install -r /c.txt && "
                                             "pip wheel -w /w .\n",
                          "requirements/cupy.txt": "Cython==3.2.9\nnumpy==2.2.6\n"}),
    "nixl-build-tools": ("build-requires", "nixl",
                         {"ucx-nixl.Dockerfile": "FROM base AS build\nRUN pip wheel -w /w .\n"},
                         {"ucx-nixl.Dockerfile": "FROM base AS build\nCOPY requirements/nixl.txt"
                                                 " /n.txt\nRUN pip install -r /n.txt && "
                                                 "pip wheel --no-build-isolation -w /w .\n",
                          "requirements/nixl.txt": NIXL_TOOLS}),
    "nixl-checking-frontend": ("build-requires", "nixl",
                               {"ucx-nixl.Dockerfile": "FROM base AS build\nCOPY "
                                "requirements/nixl.txt /n.txt\nRUN pip install -r /n.txt && "
                                "python -m build --wheel --no-isolation .\n",
                                "requirements/nixl.txt": NIXL_TOOLS},
                               {"ucx-nixl.Dockerfile": "FROM base AS build\nCOPY "
                                "requirements/nixl.txt /n.txt\nRUN pip install -r /n.txt && "
                                "python -m build --wheel --no-isolation -x .\n",
                                "requirements/nixl.txt": NIXL_TOOLS}),
    "lmcache-file-owner": ("file-owner", "lmcache",
                           {"lmcache.Dockerfile": "FROM base AS build\nRUN pip wheel -w /w .\n"},
                           {"lmcache.Dockerfile": "FROM base AS build\nRUN drop-requirement.py "
                            "requirements/rocm_core.txt cupy-rocm-7-0 && pip wheel -w /w .\n"}),
    "vllm-constraint-conflict": ("constraint-conflict", "vllm",
                                 {"vllm.Dockerfile": "FROM base AS build\nRUN python "
                                  "use_existing_torch.py && pip install -r "
                                  "requirements/build/rocm.txt && pip wheel -w /w .\n"},
                                 {"vllm.Dockerfile": "FROM base AS build\nRUN python "
                                  "use_existing_torch.py && drop-requirement.py "
                                  "requirements/build/rocm.txt triton amdsmi && pip install "
                                  "-r requirements/build/rocm.txt && pip wheel -w /w .\n"}),
}


def repository(root: Path, component: str, files: dict[str, str]) -> tuple[Path, Path]:
    dockerfile, path, installs, runtime = COMPONENTS[component]
    texts = {"docker-bake.hcl": BAKE.format(dockerfile=dockerfile),
             "dockerfiles/base.Dockerfile": BASE,
             "dockerfiles/requirements/build-tools.txt": TOOLS,
             **{f"dockerfiles/{name}": text for name, text in files.items()}}
    config = (f'[[component]]\nname = "{component}"\ndockerfile = "dockerfiles/{dockerfile}"\n'
              f'base = "{RAW}/{path}"\nbuild-system = "pyproject.toml"\n'
              + (f"installs = {installs}\n" if installs else "")
              + (f"runtime = {runtime}\n" if runtime else "")
              + upstream.CONFIG.read_text(encoding="utf-8").split("[built]", 1)[1]
              .join(["[built]", ""]))
    texts["upstream.toml"] = config
    for name, text in texts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "docker-bake.hcl", root / "upstream.toml"


def findings(server: str, root: Path, component: str, files: dict[str, str]) -> list[str]:
    bake, config = repository(root, component, files)
    found = lint.run(root, [bake], ["conformance"], root / NO_POLICY,
                     online(server, config=config))
    return [str(f) for f in found]


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_catches_the_bad_case(name: str, server: str, tmp_path: Path) -> None:
    rule, component, bad, _ = CASES[name]
    found = findings(server, tmp_path, component, bad)
    assert any(f": {rule}: {component}: " in f for f in found), found


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_accepts_the_good_case(name: str, server: str, tmp_path: Path) -> None:
    _, component, _, good = CASES[name]
    assert findings(server, tmp_path, component, good) == []


def test_what_the_old_pins_were_told(server: str, tmp_path: Path) -> None:
    """Issue 14 items 2, 3 and 7 as the findings name them."""
    cupy = findings(server, tmp_path / "c", "cupy", CASES["cupy-build-tools"][2])
    assert any("numpy>=2.0" in f and "does not install" in f for f in cupy), cupy
    assert any("cython 3.0.12 is outside Cython<3.3,>=3.2" in f for f in cupy), cupy
    nixl = findings(server, tmp_path / "n", "nixl", CASES["nixl-build-tools"][2])
    assert any("setuptools 79.0.1 is outside setuptools>=80.9.0" in f for f in nixl), nixl
    assert {n for n in ("pytest", "types-PyYAML") if any(f"needs {n}," in f for f in nixl)} \
        == {"pytest", "types-PyYAML"}, nixl
    lmcache = findings(server, tmp_path / "l", "lmcache", CASES["lmcache-file-owner"][2])
    assert any("rocm_core.txt installs cupy-rocm-7-0" in f for f in lmcache), lmcache
