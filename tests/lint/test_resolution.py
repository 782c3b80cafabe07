"""Family resolution: every image's pip installs replayed in order and resolved offline by uv
against stand-in wheels with the locked distributions' recorded metadata -- issue 30's
failures 1 and 2 on the locks of main at 2fb438f, and one bad and one good case per finding."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from rocm_bake_checks import lint
from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.locks import metadata as lockmeta
from rocm_bake_checks.lint.locks import resolution
from tests.conftest import ROOT
from tests.lint.test_rules import write

MAIN_LOCKS = Path(__file__).parent / "fixtures" / "resolution-main"
HASH = "--hash=sha256:" + "ab" * 32


def findings(root: Path) -> list[str]:
    bake = root / "rocm-bake.hcl" if (root / "rocm-bake.hcl").is_file() \
        else root / "docker-bake.hcl"
    definition = bakemodel.load([bake])
    targets = bakemodel.targets(definition, root)
    settings = upstream.Settings()
    if not (root / "rocm-bake.hcl").is_file():
        (root / "upstream.toml").write_text("")
        settings = upstream.Settings(config=root / "upstream.toml", dockerfiles=None)
    return [str(f) for f in resolution.check(definition, [bake], targets, root,
                                             upstream.Metadata(settings))]


def archless(found: list[str]) -> list[str]:
    """The findings with each list of cells (``vllm-gfx1201, vllm-gfx950``) as its target
    (``vllm``), and without the Dockerfile's line number: which archs build a component is the
    bake file's business, and the Dockerfiles keep changing above the RUN."""
    out = []
    for line in found:
        cells = re.sub(r"\b([a-z]+)-gfx[0-9a-z]+", r"\1", re.sub(r"^(\S+?):\d+:", r"\1:", line))
        out.append(re.sub(r"\b([a-z]+(?: \(stage \w+\))?)(?:, \1)+", r"\1", cells))
    return out


@pytest.fixture
def main_tree(tmp_path: Path) -> Path:
    """The repository's bake file and Dockerfiles with the locks of main at 2fb438f."""
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "dockerfiles", root / "dockerfiles")
    shutil.copy(ROOT / "rocm-bake.hcl", root / "rocm-bake.hcl")
    for lock in (MAIN_LOCKS / "locks").glob("*.txt"):
        shutil.copy(lock, root / "dockerfiles" / "locks" / lock.name)
    # main's recorded metadata, plus what the current [built] reads that main had not recorded
    # (the published torch/torchvision wheels of today's pins)
    old = json.loads((MAIN_LOCKS / "metadata.json").read_text(encoding="utf-8"))
    now = json.loads((ROOT / lockmeta.SNAPSHOT).read_text(encoding="utf-8"))
    old["dists"] = {**now["dists"], **old["dists"]}
    (root / lockmeta.SNAPSHOT).write_text(json.dumps(old, indent=1) + "\n", encoding="utf-8")
    return root


def test_issue_30_failure_1_the_vllm_image_against_aiters_requirements(main_tree: Path) -> None:
    found = archless(findings(main_tree))
    runtime = [f for f in found if f.startswith("dockerfiles/vllm.Dockerfile:")]
    assert any("resolve-unsatisfiable: vllm: dockerfiles/locks/vllm.txt" in f
               and "amd-aiter depend on pybind11>=3.0.1" in f
               and "pybind11==2.13.6" in f for f in runtime), found
    assert ("dockerfiles/vllm.Dockerfile: resolve-unhashed: vllm: amd-aiter 0.1.26 "
            "requires flydsl==0.3.1, which dockerfiles/locks/vllm.txt does not pin by sha256: "
            "pip --require-hashes refuses it; add it to the inputs of "
            "dockerfiles/locks/vllm.txt (`inv lock`)") in runtime
    # the build environment (stage deps) installs the same lock and wheels
    assert any(f.startswith("dockerfiles/vllm.Dockerfile: resolve-unsatisfiable: "
                            "vllm (stage deps)") for f in found)


def test_issue_30_failure_2_the_lmcache_image_downgrades_vllms(main_tree: Path) -> None:
    found = [f for f in archless(findings(main_tree))
             if f.startswith("dockerfiles/lmcache.Dockerfile:")]
    for name, old, new in [("numpy", "2.3.5", "2.2.6"), ("opentelemetry-api", "1.45.2", "1.40.0"),
                           ("opentelemetry-sdk", "1.45.2", "1.40.0"),
                           ("prometheus-client", "0.26.0", "0.24.1"),
                           ("google-api-core", "2.44.0", "2.34.0")]:
        assert (f"dockerfiles/lmcache.Dockerfile: resolve-downgrade: lmcache: "
                f"dockerfiles/locks/lmcache.txt downgrades {name} {old} (installed by its "
                f"parent image from dockerfiles/locks/vllm.txt) with {new}: the lock must "
                "extend dockerfiles/locks/vllm.txt's pins; change dockerfiles/locks/lmcache.txt "
                "(`inv lock`)") in found
    assert ("dockerfiles/lmcache.Dockerfile: resolve-pip-check: lmcache: pip check: "
            "opentelemetry-exporter-otlp-common 0.66b2 (from dockerfiles/locks/vllm.txt) "
            "requires opentelemetry-sdk~=1.45.2, but opentelemetry-sdk 1.40.0 is installed "
            "(from dockerfiles/locks/lmcache.txt); change dockerfiles/locks/lmcache.txt "
            "(`inv lock`)") in found


def test_the_repositorys_images_resolve() -> None:
    assert [str(f) for f in lint.run(ROOT, [ROOT / "rocm-bake.hcl"], ["resolution"])
            if f.rule.startswith("resolve-")] == []


# -- one bad and one good case per finding, on a small bake file ----------------------------
BAKE = """\
variable "GPU_ARCHS" {
  default = "x1"
}
variable "ROCM_BASE_IMAGE" {
  default = "rocm/dev-ubuntu-22.04"
}
ALL_ARCHS = ["x1"]
ARCHS = { base = ["x1"], app = ["x1"], top = ["x1"] }
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
target "top" {
  matrix     = { arch = ARCHS["top"] }
  name       = "top-${arch}"
  context    = "dockerfiles"
  dockerfile = "top.Dockerfile"
  contexts   = { app = "target:app-${arch}" }
}
group "all" {
  targets = ["top-x1"]
}
"""


def dockerfile(parent: str, lock: str) -> str:
    return (f"FROM {parent} AS {lock}\n"
            f"COPY locks/{lock}.txt /opt/locks/{lock}.txt\n"
            f"RUN pip install --require-hashes -r /opt/locks/{lock}.txt\n")


def small(tmp_path: Path, locks: dict[str, dict[str, tuple[str, list[str]]]],
          unhashed: tuple[str, ...] = ()) -> Path:
    """A three-image project (base, app FROM base, top FROM app) with these locks:
    lock -> name -> (version, Requires-Dist), the metadata recorded for every pin."""
    root = tmp_path / "project"
    files = {"docker-bake.hcl": BAKE,
             "dockerfiles/base.Dockerfile": dockerfile("scratch", "base"),
             "dockerfiles/app.Dockerfile": dockerfile("base", "app"),
             "dockerfiles/top.Dockerfile": dockerfile("app", "top")}
    recorded = {}
    for lock, pins in locks.items():
        text = "# a lock\n"
        for name, (version, requires) in pins.items():
            text += f"{name}=={version}" + ("\n" if name in unhashed else f" \\\n    {HASH}\n")
            recorded[lockmeta.key(name, version)] = lockmeta.Dist(name, version,
                                                                  tuple(requires), "", "test")
        files[f"dockerfiles/locks/{lock}.txt"] = text
    for lock in ("base", "app", "top"):
        files.setdefault(f"dockerfiles/locks/{lock}.txt", "# empty\n")
    write(root, files)
    lockmeta.save(root / lockmeta.SNAPSHOT, recorded)
    return root


def test_good_images_have_no_finding(tmp_path: Path) -> None:
    root = small(tmp_path, {"base": {"alpha": ("1.0", [])},
                            "app": {"alpha": ("1.0", []), "beta": ("2.0", ["alpha>=1"])},
                            "top": {"gamma": ("1.0", ["beta==2.*"])}})
    assert findings(root) == []


def test_unsatisfiable(tmp_path: Path) -> None:
    root = small(tmp_path, {"app": {"alpha": ("1.0", ["beta>=2"]), "beta": ("1.0", [])}})
    assert findings(root) == [
        "dockerfiles/app.Dockerfile:3: resolve-pip-check: app-x1: pip check: alpha 1.0 (from "
        "dockerfiles/locks/app.txt) requires beta>=2, but beta 1.0 is installed (from "
        "dockerfiles/locks/app.txt); change dockerfiles/locks/app.txt (`inv lock`)",
        "dockerfiles/app.Dockerfile:3: resolve-unsatisfiable: app-x1: dockerfiles/locks/app.txt "
        "with the cell's wheels (none) has no solution: Because all versions of alpha depend on "
        "beta>=2 and you require alpha==1.0, we can conclude that you require beta>=2. And "
        "because you require beta==1.0, we can conclude that your requirements are "
        "unsatisfiable.; change dockerfiles/locks/app.txt's inputs (`inv lock`)"]


def test_missing_hash(tmp_path: Path) -> None:
    root = small(tmp_path, {"app": {"alpha": ("1.0", ["gamma>=1"]), "beta": ("1.0", [])}},
                 unhashed=("beta",))
    assert findings(root) == [
        "dockerfiles/app.Dockerfile:3: resolve-pip-check: app-x1: pip check: alpha 1.0 (from "
        "dockerfiles/locks/app.txt) requires gamma>=1, which is not installed; change "
        "dockerfiles/locks/app.txt (`inv lock`)",
        "dockerfiles/app.Dockerfile:3: resolve-unhashed: app-x1: alpha 1.0 requires gamma>=1, "
        "which dockerfiles/locks/app.txt does not pin by sha256: pip --require-hashes refuses "
        "it; add it to the inputs of dockerfiles/locks/app.txt (`inv lock`)",
        "dockerfiles/app.Dockerfile:3: resolve-unhashed: app-x1: beta==1.0 has no --hash in "
        "dockerfiles/locks/app.txt: pip --require-hashes refuses it; run `inv lock`"]


def test_downgrade_under_a_parent_image(tmp_path: Path) -> None:
    root = small(tmp_path, {"app": {"alpha": ("2.0", [])}, "top": {"alpha": ("1.5", [])}})
    assert findings(root) == [
        "dockerfiles/top.Dockerfile:3: resolve-downgrade: top-x1: dockerfiles/locks/top.txt "
        "downgrades alpha 2.0 (installed by its parent image from dockerfiles/locks/app.txt) "
        "with 1.5: the lock must extend dockerfiles/locks/app.txt's pins; change "
        "dockerfiles/locks/top.txt (`inv lock`)"]


def test_pip_check_conflict(tmp_path: Path) -> None:
    # top upgrades beta under app's delta, which caps it: no downgrade, but pip check fails
    root = small(tmp_path, {"app": {"beta": ("1.0", []), "delta": ("1.0", ["beta<2"])},
                            "top": {"beta": ("3.0", [])}})
    assert findings(root) == [
        "dockerfiles/top.Dockerfile:3: resolve-pip-check: top-x1: pip check: delta 1.0 (from "
        "dockerfiles/locks/app.txt) requires beta<2, but beta 3.0 is installed (from "
        "dockerfiles/locks/top.txt); change dockerfiles/locks/top.txt (`inv lock`)"]


def test_a_pin_without_recorded_metadata_names_inv_lock(tmp_path: Path) -> None:
    root = small(tmp_path, {"app": {"alpha": ("1.0", [])}})
    lockmeta.save(root / lockmeta.SNAPSHOT, {})
    assert findings(root) == [
        "dockerfiles/locks/app.txt:2: resolve-metadata: alpha==1.0: not in "
        "dockerfiles/locks/metadata.json (the locked distributions' recorded metadata): run "
        "`inv lock`"]
