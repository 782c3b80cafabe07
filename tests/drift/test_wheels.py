"""Wheel verdicts: a wheel of the pinned version for our Python, platform and ROCm variant;
never a CUDA or CPU build (Renovate once turned torch 2.7.1+rocm6.3 into a CUDA build)."""

from __future__ import annotations

import pytest

from rocm_bake_checks.drift import wheels
from rocm_bake_checks.drift.declarations import WheelSpec
from tests.drift.conftest import Checker, pin

WANT = {"package": "torch", "variant": "rocm6.3", "python": "cp312",
        "platform": "manylinux_2_28_x86_64"}
CUDA_ONLY = ["torch-2.7.1-cp312-cp312-manylinux_2_28_x86_64.whl",
             "torch-2.7.1+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
             "torch-2.7.1+cpu-cp312-cp312-manylinux_2_28_x86_64.whl",
             "torch-2.7.1+rocm6.3-cp311-cp311-manylinux_2_28_x86_64.whl",
             "torch-2.7.1+rocm6.3-cp312-cp312-win_amd64.whl",
             "torch-2.7.1+rocm6.2.4-cp312-cp312-manylinux_2_28_x86_64.whl",
             "torch-2.7.1.tar.gz"]


def wheel_pin(index: str, **extra: str | list[str]) -> str:
    body = ", ".join(f'{k} = "{v}"' for k, v in WANT.items())
    location = extra.pop("where", f'index = ["{index}"]')
    return pin("PYTORCH_VERSION", "2.7.1", pypi="torch",
               wheels=f"{{ {location}, {body} }}")


def test_rocm_pin_never_crosses_to_cuda(checker: Checker) -> None:
    checker.world.web.simple("/pytorch/whl/mixed", "torch", CUDA_ONLY)
    result = checker.run(wheel_pin("https://download.pytorch.org/whl/mixed"))
    finding = result.pin("PYTORCH_VERSION[wheel]")
    assert finding["status"] == "pin not found upstream", finding
    assert "no wheel torch 2.7.1 +rocm6.3 cp312 manylinux_2_28_x86_64" in finding["detail"]
    why = checker.run(wheel_pin("https://download.pytorch.org/whl/mixed"), output="table",
                      explain="PYTORCH_VERSION").out
    assert "no +rocm6.3 label (a plain upstream build" in why
    assert "+cu126 is not a ROCm build (a ROCm pin never crosses to it)" in why
    assert "+cpu is not a ROCm build" in why
    assert "built for cp311, not cp312" in why
    assert "built for win_amd64, not manylinux_2_28_x86_64" in why
    assert "+rocm6.2.4 is another ROCm version than +rocm6.3" in why
    assert "torch-2.7.1.tar.gz  [dropped: not a wheel]" in why


def test_wheel_found_for_pinned_version(checker: Checker) -> None:
    files = [*CUDA_ONLY, "torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl"]
    checker.world.web.simple("/pytorch/whl/good", "torch", files)
    finding = checker.run(wheel_pin("https://download.pytorch.org/whl/good")
                          ).pin("PYTORCH_VERSION[wheel]")
    assert finding["status"] == "up to date", finding
    assert finding["detail"] == ("wheel available: "
                                 "torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl")


def test_pep691_json_and_pep503_html_give_the_same_files(checker: Checker) -> None:
    files = ["torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl"]
    route = checker.world.web.simple("/pytorch/whl/both", "torch", files)
    json_run = checker.run(wheel_pin("https://download.pytorch.org/whl/both"), output="table",
                           explain="PYTORCH_VERSION", cache_dir=str(checker.tmp / "c1"))
    assert "[application/vnd.pypi.simple.v1+json]" in json_run.out
    route.alternate = None   # an index that only speaks HTML
    html_run = checker.run(wheel_pin("https://download.pytorch.org/whl/both"),
                           cache_dir=str(checker.tmp / "c2"))
    assert html_run.pin("PYTORCH_VERSION[wheel]")["status"] == "up to date"
    assert "wheel available" in json_run.out


def test_non_normalized_project_directory(checker: Checker) -> None:
    checker.world.web.simple("/amd/rocm/whl-multi-arch", "amd_aiter",
                             ["amd_aiter-0.1.19+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl"])
    text = pin("AITER_VERSION", "0.1.19", pypi="amd-aiter", wheels=(
        '{ index = ["https://repo.amd.com/rocm/whl-multi-arch"], package = "amd-aiter", '
        'variant = "rocm7.2", python = "cp312" }'))
    finding = checker.run(text).pin("AITER_VERSION[wheel]")
    assert finding["status"] == "up to date", finding


def test_plain_directory_listing(checker: Checker) -> None:
    checker.world.web.listing("/radeon/rocm/manylinux/rocm-rel-6.3/", [
        "torch-2.7.1+rocm6.3.1.git2a215e4a-cp312-cp312-manylinux_2_28_x86_64.whl",
        "torchvision-0.22.1+rocm6.3.1-cp312-cp312-manylinux_2_28_x86_64.whl"])
    text = wheel_pin("", where='listing = ["https://repo.radeon.com/rocm/manylinux/'
                              'rocm-rel-6.3/"]')
    finding = checker.run(text).pin("PYTORCH_VERSION[wheel]")
    assert finding["status"] == "up to date", finding
    assert "git2a215e4a" in finding["detail"]


def test_github_release_assets(checker: Checker) -> None:
    text = pin("LMCACHE_REF", "v0.5.3", github="LMCache/LMCache",
               tags=r"^v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)$", wheels=(
                   '{ github = "LMCache/LMCache", package = "lmcache", variant = "rocm7.2", '
                   'python = "cp312", platform = "manylinux_2_28_x86_64" }'))
    result = checker.run(text)
    assert result.pin("LMCACHE_REF")["status"] == "up to date"
    assert result.pin("LMCACHE_REF[wheel]")["detail"].endswith(
        "lmcache-0.5.3+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl")


@pytest.mark.parametrize(("filename", "dropped"), [
    ("torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", ""),
    ("torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_34_x86_64.whl", "not manylinux_2_28"),
    ("torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_28_aarch64.whl", "not manylinux_2_28"),
    ("torch-2.7.1+rocm6.3-cp312-cp312-linux_x86_64.whl", ""),
    ("torch-2.7.1+rocm6.3-cp39-abi3-manylinux_2_28_x86_64.whl", ""),
    ("torch-2.7.1+rocm6.3-py3-none-any.whl", ""),
    ("torch-2.7.1+rocm6.3-cp313-cp313-manylinux_2_28_x86_64.whl", "not cp312"),
    ("torch-2.7.1+rocm6.3.4-cp312-cp312-manylinux_2_28_x86_64.whl", ""),
    ("torch-2.7.1+rocm63-cp312-cp312-manylinux_2_28_x86_64.whl", "another ROCm version"),
    ("torch-2.7.1+rocm6.3-cp312.whl", "not a valid wheel"),
])
def test_wheel_rules(filename: str, dropped: str) -> None:
    pick = wheels.judge(filename, "torch", WheelSpec(variant="rocm6.3", python="cp312",
                                                     platform="manylinux_2_28_x86_64"))
    assert (dropped in pick.dropped) if dropped else pick.dropped == "", pick


def test_github_releases_follow_every_page(checker: Checker) -> None:
    releases = [{"tag_name": f"v1.{n}.0", "assets": []} for n in range(7, -1, -1)]
    routes = checker.world.web.github_releases("paged/repo", releases, per_page=3)
    finding = checker.run(pin("PAGED_VERSION", "1.0.0", github="paged/repo")
                          ).pin("PAGED_VERSION")
    assert (finding["status"], finding["newest"]) == ("behind", "1.7.0"), finding
    assert finding["behind"] == "7 minor behind, 7 newer releases"
    assert [r.hits for r in routes] == [1, 1, 1]


@pytest.mark.parametrize("form", ["PEP 691 JSON", "PEP 503 HTML"])
def test_index_source_honours_yanked_files(checker: Checker, form: str) -> None:
    """PEP 592, as the PyPI source does: a yanked file is seen, dropped, and never newest."""
    files = ["yk-1.0.0-py3-none-any.whl", "yk-1.1.0-py3-none-any.whl",
             "yk-1.2.0-py3-none-any.whl"]
    route = checker.world.web.simple("/yank-index", "yk", files,
                                     yanked={"yk-1.2.0-py3-none-any.whl": "broken metadata"})
    if form == "PEP 503 HTML":
        route.alternate = None
    text = pin("YK_VERSION", "1.0.0", index=[f"{checker.world.http_url}/yank-index"],
               package="yk")
    result = checker.run(text)
    finding = result.pin("YK_VERSION")
    assert (finding["status"], finding["newest"]) == ("behind", "1.1.0"), finding
    explained = checker.run(text, explain="YK_VERSION", output="table").out
    assert "yk-1.2.0-py3-none-any.whl  [dropped: yanked (broken metadata)]" in explained


ROCM_WHEEL = "torch-2.7.1+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl"


@pytest.mark.parametrize("form", ["PEP 691 JSON", "PEP 503 HTML"])
def test_a_yanked_wheel_counts_as_pip_counts_it(checker: Checker, form: str) -> None:
    """PEP 592 as pip applies it: a yanked wheel is never the newest; of the pinned version
    (an exact pin) it is taken when no fitting wheel of that version is not, and the row says
    so."""
    newer = "torch-2.8.0+rocm6.3-cp312-cp312-manylinux_2_28_x86_64.whl"
    route = checker.world.web.simple("/pytorch/whl/yanked", "torch", [ROCM_WHEEL, newer],
                                     yanked={ROCM_WHEEL: "bad build", newer: "broken"})
    if form == "PEP 503 HTML":
        route.alternate = None
    text = wheel_pin("https://download.pytorch.org/whl/yanked")
    finding = checker.run(text).pin("PYTORCH_VERSION[wheel]")
    assert finding["status"] == "up to date", finding
    assert finding["detail"] == (f"wheel available: {ROCM_WHEEL} (yanked (bad build): taken "
                                 "only for the exact pin, as pip takes it)")
    why = checker.run(text, output="table", explain="PYTORCH_VERSION").out
    assert f"{newer} -> 2.8.0+rocm6.3  [dropped: yanked (broken)]" in why


def test_a_yanked_wheel_of_the_pin_yields_to_one_that_is_not(checker: Checker) -> None:
    plain = "torch-2.7.1+rocm6.3-cp312-cp312-linux_x86_64.whl"
    checker.world.web.simple("/pytorch/whl/one-yanked", "torch", [ROCM_WHEEL, plain],
                             yanked={ROCM_WHEEL: ""})
    text = wheel_pin("https://download.pytorch.org/whl/one-yanked")
    finding = checker.run(text).pin("PYTORCH_VERSION[wheel]")
    assert (finding["status"], finding["detail"]) == ("up to date",
                                                      f"wheel available: {plain}"), finding
    why = checker.run(text, output="table", explain="PYTORCH_VERSION").out
    assert f"{ROCM_WHEEL} -> 2.7.1+rocm6.3  [dropped: yanked]" in why
