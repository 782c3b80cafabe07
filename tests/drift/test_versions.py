"""The version rules on their own: ROCm labels, variants, distances."""

from __future__ import annotations

import re

import pytest
from packaging.version import Version

from rocm_bake_checks.drift import versions


@pytest.mark.parametrize(("label", "expected"), [
    ("rocm7.2", (7, 2)), ("rocm10.0", (10, 0)), ("rocm723", (7, 2, 3)), ("rocm700", (7, 0, 0)),
    ("rocm6.4.1.git2a215e4a", (6, 4, 1)), ("rocm7.10.0a20251015", (7, 10, 0)),
    ("rocm", None), ("cu126", None), (None, None)])
def test_rocm_version_of_a_label(label: str | None, expected: tuple[int, ...] | None) -> None:
    assert versions.rocm_version(label) == expected


@pytest.mark.parametrize(("older", "newer"), [
    ("2.12.0+rocm7.0", "2.12.0+rocm10.0"), ("2.9.1+rocm7.10.0", "2.12.0+rocm7.0"),
    ("0.9.0", "0.10.1"), ("0.1.16.post6", "0.1.17"), ("0.1.19", "0.1.19.post1"),
    ("0.28.0+rocm700", "0.28.0+rocm721")])
def test_order(older: str, newer: str) -> None:
    assert versions.sort_key(Version(older)) < versions.sort_key(Version(newer))


@pytest.mark.parametrize(("candidate", "pinned", "variant", "dropped"), [
    ("2.13.0+cpu", "2.12.0", "", "+cpu build"),
    ("2.13.0+cu126", "2.12.0+rocm6.3", "", "not a ROCm build"),
    ("2.13.0", "2.12.0+rocm6.3", "", "no +rocm6.3 label"),
    ("2.13.0+rocm6.3.1", "2.12.0+rocm6.3", "", ""),
    ("0.6.2+rocm", "0.6.1", "", ""),
    ("2.10.0a0+rocm7.10.0a1", "2.9.1+rocm7.10.0", "", "pre-release"),
    ("2.10.0a0+rocm7.10.0a1", "2.10.0a0+rocm7.9", "rocm7.10", ""),
])
def test_admit(candidate: str, pinned: str, variant: str, dropped: str) -> None:
    pick = versions.admit(versions.Pick(candidate, Version(candidate)), Version(pinned), False,
                          variant)
    assert (dropped in pick.dropped) if dropped else not pick.dropped, pick


def test_distance() -> None:
    found = versions.distance(Version("3.7.1"), Version("3.9.0"),
                              [Version(v) for v in ("3.9.0", "3.8.0", "3.7.1", "3.7.0")])
    assert found.describe() == "2 minor behind, 2 newer releases"


def test_tag_pattern() -> None:
    pattern = re.compile(r"^v?(?P<version>[0-9].*)$")
    assert versions.from_name("0.10.1", pattern).version == Version("0.10.1")
    assert versions.from_name("v0.1.17-longctx", pattern).dropped.startswith("not PEP 440")


def test_ls_remote_peels_annotated_tags_and_keeps_literal_tags_prefix() -> None:
    from rocm_bake_checks.drift.sources.git import parse_ls_remote  # noqa: PLC0415
    output = ("a" * 40 + "\trefs/tags/v1.0\n" + "b" * 40 + "\trefs/tags/v1.0^{}\n" +
              "c" * 40 + "\trefs/tags/tags/archive/old\n" + "d" * 40 + "\trefs/heads/main\n")
    refs = parse_ls_remote(output)
    assert refs["tags"] == {"tags/archive/old": "c" * 40, "v1.0": "b" * 40}
    assert refs["heads"] == {"main": "d" * 40}
    pick = versions.from_name("tags/archive/old", re.compile(r"^v?(?P<version>[0-9].*)$"))
    assert pick.dropped == "does not match the tag pattern"
