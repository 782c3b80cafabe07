"""Every trap of tests/fixtures/README.md, against real git repos carrying the real tag
names (served by git daemon) and a real local HTTP server: the verdict each must give."""

from __future__ import annotations

from packaging.version import Version

from rocm_bake_checks.drift import versions
from tests.drift.conftest import Checker, pin

GH = "https://github.com"


def fixture(slug: str) -> str:
    return f"{GH}/fixture/{slug}.git"


def explain(checker: Checker, text: str, name: str) -> str:
    result = checker.run(text, output="table", explain=name)
    return result.out


# -- ai-dynamo/nixl ------------------------------------------------------------------------
NIXL_TAGS = r"^v?(?P<version>[0-9]+\.[0-9]+\.[0-9]+.*)$"


def test_nixl_unprefixed_then_v_tags_and_late_rcs(checker: Checker) -> None:
    text = pin("NIXL_REF", "v1.3.2", git=fixture("ai-dynamo__nixl"), tags=NIXL_TAGS)
    result = checker.run(text)
    finding = result.pin("NIXL_REF")
    assert (finding["status"], finding["newest"]) == ("behind", "v1.4.0"), finding
    assert finding["behind"] == "1 minor behind, 1 newer release"
    assert result.code == 1
    why = explain(checker, text, "NIXL_REF")
    assert "v1.4.0-rc3 -> 1.4.0rc3  [dropped: pre-release" in why
    assert "winner: v1.4.0 (1.4.0)" in why


def test_nixl_unprefixed_versions_compare_numerically(checker: Checker) -> None:
    result = checker.run(pin("NIXL_REF", "0.10.1", git=fixture("ai-dynamo__nixl"),
                             tags=NIXL_TAGS))
    finding = result.pin("NIXL_REF")
    assert finding["status"] == "behind"
    assert finding["behind"] == "1 major behind, 8 newer releases", finding


def test_nixl_commit_of_final_release_is_up_to_date_despite_later_rcs(checker: Checker) -> None:
    commit = checker.world.repos["fixture/ai-dynamo__nixl"].commits["v1.4.0"]
    result = checker.run(pin("NIXL_COMMIT", commit, git=fixture("ai-dynamo__nixl"),
                             tags=NIXL_TAGS))
    finding = result.pin("NIXL_COMMIT")
    assert finding["status"] == "up to date", finding
    assert finding["detail"].startswith("at v1.4.0"), finding
    assert result.code == 0


# -- ROCm/aiter ----------------------------------------------------------------------------
AITER_TAGS = r"^v(?P<version>[0-9].*)$"


def test_aiter_non_versions_rcs_dev_longctx_and_late_posts(checker: Checker) -> None:
    text = pin("AITER_REF", "v0.1.19", git=fixture("ROCm__aiter"), tags=AITER_TAGS)
    finding = checker.run(text).pin("AITER_REF")
    assert (finding["status"], finding["newest"]) == ("behind", "v0.1.20.post1"), finding
    why = explain(checker, text, "AITER_REF")
    assert "v0.1.17-longctx  [dropped: not PEP 440 ('0.1.17-longctx')]" in why
    assert "v0.1.13-rc1 -> 0.1.13rc1  [dropped: pre-release" in why
    assert "v0.1.13.dev0 -> 0.1.13.dev0  [dropped: dev release" in why
    assert "archive/aiter/utility/triton-/README.md  [dropped: does not match" in why
    assert "FAv3-0.0.0.1  [dropped: does not match" in why
    assert "(1 not PEP 440)" in why


def test_aiter_post_of_old_line_created_later_is_not_newest(checker: Checker) -> None:
    finding = checker.run(pin("AITER_REF", "v0.1.16.post6", git=fixture("ROCm__aiter"),
                              tags=AITER_TAGS)).pin("AITER_REF")
    assert finding["status"] == "behind" and finding["newest"] == "v0.1.20.post1", finding


def test_aiter_tag_that_does_not_exist(checker: Checker) -> None:
    result = checker.run(pin("AITER_REF", "v0.1.99", git=fixture("ROCm__aiter"),
                             tags=AITER_TAGS))
    assert result.pin("AITER_REF")["status"] == "pin not found upstream"
    assert result.code == 1


# -- ROCm/ROCm -----------------------------------------------------------------------------
ROCM_TAGS = r"^rocm-(?P<version>[0-9]+\.[0-9]+(\.[0-9]+)?)$"


def test_rocm_creation_order_is_not_version_order(checker: Checker) -> None:
    text = pin("ROCM_VERSION", "6.3.3", git=fixture("ROCm__ROCm"), tags=ROCM_TAGS)
    finding = checker.run(text).pin("ROCM_VERSION")
    assert (finding["status"], finding["newest"]) == ("up to date", "6.3.3"), finding
    why = explain(checker, text, "ROCM_VERSION")
    for odd in ("4.0.1", "win-5.5", "roc-1.0.0"):
        assert f"    {odd}  [dropped: does not match the tag pattern]" in why


def test_rocm_version_newer_than_every_tag_is_ahead(checker: Checker) -> None:
    result = checker.run(pin("ROCM_VERSION", "7.2.3", git=fixture("ROCm__ROCm"),
                             tags=ROCM_TAGS))
    finding = result.pin("ROCM_VERSION")
    assert finding["status"] == "ahead" and "not published upstream" in finding["detail"]
    assert result.code == 0


def test_rocm_version_missing_between_releases_is_not_found(checker: Checker) -> None:
    finding = checker.run(pin("ROCM_VERSION", "6.2.3", git=fixture("ROCm__ROCm"),
                              tags=ROCM_TAGS)).pin("ROCM_VERSION")
    assert finding["status"] == "pin not found upstream", finding


# -- ROCm/vllm -----------------------------------------------------------------------------
def test_rocm_vllm_local_label_tags_and_underscore_suffixes(checker: Checker) -> None:
    text = pin("VLLM_FORK_REF", "v0.9.1+rocm", git=fixture("ROCm__vllm"),
               tags=r"^v(?P<version>[0-9].*)$")
    finding = checker.run(text).pin("VLLM_FORK_REF")
    assert (finding["status"], finding["newest"]) == ("behind", "v0.9.2"), finding
    why = explain(checker, text, "VLLM_FORK_REF")
    assert "v0.4.3_rocm  [dropped: not PEP 440" in why
    assert "submission  [dropped: does not match" in why
    assert "vllm_v6  [dropped: does not match" in why
    assert "v0.6.1.post1+rocm -> 0.6.1.post1+rocm  [kept]" in why


# -- ROCm/triton ---------------------------------------------------------------------------
def test_triton_without_v3_tags_falls_back_to_the_branch_head(checker: Checker) -> None:
    repo = checker.world.repos["fixture/ROCm__triton"]
    commit = repo.commits["ifu-231117-2"]
    finding = checker.run(pin("TRITON_COMMIT", commit, git=fixture("ROCm__triton"),
                              tags=r"^v(?P<version>[3-9]\.[0-9]+\.[0-9]+)$",
                              branch="main")).pin("TRITON_COMMIT")
    assert finding["status"] == "behind", finding
    assert finding["behind"] == "main head moved: 2 commits since the pin", finding


def test_triton_commit_pin_with_no_release_and_no_branch_cannot_be_checked(
        checker: Checker) -> None:
    commit = checker.world.repos["fixture/ROCm__triton"].commits["ifu-231117-2"]
    result = checker.run(pin("TRITON_COMMIT", commit, git=fixture("ROCm__triton"),
                             tags=r"^v(?P<version>[3-9]\.[0-9]+\.[0-9]+)$"))
    assert result.pin("TRITON_COMMIT")["status"] == "could not check"
    assert result.code == 2


def test_pytorch_triton_rocm_dev_tags_are_dev_releases(checker: Checker) -> None:
    finding = checker.run(pin("PTR_VERSION", "2.0.2", git=fixture("ROCm__triton"),
                              tags=r"^pytorch-triton-rocm-v(?P<version>.*)$")
                          ).pin("PTR_VERSION")
    assert (finding["status"], finding["newest"]) == ("behind",
                                                      "2.1.0"), finding


# -- ROCm/flash-attention ------------------------------------------------------------------
def test_flash_attention_no_pep440_tag_is_could_not_check(checker: Checker) -> None:
    result = checker.run(pin("FA_REF", "v2.8.0-cktile", git=fixture("ROCm__flash-attention")))
    finding = result.pin("FA_REF")
    assert finding["status"] == "could not check", finding
    assert "none of the 8 upstream names is a release" in finding["detail"]
    assert result.code == 2


def test_flash_attention_with_a_pattern_that_strips_the_suffix(checker: Checker) -> None:
    finding = checker.run(pin(
        "FA_REF", "v2.8.0-cktile", git=fixture("ROCm__flash-attention"), pin="tag",
        tags=r"^v(?P<version>[0-9]+(\.[0-9]+)*)(\.r[0-9]+|post[0-9]+)?-cktile.*$")
    ).pin("FA_REF")
    assert (finding["status"], finding["newest"]) == ("behind", "v3.0.0.r1-cktile"), finding


# -- LMCache -------------------------------------------------------------------------------
def test_lmcache_alpha_tags_only_count_when_pinned_to_one(checker: Checker) -> None:
    finding = checker.run(pin("LMC_REF", "v0.1.1-alpha", git=fixture("LMCache__LMCache"))
                          ).pin("LMC_REF")
    assert (finding["status"], finding["newest"]) == ("behind", "v0.1.2-alpha"), finding


def test_lmcache_only_prereleases_and_a_final_pin_cannot_be_checked(checker: Checker) -> None:
    result = checker.run(pin("LMC_VERSION", "0.1.0", git=fixture("LMCache__LMCache"),
                             pin="version"))
    finding = result.pin("LMC_VERSION")
    assert finding["status"] == "could not check", finding
    assert "3 names seen, 0 kept" in finding["detail"]
    assert result.code == 2


# -- mori: annotated tags are peeled -------------------------------------------------------
def test_annotated_tag_resolves_to_its_commit_not_the_tag_object(checker: Checker) -> None:
    repo = checker.world.repos["fixture/ROCm__mori"]
    assert repo.objects["v1.2.2"] != repo.commits["v1.2.2"]   # v1.2.2 is annotated
    good = pin("MORI_COMMIT", repo.commits["v1.2.2"], git=fixture("ROCm__mori")) + \
        'variable "MORI_REF" {\n  default = "v1.2.2"\n}\n'
    result = checker.run(good)
    assert result.pin("MORI_COMMIT")["status"] == "up to date"
    assert result.pin("MORI_REF~COMMIT")["status"] == "holds"
    bad = good.replace(repo.commits["v1.2.2"], repo.objects["v1.2.2"])
    result = checker.run(bad)
    finding = result.pin("MORI_COMMIT")     # named as what it is, not "commit ... not in"
    assert finding["status"] == "could not check" and result.code == 2
    assert finding["detail"] == (
        f"{repo.objects['v1.2.2'][:12]} is the annotated tag object of v1.2.2 in "
        f"{checker.world.git_url}fixture/ROCm__mori.git, not a commit: pin the commit it tags, "
        f"{repo.commits['v1.2.2'][:12]}")
    assert result.pin("MORI_REF~COMMIT")["status"] == "incoherent"


# -- PyPI torch: local versions beside plain ones ------------------------------------------
def test_pypi_torch_cpu_local_versions_are_not_candidates(checker: Checker) -> None:
    text = pin("TORCH_VERSION", "2.12.0", pypi="torch")
    finding = checker.run(text).pin("TORCH_VERSION")
    assert (finding["status"], finding["newest"]) == ("behind", "2.15.0"), finding
    assert finding["behind"] == "3 minor behind, 5 newer releases"
    assert "2.13.0+cpu -> 2.13.0+cpu  [dropped: +cpu build" in explain(checker, text,
                                                                       "TORCH_VERSION")


# -- ordering facts ------------------------------------------------------------------------
THEROCK = ["torch-2.12.0+rocm7.0-cp312-cp312-manylinux_2_28_x86_64.whl",
           "torch-2.12.0+rocm10.0-cp312-cp312-manylinux_2_28_x86_64.whl",
           "torch-2.10.0a0+rocm7.10.0a20251015-cp312-cp312-manylinux_2_28_x86_64.whl",
           "torch-2.9.1+rocm7.10.0-cp312-cp312-manylinux_2_28_x86_64.whl",
           "torch-2.12.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl"]


def test_rocm_local_labels_compare_by_rocm_version(checker: Checker) -> None:
    low, high = Version("2.12.0+rocm7.0"), Version("2.12.0+rocm10.0")
    assert high < low                                       # PEP 440: strings
    assert versions.sort_key(high) > versions.sort_key(low)  # ours: ROCm versions
    checker.world.web.simple("/amd/rocm/whl-order", "torch", THEROCK)
    finding = checker.run(pin("TORCH_VERSION", "2.12.0+rocm7.0", package="torch",
                              index=["https://repo.amd.com/rocm/whl-order"], variant="rocm",
                              python="cp312", platform="manylinux_2_28_x86_64")
                          ).pin("TORCH_VERSION")
    assert (finding["status"], finding["newest"]) == ("behind", "2.12.0+rocm10.0"), finding
    assert THEROCK[1] in finding["detail"]          # the file, named in the detail


def test_nightly_prerelease_does_not_outrank_stable(checker: Checker) -> None:
    checker.world.web.simple("/amd/rocm/whl-order", "torch", THEROCK)
    text = pin("TORCH_VERSION", "2.9.1+rocm7.10.0", package="torch", variant="rocm7.10",
               index=["https://repo.amd.com/rocm/whl-order"], python="cp312")
    finding = checker.run(text).pin("TORCH_VERSION")
    assert finding["status"] == "up to date", finding
    why = explain(checker, text, "TORCH_VERSION")
    assert "2.10.0a0+rocm7.10.0a20251015  [dropped: pre-release" in why
    assert "+rocm10.0 is another ROCm version than +rocm7.10" in why
    assert "+cu126 is not a ROCm build" in why
