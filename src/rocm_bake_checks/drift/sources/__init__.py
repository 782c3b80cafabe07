"""Upstream sources. Each turns one declared upstream into a ``Listing`` of what it holds."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Listing:
    """Names seen upstream (tags, releases, versions) and what hangs off them."""

    names: list[str] = field(default_factory=list)
    commits: dict[str, str] = field(default_factory=dict)   # tag -> peeled commit
    heads: dict[str, str] = field(default_factory=dict)     # branch -> commit
    files: dict[str, list[str]] = field(default_factory=dict)  # name -> file names
    dropped: dict[str, str] = field(default_factory=dict)   # name -> why the source dropped it
    tag_objects: dict[str, str] = field(default_factory=dict)  # annotated tag -> its object id
