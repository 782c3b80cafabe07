"""Before anything talks to an engine: a docker client, buildx >= 0.24 and a reachable
BuildKit builder, every missing item reported at once, each with the command that fixes it.

:func:`ensure_builder` is the one way every task finds its engine (``inv build``/``push``,
``verify-repro``, ``perf``, ``audit-arch`` on an image, ``doctor``), so none of them needs a
``DOCKER_HOST`` that ``inv build`` does not. Which builder: the user's own when they chose one
(``DOCKER_HOST``, ``DOCKER_CONTEXT`` or ``BUILDX_BUILDER`` set), else whatever the default
context reaches; failing that, the project's loopback engine (:mod:`rocm_bake.docker.engine`): used
when it runs, started (and installed) when run as root, else the exact one-line command is the
error. ``ROCM_BAKE_ENGINE=off`` turns the engine part off: the missing items are the error.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence

from rocm_bake.docker import buildx, engine
from rocm_bake.docker.engine import Missing

OPT_OUT = "ROCM_BAKE_ENGINE"
MODES = ("auto", "off")
USER_SELECTORS = ("DOCKER_HOST", "DOCKER_CONTEXT", "BUILDX_BUILDER")
_BUILDER_DETAIL = re.compile(r"no reachable BuildKit builder \((.*)\):")


class SetupError(buildx.PreflightError):
    """Items a task needs to reach its engine are missing; the message lists every one with
    its fix."""

    def __init__(self, items: Sequence[Missing]) -> None:
        self.items = list(items)
        noun = "item" if len(self.items) == 1 else "items"
        fixes = list(dict.fromkeys(m.fix for m in self.items))   # items sharing a fix: once
        groups = ["; ".join(f"{m.item}: {m.detail}" for m in self.items if m.fix == fix)
                  + f" (fix: {fix})" for fix in fixes]
        super().__init__(f"no build engine to use, {len(self.items)} {noun} missing: "
                         + "; ".join(groups))


def _say(message: str) -> None:
    print(f"rocm-bake: {message}", file=sys.stderr, flush=True)


def _tools(env: Mapping[str, str], docker: str) -> list[Missing]:
    """The docker client and buildx, as the user's PATH and DOCKER_CONFIG have them."""
    fix = engine.command("install", env, sudo=not engine.is_root())
    if shutil.which(docker, path=env.get("PATH")) is None:
        return [Missing("docker client", f"the docker client ({docker}) is not on PATH", fix)]
    try:
        buildx.check_buildx(docker, env)
    except buildx.PreflightError as exc:
        return [Missing("buildx", str(exc), fix)]
    return []


def _builder(env: Mapping[str, str], docker: str) -> str | None:
    """None when the builder the environment selects answers, else why not."""
    try:
        buildx.check_builder(docker, env)
    except buildx.PreflightError as exc:
        match = _BUILDER_DETAIL.search(str(exc))
        return f"no reachable BuildKit builder ({match.group(1) if match else exc})"
    return None


def ensure_builder(env: Mapping[str, str], docker: str = "docker", *, start: bool = True,
                   root: bool | None = None, say: Callable[[str], None] = _say
                   ) -> dict[str, str]:
    """Make sure a docker command reaches a builder; returns what to add to its environment
    (the project's engine's DOCKER_HOST, or nothing). Raises :class:`SetupError` listing every
    missing item, or :class:`engine.EngineError` when starting the engine failed. With
    ``start`` False nothing is installed or started (``inv doctor`` only looks)."""
    mode = env.get(OPT_OUT, "") or "auto"
    if mode not in MODES:
        raise buildx.PreflightError(f"{OPT_OUT} must be one of {', '.join(MODES)}, got {mode!r}")
    tools = _tools(env, docker)
    chosen = [name for name in USER_SELECTORS if env.get(name)]
    why = _builder(env, docker) if not tools else "cannot ask without docker and buildx"
    if not tools and why is None:
        return {}                                  # the user's engine, or the default context
    if chosen:
        fix = (f"unset {'/'.join(chosen)} to use the project's engine (scripts/engine.sh "
               "start), or start the engine it selects")
        raise SetupError([*tools, Missing("builder", f"{why} via {', '.join(chosen)}", fix)])
    if not tools and engine.is_running(env, docker):
        host = engine.docker_host(env)
        say(f"using the project's engine at {host}")
        return {"DOCKER_HOST": host}
    root = engine.is_root() if root is None else root
    return _bring_up(env, docker, tools, why, start and mode != "off", root, say)


def _bring_up(env: Mapping[str, str], docker: str, tools: list[Missing], why: str | None,
              start: bool, root: bool, say: Callable[[str], None]) -> dict[str, str]:
    install_fix = engine.setup_command(env, install=True, sudo=not root)
    parts = engine.missing_parts(env, install_fix, docker)
    start_fix = engine.setup_command(env, install=bool(parts), sudo=not root)
    builder = Missing("builder", f"{why}; the project's engine is not running at "
                      f"{engine.docker_host(env)}", start_fix)
    if not start or not root:
        raise SetupError([*_with_fix(tools, parts), builder])
    opt_out = f"{OPT_OUT}=off to opt out"
    if parts:
        say(f"no reachable BuildKit builder and {', '.join(m.item for m in parts)} missing: "
            f"installing the project's engine ({engine.command('install', env, False)}; "
            f"{opt_out})")
        engine.install(env)
    say(f"no reachable BuildKit builder: starting the project's loopback engine and registry "
        f"({engine.command('start', env, False)}; {opt_out})")
    host = engine.start(env)
    started = {**env, "DOCKER_HOST": host}
    still = [*_tools(started, docker)]
    reason = _builder(started, docker) if not still else None
    if still or reason is not None:
        raise SetupError([*still, *([Missing("builder", reason, start_fix)] if reason else [])])
    return {"DOCKER_HOST": host}


def _with_fix(tools: list[Missing], parts: list[Missing]) -> list[Missing]:
    """Every missing part once: the engine's install covers the docker client and buildx."""
    covered = {m.item for m in parts}
    return [*parts, *(m for m in tools if m.item not in covered)]

