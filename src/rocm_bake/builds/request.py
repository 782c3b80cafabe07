"""A build request (targets, arches, files, overrides) checked against the bake model, turned
into the exact ``docker buildx bake`` invocation, and run; then the arch audit of every cell it
exported (archaudit.cells)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_bake.archaudit import cells as archaudit_cells
from rocm_bake.builds import commit, contextfiles
from rocm_bake.compilercache import health as cache_health
from rocm_bake.compilercache import secret as cache_secret
from rocm_bake.compilercache import settings as cache_settings
from rocm_bake.compilercache import store as cache_store
from rocm_bake.compilercache import tiers as cache_tiers
from rocm_bake.core import redact
from rocm_bake.core.errors import RocmBakeError, UsageError
from rocm_bake.docker import (
    bakecommand,
    engineinfo,
    exporters,
    images,
    preflight,
    process,
    pullhint,
)
from rocm_bake.docker import history as buildx_history
from rocm_bake.docker import progress as buildx_progress
from rocm_bake.model import bakefile, entitlements
from rocm_bake.model.bake.resolve import Plan
from rocm_bake.model.bakefile import ARCH_VARIABLE, Definition
from rocm_bake.model.components import hinted
from rocm_bake.oci import provenance


@dataclass
class BuildRequest:
    """What the user asked for. ``sets`` mixes target overrides (``vllm.args.X=1``, passed to
    buildx as ``--set``) and bake variables (``MAX_JOBS=32``, passed in the environment).
    ``tier`` is the trust tier (compilercache.tiers; "" = the bake file's CACHE_TIER, else
    dev)."""

    targets: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=lambda: [bakefile.DEFAULT_FILE])
    sets: list[str] = field(default_factory=list)
    push: bool = False
    tier: str = ""

    def variable_overrides(self) -> dict[str, str]:
        """The bake variables of ``sets``. A target override needs no ``=``: buildx takes
        ``TARGET.args.NAME`` from the environment and judges any other key itself."""
        out = {}
        for item in self.sets:
            key, has_value, value = item.partition("=")
            if "." in key:
                continue
            if not has_value:
                raise UsageError(f"invalid --set {item!r}: expected NAME=VALUE or "
                                 "TARGET.FIELD=VALUE")
            out[key] = value
        if self.archs:
            out[ARCH_VARIABLE] = ",".join(self.archs)
        return out

    def target_overrides(self) -> list[str]:
        return [s for s in self.sets if "." in s.partition("=")[0]]


@dataclass
class PreparedBuild:
    """A request checked against the bake model: the plan it resolves to and the command."""

    request: BuildRequest
    definition: Definition
    plan: Plan
    command: bakecommand.BakeCommand
    invocation: bakecommand.BakeInvocation
    # The shared store whose secret run() writes (CACHE_STORE without a secret file).
    store: cache_store.Store | None = None
    # Credentials taken out of the backend's URL: they reach the build only in the secret.
    url_credentials: dict[str, str] = field(default_factory=dict)
    # The reproducible exports (rocm_bake.docker.exporters): the images to load after the bake.
    exports: exporters.Exports = field(default_factory=exporters.Exports)
    # The trust tier: what the build may do with the shared caches (compilercache.tiers).
    tier: cache_tiers.Tier = cache_tiers.TIERS[cache_tiers.DEFAULT]

    @property
    def target_overrides(self) -> list[str]:
        """The request's TARGET.FIELD overrides, then the tier's (the shared layer caches it
        may not use dropped)."""
        return [*self.request.target_overrides(), *cache_tiers.overrides(self.tier)]


def checked_variables(request: BuildRequest, env: Mapping[str, str] | None = None
                      ) -> tuple[Definition, dict[str, str]]:
    """The bake files evaluated with the request's variable overrides, and those overrides,
    each checked against the variables the files declare (an unknown one is an error)."""
    base_env = dict(os.environ if env is None else env)
    additions = request.variable_overrides()
    definition = bakefile.load(request.files, {**base_env, **additions})
    _check_declared(definition, additions)
    return definition, additions


def _check_declared(variables: bakefile.Variables, additions: Mapping[str, str]) -> None:
    declared = {v.name for v in variables.variables()}
    unknown = sorted(k for k in additions if k not in declared)
    if unknown:
        raise UsageError(f"unknown bake variable {unknown[0]}; variables: "
                         f"{', '.join(sorted(declared))}")


def _check_targets(request: BuildRequest, definition: Definition) -> None:
    names = set(definition.target_names) | set(definition.group_names)
    for target in request.targets:
        if target not in names:
            raise UsageError(f"unknown target {target!r}; valid targets and groups: "
                             f"{', '.join(sorted(names))}")


def prepare(request: BuildRequest, env: Mapping[str, str] | None = None) -> PreparedBuild:
    """Evaluate the bake files with the request's overrides; fail on any bad input.

    The files are read, and their targets evaluated, once: what the build adds to the
    variables (the tier's settings, the cache secret's path) is decided from the variables
    alone (:func:`_settle`), then everything is evaluated with it. Of several errors, the one
    said is the first in this order: the files as evaluated with the request's variables, an
    unknown variable, an unknown target, the tier, the store."""
    base_env = dict(os.environ if env is None else env)
    additions = request.variable_overrides()
    variables = bakefile.read_variables(request.files, {**base_env, **additions})
    try:
        _check_declared(variables, additions)
    except UsageError:
        variables.evaluate()          # an error in the targets is said first
        raise
    try:
        settled = _settle(request, variables, additions, base_env)
    except RocmBakeError:    # a bug is not reordered behind a bad input
        _check_targets(request, variables.evaluate())   # the targets' errors are said first
        raise
    definition = settled.variables.evaluate()
    _check_targets(request, definition)
    tier, backend = settled.tier, settled.store
    if backend is not None and settled.secret is not None:
        # The store's settings reach the build only as this secret; it is written here
        # without credentials (the plan checks it exists), run() adds them for the build.
        cache_secret.write_secret(settled.secret, backend, tool=settled.tool)
    overrides = [*request.target_overrides(), *cache_tiers.overrides(tier)]
    with hinted(definition):
        plan = definition.plan(request.targets, overrides, push=request.push)
    # A push carries SLSA provenance (mode=max); run() adds the versions statement after it.
    attest = [provenance.BAKE_OVERRIDE] if request.push else []
    # Every image exported as verify-repro exports it (what is published is what reproduces).
    exports = exporters.plan_exports(plan, LOAD_DIRECTORY)
    command = bakecommand.BakeCommand(request.files, request.targets,
                                      [*overrides, *attest, *exports.overrides],
                                      push=request.push, allow=entitlements.for_plan(plan),
                                      no_cache=tier.no_cache)
    return PreparedBuild(request, definition, plan, command,
                         bakecommand.BakeInvocation(command.argv(), additions), backend,
                         settled.url_credentials, exports, tier)


@dataclass
class _Settled:
    """What a build adds to its variables, decided from them (:func:`_settle`)."""

    tier: cache_tiers.Tier
    variables: bakefile.Variables        # with every addition
    store: cache_store.Store | None      # the store whose secret run() writes
    url_credentials: dict[str, str]      # taken out of the store's URL
    secret: Path | None = None           # where the store's secret goes (CACHE_SECRET_FILE)
    tool: str = ""                       # the compiler cache whose settings it carries


def _settle(request: BuildRequest, variables: bakefile.Variables, additions: dict[str, str],
            env: Mapping[str, str]) -> _Settled:
    """What the build adds to its variables, decided from their values (the targets are not
    evaluated), each added to ``additions``: the tier's settings (:func:`tier_variables`),
    the store's URL without its credentials, the path of the secret that carries the store's
    settings (none with the user's own CACHE_SECRET_FILE)."""
    tier, variables = tier_variables(request, variables, additions, env)
    backend = cache_settings.backend_from_definition(variables,
                                                     read_only=tier.store == "read")
    backend, url_credentials = _credentials_out_of_url(backend, additions, env)
    if backend is None or cache_settings.secret_file(variables):
        return _Settled(tier, variables, None, url_credentials)
    tool = cache_settings.cache_tool(variables)
    secret = cache_secret.secret_path(backend, tool)
    additions[cache_settings.secret_variable(variables)] = str(secret)
    return _Settled(tier, variables.with_env({**env, **additions}), backend, url_credentials,
                    secret, tool)


def apply_tier(request: BuildRequest, definition: Definition, additions: dict[str, str],
               env: Mapping[str, str]) -> tuple[cache_tiers.Tier, Definition]:
    """:func:`tier_variables` of evaluated bake files; returns the tier and the bake files
    evaluated with its settings."""
    tier, variables = tier_variables(request, definition, additions, env)
    return tier, definition if variables is definition else variables.evaluate()


def tier_variables(request: BuildRequest, variables: bakefile.Variables,
                   additions: dict[str, str], env: Mapping[str, str]
                   ) -> tuple[cache_tiers.Tier, bakefile.Variables]:
    """The request's trust tier (--tier, else the bake file's CACHE_TIER, else dev) applied:
    CACHE_TIER (when declared) and the cache variables the tier gives a value are added to
    ``additions``, the variables evaluated again with them (the same ``variables`` when none),
    and a setting beyond the tier refused (one line, exit 2). Returns the tier and the
    variables."""
    tier = cache_tiers.of(variables, request.tier)
    derived = cache_tiers.settings(tier, variables)
    declared = {v.name for v in variables.variables()}
    if request.tier and cache_tiers.VARIABLE in declared:
        derived[cache_tiers.VARIABLE] = request.tier
    if derived:
        additions.update(derived)
        variables = variables.with_env({**env, **additions})
    cache_tiers.check(tier, variables, request.target_overrides())
    return tier, variables


# Where a build writes the image archives the engine loads after it, relative to the bake's
# directory (inside it: no fs.write grant; the same in every --dry-run); run() removes them.
LOAD_DIRECTORY = Path(".rocm-bake-load")


# The URL variables of a store (a deprecated alias too), its user and password credentials.
_URL_VARIABLES = {"webdav": (("CACHE_STORE_URL", "SCCACHE_WEBDAV_URL"),
                             "CACHE_STORE_USER", "CACHE_STORE_PASSWORD"),
                  "s3": (("SCCACHE_S3_ENDPOINT",), "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}


def _credentials_out_of_url(backend: cache_store.Store | None, additions: dict[str, str],
                            env: Mapping[str, str]
                            ) -> tuple[cache_store.Store | None, dict[str, str]]:
    """A backend URL with ``user:password@``: the URL without them (also for buildx's
    environment), the user and password as the secret's credential settings."""
    if backend is None or not redact.has_credentials(backend.endpoint):
        return backend, {}
    variables, user_key, password_key = _URL_VARIABLES[backend.kind]
    clean, user, password = redact.split_credentials(backend.endpoint)
    for variable in variables:
        if variable in additions or variable in env:
            additions[variable] = clean
    found = {user_key: user, password_key: password}
    return dataclasses.replace(backend, endpoint=clean), {k: v for k, v in found.items() if v}


Report = Callable[[str], None]
"""Takes each line of a build's report (``tier: …``, ``cache: …``, ``arch: …``,
``provenance: …``, ``warning: …``) as it is known; the task that ran the build decides where
it goes."""


def run(prepared: PreparedBuild, report: Report, env: Mapping[str, str] | None = None) -> None:
    """Check the machine, then run the bake, buildx's progress passed through to stderr and
    each report line to ``report``; a failed bake is an error (exit status 2)."""
    full_env = {**(os.environ if env is None else env), **prepared.invocation.env}
    full_env.update(preflight.ensure_builder(full_env))   # every missing item at once
    backend = prepared.store
    tool = cache_settings.cache_tool(prepared.definition)
    secret = build_secret(prepared, full_env)
    loads = prepared.exports.loads
    try:
        # A requested sccache backend that cannot be used is one line now, not a failed build.
        cache_settings.preflight_build(prepared.definition)
        # The tier, once nothing more can stop the build before it starts (an error stays the
        # one line it is).
        report(f"tier: {prepared.tier.line()}")
        for target in exporters.unclamped(prepared.plan):
            report(f"warning: {target} passes no SOURCE_DATE_EPOCH build arg: its image is "
                   "exported as built, not reproducibly (inv verify-repro refuses it)")
        for archive in loads.values():
            archive.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="rocm-bake-metadata-") as tmp:
            metadata = Path(tmp) / "metadata.json"
            command = dataclasses.replace(prepared.command, metadata_file=str(metadata))
            returncode, unpullable = _bake_with_health(prepared, command, full_env, report)
            pushed = _read_metadata(metadata) if returncode == 0 and prepared.request.push \
                else {}
        if returncode == 0:
            for archive in loads.values():
                images.image_load(archive, full_env, prepared.command.connection.argv())
    finally:
        if secret is not None and backend is not None:   # no credentials left behind
            cache_secret.write_secret(secret, backend, tool=tool)
        for archive in loads.values():
            archive.unlink(missing_ok=True)
        if loads and LOAD_DIRECTORY.is_dir() and not any(LOAD_DIRECTORY.iterdir()):
            LOAD_DIRECTORY.rmdir()
    if returncode != 0 and unpullable is not None:
        raise RocmBakeError(pullhint.hint(*unpullable, full_env))
    if returncode != 0:
        raise RocmBakeError(f"docker buildx bake failed with exit status {returncode}")
    results = audit_results(prepared, full_env, report)
    # The push's arch audit goes into the versions statement: `inv inspect` reads it back.
    audits = {result.cell: result.lines() for result in results}
    engine = (engineinfo.engine_version(full_env, prepared.command.connection.argv()).to_json()
              if pushed else None)
    for line in provenance.attach_pushed(pushed, provenance.bake_pins(prepared.definition),
                                         commit.head(length=40), audits, engine):
        report(f"provenance: {line}")
    archaudit_cells.check(results)


def build_secret(prepared: PreparedBuild, env: Mapping[str, str]) -> Path | None:
    """The secret the build receives, written again with the store's credentials (those of
    the store's URL, and CACHE_STORE_USER, CACHE_STORE_PASSWORD, CACHE_STORE_TOKEN, their
    deprecated SCCACHE_WEBDAV_* aliases, AWS_* from ``env``) as the chosen tool reads them;
    None when inv build wrote no secret (none, or the user's own CACHE_SECRET_FILE). run()
    writes it again without them after the build."""
    if prepared.store is None:
        return None
    return cache_secret.write_secret(Path(cache_settings.secret_file(prepared.definition)),
                                     prepared.store,
                                     {**prepared.url_credentials,
                                      **cache_secret.credentials(env)},
                                     tool=cache_settings.cache_tool(prepared.definition))


def _read_metadata(path: Path) -> dict[str, Any]:
    """buildx's --metadata-file record of a bake (target -> what it exported)."""
    try:
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RocmBakeError(f"cannot read buildx's metadata file {path}: {exc}") from None
    return record


def audit_results(prepared: PreparedBuild, env: Mapping[str, str], report: Report
                  ) -> list[archaudit_cells.CellAudit]:
    """The arch audit of every cell the bake exported, one ``arch:`` line per cell (and one
    per problem, naming the file and its archs); ``archaudit.cells.check`` makes a wrong arch
    exit status 1."""
    results = archaudit_cells.audit_plan(prepared.plan, cell_archs(prepared.definition),
                                         Path.cwd(), env)
    for result in results:
        for line in result.lines():
            report(f"arch: {line}")
    return list(results)


def cell_archs(definition: Definition) -> list[str]:
    """The archs the build's cells are named after (the bake file's GPU_ARCHS; none when it
    declares no such variable)."""
    if ARCH_VARIABLE not in {v.name for v in definition.variables()}:
        return []
    value = definition.value(ARCH_VARIABLE)
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(item) for item in items if item]


def _bake_with_health(prepared: PreparedBuild, command: bakecommand.BakeCommand,
                      env: Mapping[str, str], report: Report
                      ) -> tuple[int, tuple[str, str] | None]:
    """Run the bake with plain progress passed through to stderr; then one cache-health line
    per target (CACHED steps, sccache hit rate) and a warning for a rebuild that hit below the
    threshold or a read-write build that wrote nothing. Also returns the base image buildx
    could not pull, if any. Each target built leaves the record of its local files
    (contextfiles), under its buildx history id, for inv why-rebuilt."""
    cwd = Path.cwd()
    snapshots = {name: contextfiles.snapshot(target, cwd)
                 for name, target in prepared.plan.targets.items()}
    with tempfile.TemporaryDirectory(prefix="rocm-bake-bake-") as scratch:
        metadata = Path(command.metadata_file or Path(scratch) / "metadata.json")
        argv = dataclasses.replace(command, progress=command.progress or "plain",
                                   metadata_file=str(metadata)).argv()
        returncode, errors = _bake_streaming(prepared, argv, env, report)
        for target, build_id in buildx_history.build_ids(metadata).items():
            if target in snapshots:
                contextfiles.write(build_id, target, snapshots[target],
                                   contextfiles.records_dir(env))
    return returncode, pullhint.unpullable(errors)


def _bake_streaming(prepared: PreparedBuild, argv: Sequence[str], env: Mapping[str, str],
                    report: Report) -> tuple[int, list[str]]:
    """The bake, its plain progress passed through to stderr; then the cache-health lines.
    Returns its exit status and its ERROR lines."""
    lines: list[str] = []          # only what the summary needs: a torch log is large
    seen: set[str] = set()
    errors: list[str] = []
    with process.start(argv, env, subprocess.PIPE) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace")
            sys.stderr.write(redact.text(line))
            if line.startswith("ERROR:"):
                errors.append(line)
            step = line.split(" ", 1)[0]
            if step.startswith("#") and (step not in seen or cache_health.STATS_MARK in line
                                         or line.rstrip().endswith(" CACHED")):
                seen.add(step)
                lines.append(line)
        returncode = proc.wait()
    settings = cache_settings.build_settings(prepared.definition) or {}
    summary, warnings = cache_health.health_report(buildx_progress.parse_plain(lines),
                                                   read_only=cache_store.is_read_only(settings))
    for line in summary:
        report(f"cache: {line}")
    for warning in warnings:
        report(f"warning: {warning}")
    return returncode, errors


def split_csv(values: Sequence[str]) -> list[str]:
    """Flag values that may repeat or be comma-separated (``--arch a,b --arch c``)."""
    return [part for value in values for part in value.split(",") if part]
