"""The locks: `inv lock` resolves each component's inputs into a hashed lock against a real
package index (on loopback), the lint reports a stale one, and real pip installs the lock and
the cell's own wheels with --require-hashes, refusing a wheel whose bytes changed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_bake.model import components
from rocm_bake_checks import lint
from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.locks import file as lockfile
from rocm_bake_checks.lint.locks import inputs as lockinputs
from rocm_bake_checks.lint.locks import rules as locks
from tests.conftest import ROOT, run_cli
from tests.lint.pyindex import make_wheel, serve, sha256, write_index
from tests.lint.test_rules import write

SCRIPTS = ROOT / "dockerfiles" / "scripts"
BAKE = """\
variable "GPU_ARCHS" {
  default = "x1"
}
variable "ROCM_BASE_IMAGE" {
  default = "rocm/dev-ubuntu-22.04"
}
ALL_ARCHS = ["x1"]
ARCHS = { base = ["x1"], app = ["x1"] }
SKIP = {}
target "base" {
  matrix     = { arch = ARCHS["base"] }
  name       = "base-${arch}"
  context    = "dockerfiles"
  dockerfile = "base.Dockerfile"
}
target "app" {
  matrix     = { arch = ARCHS["app"] }
  name       = "app-${arch}"
  context    = "dockerfiles"
  dockerfile = "app.Dockerfile"
  contexts   = { base = "target:base-${arch}" }
}
group "all" {
  targets = ["app-x1"]
}
"""
PROJECT = {
    "docker-bake.hcl": BAKE,
    "dockerfiles/requirements/tools.txt": "alpha==1.0\n",
    # torch is the cell's own (upstream.toml [built]): the index has none, the lock leaves it out
    "dockerfiles/requirements/app.txt": "beta>=1.0\ntorch\n",
    "dockerfiles/base.Dockerfile":
        "FROM scratch AS base\n"
        "# the tools: requirements/tools.txt, installed from locks/base.txt\n"
        "COPY locks/base.txt /opt/locks/base.txt\n"
        "RUN pip install --require-hashes -r /opt/locks/base.txt\n",
    "dockerfiles/app.Dockerfile":
        "FROM base AS app\n"
        "# requirements/app.txt, installed from locks/app.txt\n"
        "COPY locks/app.txt /opt/locks/app.txt\n"
        "RUN write-constraints.py --wheels /tmp/w.txt /c.txt /wheels \\\n"
        "    && pip install --require-hashes -r /opt/locks/app.txt -r /tmp/w.txt\n",
}


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    root = tmp_path / "index"
    wheels = [make_wheel(root / "files", "alpha", "1.0"),
              make_wheel(root / "files", "alpha", "2.0"),
              make_wheel(root / "files", "beta", "1.0"),
              make_wheel(root / "files", "beta", "2.0", ["gamma<2"]),
              make_wheel(root / "files", "gamma", "1.0"),
              make_wheel(root / "files", "gamma", "2.0")]
    write_index(root, wheels)
    with serve(root) as url:
        yield url


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write(root, PROJECT)
    return root


def lock(root: Path, index: str, upgrade: bool = False) -> dict[str, lockfile.Written]:
    return {w.component: w
            for w in locks.lock(root, [root / "docker-bake.hcl"], (), index, upgrade)}


def release(tmp_path: Path, name: str, version: str, requires: list[str]) -> None:
    """A new release on the index."""
    root = tmp_path / "index"
    make_wheel(root / "files", name, version, requires)
    write_index(root, sorted((root / "files").glob("*.whl")))


def app_pins(root: Path) -> dict[str, str]:
    return lockfile.pins((root / "dockerfiles/locks/app.txt").read_text())


def run_locks_lint(root: Path) -> list[str]:
    return [str(f) for f in lint.run(root, [root / "docker-bake.hcl"], ["locks"],
                                     policy_file=root / "no-policy.toml")]


def test_every_component_is_locked_by_version_and_sha256(tmp_path: Path, index: str) -> None:
    root = project(tmp_path)
    written = lock(root, index)
    assert sorted(written) == ["app", "base"]
    base = (root / "dockerfiles/locks/base.txt").read_text()
    app = (root / "dockerfiles/locks/app.txt").read_text()
    assert lockfile.pins(base) == {"alpha": "1.0"}
    # beta's newest release, with what it needs; the base image's exact pin kept; no torch
    assert lockfile.pins(app) == {"alpha": "1.0", "beta": "2.0", "gamma": "1.0"}
    files = tmp_path / "index" / "files"
    for wheel in ("alpha-1.0", "beta-2.0", "gamma-1.0"):
        assert f"--hash=sha256:{sha256(files / f'{wheel}-py3-none-any.whl')}" in app
    built = next(line for line in app.splitlines() if line.startswith("# built by the cell"))
    assert "torch" in built and "torch==" not in app   # the cell's own: named, not locked
    assert written["app"].pins == 3
    assert run_locks_lint(root) == []


def test_inv_lock_names_each_lock_and_its_size(tmp_path: Path, index: str) -> None:
    root = project(tmp_path)
    env = {"UV_CACHE_DIR": os.environ["UV_CACHE_DIR"]}
    result = run_cli(["inv", "--search-root", str(ROOT), "lock", "--file", "docker-bake.hcl",
                      "--index-url", index, "--component", "base"], cwd=root, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("dockerfiles/locks/base.txt: 1 distributions (resolved)\n"
                             "dockerfiles/locks/metadata.json: the locked distributions' "
                             "metadata (1 read from the index)\n")
    assert not (root / "dockerfiles/locks/app.txt").exists()
    unknown = run_cli(["inv", "--search-root", str(ROOT), "lock", "--file", "docker-bake.hcl",
                       "--index-url", index, "--component", "nope"], cwd=root, env=env)
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == ("error: no lock for component nope; components with a "
                                      "lock: base, app")


def test_a_lock_whose_inputs_changed_is_stale(tmp_path: Path, index: str) -> None:
    root = project(tmp_path)
    lock(root, index)
    (root / "dockerfiles/requirements/tools.txt").write_text("alpha==2.0\n")
    assert run_locks_lint(root) == [
        f"dockerfiles/locks/{name}.txt:4: lock-stale: {name}: the lock's inputs changed since "
        "it was made (its inputs-sha256 is not theirs): run `inv lock`"
        for name in ("app", "base")]
    lock(root, index)
    assert run_locks_lint(root) == []
    (root / "dockerfiles/locks/app.txt").unlink()
    assert run_locks_lint(root) == [
        "dockerfiles/app.Dockerfile:1: lock-stale: app: no lock dockerfiles/locks/app.txt: "
        "run `inv lock`",
        "dockerfiles/app.Dockerfile:4: pip-unlocked: pip install: lock app.txt does not exist "
        "in dockerfiles/locks (`inv lock`)"]


def test_a_changed_input_moves_only_what_it_must(tmp_path: Path, index: str) -> None:
    root = project(tmp_path)
    lock(root, index)
    release(tmp_path, "beta", "3.0", ["gamma<2"])
    before = (root / "dockerfiles/locks/app.txt").read_text()
    assert not any(w.resolved for w in lock(root, index).values())   # inputs unchanged: kept
    assert (root / "dockerfiles/locks/app.txt").read_text() == before
    (root / "dockerfiles/requirements/tools.txt").write_text("alpha==2.0\n")
    written = lock(root, index)
    assert written["app"].resolved and written["base"].resolved
    # the changed pin moved; beta stayed at the version the lock had, though 3.0 is out
    assert app_pins(root) == {"alpha": "2.0", "beta": "2.0", "gamma": "1.0"}
    lock(root, index, upgrade=True)
    assert app_pins(root) == {"alpha": "2.0", "beta": "3.0", "gamma": "1.0"}
    assert run_locks_lint(root) == []


def test_a_lock_missing_an_input_is_stale(tmp_path: Path, index: str) -> None:
    root = project(tmp_path)
    lock(root, index)
    path = root / "dockerfiles/locks/app.txt"
    path.write_text(path.read_text().replace("gamma==1.0", "delta==1.0").replace(
        "beta==2.0", "epsilon==2.0"))
    assert run_locks_lint(root) == [
        "dockerfiles/locks/app.txt:4: lock-stale: app: the lock does not pin beta, which its "
        "inputs require: run `inv lock`"]


def test_a_component_installing_another_components_lock_is_caught(tmp_path: Path,
                                                                   index: str) -> None:
    root = project(tmp_path)
    lock(root, index)
    dockerfile = root / "dockerfiles/app.Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace("locks/app.txt", "locks/base.txt"))
    assert run_locks_lint(root) == [
        "dockerfiles/app.Dockerfile:1: pip-unlocked: app: the stages install with pip but "
        "never from the component's own lock locks/app.txt"]


def pip_install(index: str, target: Path, *requirement_files: Path
                ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-cache-dir",
               "--disable-pip-version-check", "--require-hashes", "--index-url", index,
               "--target", str(target)]
    for path in requirement_files:
        command += ["-r", str(path)]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def test_pip_installs_the_lock_and_the_cells_wheels_by_sha256(tmp_path: Path,
                                                               index: str) -> None:
    root = project(tmp_path)
    lock(root, index)
    # the cell's own torch, built in the graph: not on the index, installed from its file
    cell = make_wheel(tmp_path / "wheels", "torch", "9.0+cell", ["beta"])
    listed = tmp_path / "cell-wheels.txt"
    written = subprocess.run([sys.executable, str(SCRIPTS / "write-constraints.py"),
                              "--wheels", str(listed), str(tmp_path / "constraints.txt"),
                              str(cell.parent)], capture_output=True, text=True, check=False)
    assert written.returncode == 0, written.stderr
    assert listed.read_text() == f"torch @ {cell.as_uri()} --hash=sha256:{sha256(cell)}\n"
    installed = pip_install(index, tmp_path / "site", root / "dockerfiles/locks/app.txt", listed)
    assert installed.returncode == 0, installed.stderr
    assert sorted(p.name for p in (tmp_path / "site").glob("*.dist-info")) == [
        "alpha-1.0.dist-info", "beta-2.0.dist-info", "gamma-1.0.dist-info",
        "torch-9.0+cell.dist-info"]
    # the wheel file changed after its line was written: pip refuses it
    make_wheel(tmp_path / "wheels", "torch", "9.0+cell", ["beta", "alpha"])
    refused = pip_install(index, tmp_path / "again", root / "dockerfiles/locks/app.txt", listed)
    assert refused.returncode != 0 and "THESE PACKAGES DO NOT MATCH THE HASHES" in refused.stderr
    # and a requirement the lock does not hold is refused too (no hash for it)
    extra = tmp_path / "extra.txt"
    extra.write_text("alpha==2.0\n")
    unhashed = pip_install(index, tmp_path / "third", extra)
    assert unhashed.returncode != 0 and "Hashes are required" in unhashed.stderr


def test_the_repositorys_lock_inputs_follow_its_stages() -> None:
    bake_file = ROOT / "rocm-bake.hcl"
    definition = bakemodel.load([bake_file])
    every = {i.component: i for i in lockinputs.derive(
        definition, [bake_file], bakemodel.targets(definition, ROOT), ROOT,
        upstream.Metadata(upstream.Settings()))}
    # the bake file's component table, in its order (the wheels export runs no pip install;
    # rocm-runtime installs no Python distribution: its CppHeaderParser is by sha256)
    assert list(every) == [c for c in components.names(definition) if c != "rocm-runtime"]
    variables = {v.name: v.value for v in definition.variables()}
    assert f"cmake=={variables['CMAKE_VERSION']}" in every["base"].requirements
    aiter = every["aiter"].requirements
    assert "pybind11==3.0.4" in aiter and "pybind11==2.13.6" not in aiter  # its own pin wins
    vllm = every["vllm"].requirements
    assert "setuptools-rust==1.11.1" in vllm and "setuptools==79.0.1" in vllm
    assert not any(r.startswith(("triton", "amdsmi", "torch=")) for r in vllm)  # dropped
    lmcache = every["lmcache"].requirements
    assert set(vllm) <= set(lmcache)            # LMCache's runtime image is built FROM vLLM's
    # LMCache's numpy cap relaxed and its NVIDIA-only requirements dropped (set-requirement.py,
    # drop-requirement.py), as vLLM v0.33.0's Dockerfile.rocm_72 does
    assert "numpy<=2.3.5" in lmcache and "numpy<=2.2.6" not in lmcache
    assert not any(r.startswith(("cupy-rocm", "cufile-python", "nvtx")) for r in lmcache)
    # locks follow images: lmcache's extends vllm's, vllm's honours LMCache's caps
    assert "numpy==2.3.5" in every["lmcache"].constraints
    assert "opentelemetry-api >= 1.20.0, <= 1.40.0" in every["vllm"].constraints
    assert "flydsl==0.3.1" in vllm and "pybind11>=3.0.1" in vllm     # AITER's setup.py
    assert every["vllm"].platform == "x86_64-manylinux_2_35"     # rocm/dev-ubuntu-22.04
    assert "torch" in every["vllm"].excluded
    # pybind11 as upstream's 'pybind11<3.1.0' gives it, in the base and over AITER's floor
    assert "pybind11==3.0.4" in every["base"].requirements and "pybind11==3.0.4" in vllm
    assert "uv==0.13.9" in vllm                  # the runtime image's uv, as upstream's has
    # torch's requirement files at PYTORCH_COMMIT, read from their nearest stored copies: every
    # line but the cmake and ninja the stage's loop drops first, each copy named in the origins
    torch = every["torch"]
    assert {"six==1.17.0", "requests==2.32.5", "mkl-static==2024.2.0", "expecttest>=0.3.0",
            "optree>=0.13.0", "psutil", "hypothesis", "astunparse"} <= set(torch.requirements)
    assert "cmake==4.0.0" not in torch.requirements
    assert "ninja==1.11.1.3" not in torch.requirements
    assert "cmake>=3.27" in torch.requirements        # pyproject.toml's: no stage drops it
    copies = [o for o in torch.origins if "a stored copy standing in for" in o]
    assert [o.split(" (", 1)[0] for o in copies] == [
        "ROCm/pytorch requirements-build.txt at 15c2741d9a8e72a4c29febb79450b0ebb36f0c79",
        "pytorch/pytorch requirements-build.txt at 1975038f332668ee1be1c0dd630bf4adec09ee73",
        "pytorch/pytorch requirements.txt at 017c7072716b68762d75986e192f7ad74d266fcb",
        "pytorch/pytorch pyproject.toml at 0034f545bb95a408bd09c53db4b97cd7d02ba556",
        "ROCm/pytorch pyproject.toml at 0262eb75417190f64b7c8702cc9a8ba734b9f1e3"]


# -- a source file read from its nearest stored copies (upstream.toml [[nearest-copy]]) -------
COPY_COMMIT = "ab" * 20
NEAREST = f'''[[nearest-copy]]
dockerfile = "dockerfiles/app.Dockerfile"
file = "requirements.txt"
pin = "APP_COMMIT"
repo = "example/app"
path = "requirements.txt"
commit = "{COPY_COMMIT}"
nearest = "the newest stored copy"
requires = ["beta>=1.0", "cmake==4.0.0", "ninja"]
'''
# the source's requirements.txt, checked --no-index after the lock; cmake and ninja dropped
# from it first in a shell loop, as torch.Dockerfile does
NO_INDEX_APP = (
    "FROM base AS app\n"
    "COPY locks/app.txt /opt/locks/app.txt\n"
    "RUN for file in requirements.txt requirements-build.txt; do \\\n"
    "        for tool in cmake ninja; do \\\n"
    '            drop-requirement.py "${file}" "${tool}"; \\\n'
    "        done; \\\n"
    "    done \\\n"
    "    && pip install --require-hashes -r /opt/locks/app.txt \\\n"
    "    && pip install --no-index -r requirements.txt\n")


def nearest_project(tmp_path: Path, declared: str) -> tuple[Path, upstream.Settings]:
    root = tmp_path / "project"
    bake = BAKE.replace('variable "GPU_ARCHS"',
                        f'variable "APP_COMMIT" {{\n  default = "{"cd" * 20}"\n}}\n'
                        'variable "GPU_ARCHS"')
    write(root, {**PROJECT, "docker-bake.hcl": bake,
                 "dockerfiles/app.Dockerfile": NO_INDEX_APP, "upstream.toml": declared})
    return root, upstream.Settings(config=root / "upstream.toml")


def test_a_file_read_from_its_nearest_copy_is_an_input_of_the_lock(tmp_path: Path,
                                                                    index: str) -> None:
    root, settings = nearest_project(tmp_path, NEAREST)
    written = {w.component: w for w in locks.lock(root, [root / "docker-bake.hcl"], (), index,
                                                  metadata=settings)}
    assert written["app"].resolved
    text = (root / "dockerfiles/locks/app.txt").read_text()
    # the copy's lines, less what the stage's loop drops (cmake==4.0.0 is on no index here)
    assert lockfile.pins(text) == {"alpha": "1.0", "beta": "2.0", "gamma": "1.0"}
    assert (f"#   example/app requirements.txt at {COPY_COMMIT} (a stored copy standing in for "
            f"requirements.txt at APP_COMMIT {'cd' * 6}: the newest stored copy)") \
        in text.splitlines()
    found = lint.run(root, [root / "docker-bake.hcl"], ["locks"], root / "no-policy.toml",
                     settings)
    assert [str(f) for f in found] == []


def test_a_no_index_file_no_copy_stands_in_for_is_no_input(tmp_path: Path) -> None:
    root, settings = nearest_project(tmp_path, NEAREST.replace('"requirements.txt"\npin',
                                                               '"requirements-build.txt"\npin'))
    found = [str(f) for f in lint.run(root, [root / "docker-bake.hcl"], ["locks"],
                                      root / "no-policy.toml", settings)]
    assert ("dockerfiles/app.Dockerfile:3: lock-inputs: pip install --no-index -r "
            "requirements.txt: the source's requirements.txt is no input of the lock (no "
            "upstream.toml [[component]] for dockerfiles/app.Dockerfile lists it in "
            "`installs`, no [[nearest-copy]] stands in for it), so the lock is checked against "
            "it only when the image is built: record the file at the pin in the snapshot (`inv "
            "lint --online --record`) and declare it, or, where it cannot be had, record the "
            "nearest stored copies' lines; then `inv lock`") in found, found


@pytest.mark.parametrize(("change", "error"), [
    (('"beta>=1.0", ', '"beta>=>1.0", '),
     "'beta>=>1.0' is no requirement (PEP 508)"),
    ((f'commit = "{COPY_COMMIT}"', 'commit = "abab"'),
     "commit 'abab' is not a full 40-hex commit"),
    (("requires = [", "requires = []\nignored = ["),
     "`requires` must list the copy's requirement lines"),
])
def test_a_malformed_nearest_copy_is_one_line_naming_it(tmp_path: Path,
                                                        change: tuple[str, str],
                                                        error: str) -> None:
    path = tmp_path / "upstream.toml"
    path.write_text(NEAREST.replace(*change))
    with pytest.raises(lint.LintError) as raised:
        upstream.load_config(path)
    assert str(raised.value) == (f"{path}: [[nearest-copy]] example/app requirements.txt: "
                                 f"{error}")
