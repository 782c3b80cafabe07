"""The optional dependencies ("extras" of pyproject.toml), read from the installed package's
metadata: a task that needs one checks first and fails with one line naming the extra.

    extras.require("docs", "inv docs")    # RocmBakeError: inv docs needs the 'docs' extra ...
"""

from __future__ import annotations

from importlib import metadata

from packaging.requirements import Requirement
from packaging.version import InvalidVersion

from rocm_bake.core.errors import RocmBakeError

DISTRIBUTION = "rocm-bake"


def requirements(extra: str, distribution: str = DISTRIBUTION) -> list[Requirement]:
    """What ``extra`` adds to the package's requirements (none for an unknown extra)."""
    try:
        declared = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        raise RocmBakeError(f"{distribution} is not installed: pip install -e . (./inv does "
                            "it)") from None
    out = []
    for text in declared:
        req = Requirement(text)
        marker = req.marker
        if marker is not None and marker.evaluate({"extra": extra}) \
                and not marker.evaluate({"extra": ""}):
            out.append(req)
    return out


def missing(extra: str, distribution: str = DISTRIBUTION) -> list[str]:
    """The requirements of ``extra`` that are not installed, or installed at a wrong version."""
    out = []
    for req in requirements(extra, distribution):
        try:
            found = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            out.append(req.name)
            continue
        try:
            ok = req.specifier.contains(found, prereleases=True)
        except InvalidVersion:
            ok = False
        if not ok:
            out.append(f"{req.name} {found} (wants {req.specifier})")
    return out


def require(extra: str, task: str, distribution: str = DISTRIBUTION) -> None:
    """Raise one line when ``extra`` is not fully installed: what is missing, how to install."""
    if not requirements(extra, distribution):
        raise RocmBakeError(f"{distribution} declares no extra named {extra!r}")
    gone = missing(extra, distribution)
    if gone:
        raise RocmBakeError(f"{task} needs the {extra!r} extra (missing: {', '.join(gone)}): "
                            f"pip install '{distribution}[{extra}]' (in a checkout: "
                            f"pip install -e '.[{extra}]')")
