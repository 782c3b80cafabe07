"""Path functions: ``basename`` and ``dirname`` (Go's ``path`` package, as buildx defines
them) and ``homedir``."""

from __future__ import annotations

import os
import pwd

from rocm_bake.model.hcl.functions.params import Function, as_str, define, string_fn
from rocm_bake.model.hcl.values import Value


def _go_clean(path: str) -> str:
    """Go's path.Clean."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    cleaned = "/".join(parts)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def _basename(args: list[Value]) -> Value:
    path = as_str(args[0])
    if path == "":
        return "."
    path = path.rstrip("/")
    if path == "":
        return "/"
    return path.rsplit("/", 1)[-1]


def _dirname(args: list[Value]) -> Value:
    path = as_str(args[0])
    return _go_clean(path[: path.rfind("/") + 1])


def _homedir(args: list[Value]) -> Value:
    """The user's home directory as buildx finds it.

    ``$HOME`` verbatim when it is set and not empty, else the home of the user's passwd entry;
    for a user without one, buildx answers the parent of the Docker config directory
    (``$DOCKER_CONFIG``, else ``.docker`` under that empty home: ``.``).
    """
    home = os.environ.get("HOME", "")
    if home:
        return home
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        config = os.environ.get("DOCKER_CONFIG") or ".docker"
        return _go_clean(config[: config.rfind("/") + 1])


TABLE: dict[str, Function] = {
    "basename": string_fn("basename", _basename, "path"),
    "dirname": string_fn("dirname", _dirname, "path"),
    "homedir": define("homedir", [], _homedir),
}
