"""Version rules: which upstream names are releases, and how releases are ordered.

- A name is a candidate only if the declared ``tags`` pattern matches it; its ``version``
  group must parse as PEP 440 (``packaging``), else it is skipped and counted.
- Pre-releases and dev releases are dropped unless the pin is one (or ``prerelease = true``).
- Local labels are not compared as strings: ``+rocm10.0`` is newer than ``+rocm7.0``. A
  dotted ROCm label is split on dots (``rocm7.2.1`` = 7.2.1); vLLM's three undotted digits
  are one digit each (``rocm723`` = 7.2.3). A bare ``+rocm`` (fork tags such as
  ``v0.6.1.post1+rocm``) is no variant at all.
- A candidate whose local label names another build variant than the pin's (``+cpu``,
  ``+cu126``, or any ``+rocmX`` when the pin has none) is dropped: a ROCm pin never crosses
  to a CUDA build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

ROCM_LABEL = re.compile(r"^rocm(?P<digits>[0-9]+(?:\.[0-9]+)*)")
OTHER_VARIANTS = re.compile(r"^(cu[0-9]+|cpu|xpu|cuda.*)")


def rocm_version(local: str | None) -> tuple[int, ...] | None:
    """The ROCm version of a local label, or None when it names none."""
    if not local:
        return None
    match = ROCM_LABEL.match(local.lower())
    if match is None:
        return None
    digits = match["digits"]
    if "." not in digits and len(digits) == 3:
        return tuple(int(d) for d in digits)
    return tuple(int(d) for d in digits.split("."))


def variant_of(version: Version) -> str:
    """``plain``, ``rocmX.Y`` (the label's ROCm version) or the foreign label (``cu126``)."""
    local = version.local
    if not local or local.lower() == "rocm":
        return "plain"
    rocm = rocm_version(local)
    if rocm is not None:
        return "rocm" + ".".join(str(d) for d in rocm)
    return local.split(".")[0]


def sort_key(version: Version) -> tuple[Version, tuple[int, ...]]:
    """Order by the public version, then by the ROCm version of the label, numerically."""
    return (Version(version.public), rocm_version(version.local) or ())


def parse(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


@dataclass(frozen=True)
class Pick:
    """The result of applying the rules to a name."""

    raw: str
    version: Version | None
    dropped: str = ""


def from_name(raw: str, pattern: re.Pattern[str]) -> Pick:
    """Apply the tag pattern and PEP 440 to an upstream name."""
    match = pattern.match(raw)
    if match is None:
        return Pick(raw, None, "does not match the tag pattern")
    text = match["version"]
    version = parse(text)
    if version is None:
        return Pick(raw, None, f"not PEP 440 ({text!r})")
    return Pick(raw, version)


def admit(pick: Pick, pinned: Version | None, prerelease: bool, variant: str) -> Pick:
    """Drop pre-releases and foreign variants; ``variant`` is the declared one (or '')."""
    version = pick.version
    if version is None or pick.dropped:
        return pick
    allow_pre = prerelease or (pinned is not None and pinned.is_prerelease)
    if version.is_prerelease and not allow_pre:
        kind = "dev release" if version.is_devrelease else "pre-release"
        return Pick(pick.raw, version, f"{kind} (pin is not one; set prerelease = true)")
    reason = foreign_variant(version, pinned, variant)
    return Pick(pick.raw, version, reason) if reason else pick


def foreign_variant(version: Version, pinned: Version | None, variant: str) -> str:
    """Why a candidate's build variant does not fit the pin's, or ''."""
    found = variant_of(version)
    wanted = variant or (variant_of(pinned) if pinned is not None else "plain")
    if found == "plain" and wanted == "plain":
        return ""
    if OTHER_VARIANTS.match(found):
        if wanted.startswith("rocm"):
            return f"+{found} is not a ROCm build (a ROCm pin never crosses to it)"
        return f"+{found} build: the pin has no local label"
    if found == "plain":
        return f"no +{wanted} label (a plain upstream build, not {wanted})"
    if not wanted.startswith("rocm"):
        return f"+{found} build: the pin has no local label"
    have, want = rocm_version(found) or (), rocm_version(wanted) or ()
    if have[:len(want)] != want:
        return f"+{found} is another ROCm version than +{wanted}"
    return ""


@dataclass(frozen=True)
class Distance:
    """How far a pinned version is behind the newest candidate."""

    major: int
    minor: int
    patch: int
    newer: int

    def describe(self) -> str:
        if self.major:
            level = f"{self.major} major"
        elif self.minor:
            level = f"{self.minor} minor"
        elif self.patch:
            level = f"{self.patch} patch"
        else:
            level = "post/local"
        plural = "s" if self.newer != 1 else ""
        return f"{level} behind, {self.newer} newer release{plural}"


def distance(pinned: Version, newest: Version, kept: list[Version]) -> Distance:
    newer = {sort_key(v) for v in kept if sort_key(v) > sort_key(pinned)}
    major = newest.major - pinned.major
    minor = newest.minor - pinned.minor if not major else 0
    patch = newest.micro - pinned.micro if not major and not minor else 0
    if not (major or minor or patch) and newer:
        patch = 0
    return Distance(max(major, 0), max(minor, 0), max(patch, 0), len(newer))
