"""``inv rehearse``: the real bake file's targets built with the real Dockerfiles on the
project's engine, offline, in the stand-in world (``world``, ``mirror``, ``sources``, ``base``).

What it adds to the real invocation is an overlay bake file (every cell's ``RUN`` steps on the
host's network, where the world listens on 127.0.0.1; the base image's reference mapped to the
stand-in base by a named context), the pins of the sources pointed at the world's repositories
(environment variables, as any override), and ``output=type=cacheonly``.  Everything it
substitutes is listed in :attr:`Result.substitutions`; a step that fails is reported as
``cell: Dockerfile:line: the command's own error``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocm_bake.core.errors import RocmBakeError
from rocm_bake_checks.lint import bakemodel, upstream
from rocm_bake_checks.lint.locks.resolution import (
    Dist,
    WithoutKernels,
    built_dists,
    built_without_kernels,
)
from rocm_bake_checks.rehearse import base, mirror, nicdebs, sources, world

DEFAULT_PORT = 38731
EXIT_FAILED_STEP = 1


@dataclass(frozen=True)
class Options:
    root: Path
    bake_file: Path
    targets: Sequence[str]
    arches: Sequence[str]
    cache: Path
    port: int = DEFAULT_PORT
    docker: Sequence[str] = ("docker",)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    log: Path | None = None


@dataclass
class Result:
    ok: bool
    failure: str = ""                 # cell: Dockerfile:line: error
    substitutions: list[str] = field(default_factory=list)
    downloaded: int = 0
    downloaded_bytes: int = 0
    distributions: int = 0
    log: str = ""


Report = Callable[[str], None]


def rehearse(options: Options, report: Report) -> Result:
    """Rehearse ``options.targets`` for ``options.arches``; the result says how it ended."""
    _preflight(options)
    printed = _printed(options)   # buildx names an unknown target or arch before any work
    definition = bakemodel.load([options.bake_file])
    variables = {v.name: str(v.value) for v in definition.variables()
                 if isinstance(v.value, str | int | float)}
    report("rehearse: the wheel mirror (the locks' files, from PyPI by sha256, cached)")
    files = mirror.resolve_cached(mirror.pins_of(sorted((options.root / "dockerfiles" / "locks")
                                                         .glob("*.txt"))), options.cache)
    filled = mirror.fill(files, options.cache)
    targets = bakemodel.targets(definition, options.root)
    metadata = upstream.Metadata(upstream.Settings())
    built = built_dists(definition, [options.bake_file], targets, options.root, metadata,
                        runtime_files=False)
    without = built_without_kernels(definition, options.root, metadata)
    with tempfile.TemporaryDirectory(prefix="rocm-bake-rehearsal.") as tmp:
        root = Path(tmp)
        mirror.write_index(filled, root)
        report("rehearse: the stand-in sources")
        env, lines = _sources(root, variables, built, without, options.cache)
        try:
            served = world.serving(root, options.cache, options.port)
            entered = served.__enter__()
        except OSError as exc:
            raise RocmBakeError(f"cannot serve the rehearsal world on 127.0.0.1:{options.port}: "
                                f"{exc.strerror} (--port)") from None
        try:
            the_world, missed = entered
            python = _image_label(options, base.ROOTFS_IMAGE, "org.rocm-bake.python-version")
            report("rehearse: the stand-in base image")
            image = base.build(list(options.docker), options.env, the_world.url,
                               variables["ROCM_VERSION"], python)
            port = str(options.port)
            overrides = {k: v.replace("{port}", port) for k, v in env.items()}
            overlay = root / "rehearsal.json"
            overlay.write_text(json.dumps(_overlay(printed, overrides, image)),
                               encoding="utf-8")
            report(f"rehearse: docker buildx bake {' '.join(options.targets)} "
                   f"(GPU_ARCHS={','.join(options.arches)})")
            result = _bake(options, overlay, {"GPU_ARCHS": ",".join(options.arches)},
                           _by_dockerfile(printed))
        finally:
            served.__exit__(None, None, None)
    result.substitutions = [*base.substitutions(variables["ROCM_VERSION"], python), *lines,
                            f"packages: {len(filled.files)} locked distributions from PyPI by "
                            "sha256 (the mirror)", *_said(result.log)]
    if missed:
        result.substitutions.append("the world could not answer: " + ", ".join(sorted(set(missed))))
    result.downloaded, result.downloaded_bytes = filled.downloaded, filled.downloaded_bytes
    result.distributions = len(filled.files)
    return result


def _preflight(options: Options) -> None:
    if not options.bake_file.is_file():
        raise RocmBakeError(f"bake file {options.bake_file} does not exist")
    docker = list(options.docker)
    done = subprocess.run([*docker, "buildx", "version"], capture_output=True, text=True,
                          env=dict(options.env), check=False)
    if done.returncode != 0:
        raise RocmBakeError("docker buildx is not available (scripts/engine.sh install)")
    if subprocess.run([*docker, "image", "inspect", base.ROOTFS_IMAGE], capture_output=True,
                      env=dict(options.env), check=False).returncode != 0:
        script = options.root / "scripts" / "rehearsal-base.sh"
        done = subprocess.run(["bash", str(script), "image"], capture_output=True, text=True,
                              env=dict(options.env), check=False)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise RocmBakeError(f"the stand-in base {base.ROOTFS_IMAGE} could not be made: {last}")


def _image_label(options: Options, image: str, label: str) -> str:
    done = subprocess.run([*options.docker, "image", "inspect", "-f",
                           f'{{{{index .Config.Labels "{label}"}}}}', image],
                          capture_output=True, text=True, env=dict(options.env), check=False)
    return done.stdout.strip() or "?"


def _sources(root: Path, variables: Mapping[str, str], built: Mapping[str, Dist],
             without: Mapping[str, WithoutKernels],
             cache: Path) -> tuple[dict[str, str], list[str]]:
    repos = [*sources.torch_repos(variables, built),
             *sources.component_repos(variables, built, without),
             *sources.ucx_nixl_repos(built),
             sources.rocm_runtime_repo(),
             sources.lmcache_repo(variables, cache)]
    env: dict[str, str] = {}
    pins: dict[str, str] = {}
    lines: list[str] = []
    triton_first = sorted(repos, key=lambda r: r.pin != "TRITON")
    for repo in triton_first:
        for pin in (repo.pin, *repo.extra_commits):
            pins[f"{pin}_COMMIT:real"] = variables.get(f"{pin}_COMMIT", "")
        sha = sources.commit(repo, root, variables.get(f"{repo.pin}_REF", ""), pins)
        url = f"http://127.0.0.1:{{port}}/git/{repo.name}.git"
        env[f"{repo.pin}_REPO"] = url
        for pin in (repo.pin, *repo.extra_commits):
            env[f"{pin}_COMMIT"] = pins[f"{pin}_COMMIT"] = sha
            lines.append(f"source {pin}: {variables.get(f'{pin}_COMMIT') or '(tag only)'} -> "
                         f"stand-in commit {sha} ({repo.what})")
        for pin, fix in repo.fixed.items():
            env[f"{pin}_COMMIT"] = pins[f"{pin}_COMMIT"] = fix
            lines.append(f"source {pin}: {variables.get(f'{pin}_COMMIT')} -> stand-in commit "
                         f"{fix} (a stand-in fix on {repo.name}'s branch rehearsal-fixes)")
    vllm = sources.vllm_repo(variables, cache)
    name, sha = sources.sdist_download(vllm, root, variables["VLLM_REF"].removeprefix("v"),
                                       pins)
    env["VLLM_SDIST_URL"] = f"http://127.0.0.1:{{port}}/downloads/{name}"
    env["VLLM_SDIST_SHA256"] = sha
    lines.append(f"download VLLM_SDIST_URL: {variables.get('VLLM_SDIST_URL')} -> a stand-in "
                 f"sdist, sha256 {sha}: vLLM: {vllm.what}")
    name, sha = sources.rust_download(root, variables["RUST_VERSION"])
    env["RUST_URL"] = f"http://127.0.0.1:{{port}}/downloads/{name}"
    env["RUST_SHA256"] = sha
    lines.append(f"download RUST_URL: {variables.get('RUST_URL')} -> a stand-in toolchain "
                 f"(rustc/cargo answering as {variables['RUST_VERSION']}), sha256 {sha}")
    env["NIC_DEBS"], debs = nicdebs.write(root, "http://127.0.0.1:{port}")
    env["NIC_BACKEND"] = "all"
    lines.append(f"NIC_BACKEND: {variables.get('NIC_BACKEND') or '(unset)'} -> all (every NIC's "
                 "provider .debs installed, from stand-ins)")
    return env, [*lines, *debs]


def _printed(options: Options) -> dict[str, dict[str, object]]:
    """The targets buildx resolves for the rehearsal (the requested ones and every one they
    reach through ``target:`` contexts), from ``docker buildx bake --print``."""
    env = {**options.env, "GPU_ARCHS": ",".join(options.arches)}
    done = subprocess.run([*options.docker, "buildx", "bake", "--file", str(options.bake_file),
                           "--print", *options.targets], cwd=options.root, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RocmBakeError(f"docker buildx bake --print: {last}")
    targets = json.loads(done.stdout).get("target", {})
    return {name: dict(t) for name, t in targets.items()}


def _overlay(printed: Mapping[str, Mapping[str, object]], overrides: Mapping[str, str],
             image: str) -> dict[str, object]:
    """Each target's RUN steps on the host's network, nothing exported, the overridden pins
    among its build arguments (set on the target, past the variables' validations, which
    accept only upstream's hosts), the base image's reference mapped to the stand-in."""
    targets: dict[str, dict[str, object]] = {}
    for name, target in printed.items():
        args = target.get("args") or {}
        assert isinstance(args, dict)
        entry: dict[str, object] = {"network": "host", "output": ["type=cacheonly"]}
        entry["args"] = {k: v for k, v in overrides.items() if k in args}
        if target.get("dockerfile") == "base.Dockerfile" and args.get("BASE_IMAGE"):
            entry["contexts"] = {str(args["BASE_IMAGE"]): f"docker-image://{image}"}
        targets[name] = entry
    return {"target": targets}


_LOCATION = re.compile(r"^([\w.+-]*Dockerfile):(\d+)$")
_HEADER = re.compile(r"^ > \[([^\] ]+)[^\]]*\]")
_STEP_FAILED = re.compile(r"^#(\d+) ERROR: process ")
_TARGET_ERROR = re.compile(r"^ERROR: (?:target ([^:]+): )?(.*)$")
_OUTPUT = re.compile(r"^#(\d+) \d+\.\d+ (.*)$")
_WRAP_UP = re.compile(r"metadata-generation-failed|subprocess-exited-with-error|"
                      r"error originates from a subprocess|Encountered error while|"
                      r"^rocm-bake-cache-stats |^hint: |"
                      # pip install's warning after it succeeded (exit 0): not the failure
                      r"dependency resolver does not currently take into account")
# pip check's own lines (pip/_internal/commands/check.py): a requirement of an installed
# distribution that is missing, not met, or a wheel not for this platform.
_PIP_CHECK = r"^\S+ \S+ (?:requires .+, which is not installed|has requirement .+, but you have " \
             r".+|is not supported on this platform)\.?$"
_OWN_ERROR = re.compile(r"\berror\b|^E: |Error:|^fatal:|^fetch-source:|^with-compiler-cache:|"
                        + _PIP_CHECK, re.I)


def _by_dockerfile(printed: Mapping[str, Mapping[str, object]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, target in sorted(printed.items()):
        out.setdefault(str(target.get("dockerfile") or "Dockerfile"), []).append(name)
    return out


def _bake(options: Options, overlay: Path, env: Mapping[str, str],
          cells: Mapping[str, Sequence[str]]) -> Result:
    full_env = {**options.env, **env}
    argv = [*options.docker, "buildx", "bake", "--file", str(options.bake_file), "--file",
            str(overlay), "--allow", "network.host", "--progress", "plain",
            "--set", "*.cache-from=", *options.targets]
    done = subprocess.run(argv, cwd=options.root, env=full_env, capture_output=True, text=True,
                          check=False)
    log = done.stdout + done.stderr
    if options.log is not None:
        options.log.write_text(log, encoding="utf-8")
    if done.returncode == 0:
        return Result(ok=True, log=log)
    return Result(ok=False, failure=failure(log, options.bake_file, cells), log=log)


def failure(log: str, bake_file: Path, cells: Mapping[str, Sequence[str]] | None = None) -> str:
    """``cell: Dockerfile:line: the command's own error`` from a failed bake's plain log: the
    step buildx shows with its Dockerfile line, the cell that builds it (the step's header
    names any target sharing it: ``cells``, Dockerfile -> cell, says whose it is), and the
    last line of that step's whole output that reads as an error (past pip's and the
    compiler cache's own wrap-up lines), else its last line."""
    lines = log.splitlines()
    for n, line in enumerate(lines):
        located = _LOCATION.match(line.strip())
        if not located:
            continue
        header = next((h for previous in reversed(lines[:n]) if (h := _HEADER.match(previous))),
                      None)
        cell = _cell((cells or {}).get(located.group(1), ()), header.group(1) if header else "?")
        number = next((m.group(1) for previous in reversed(lines[:n])
                       if (m := _STEP_FAILED.match(previous))), "")
        said = [m.group(2) for out in lines
                if (m := _OUTPUT.match(out)) and m.group(1) == number and m.group(2).strip()]
        errors = [i for i, s in enumerate(said) if _OWN_ERROR.search(s)
                  and not _WRAP_UP.search(s)]
        own = _with_details(said, errors[-1]) if errors else said[-1] if said \
            else _last_error(lines)
        return f"{cell}: dockerfiles/{located.group(1)}:{located.group(2)}: {own.strip()}"
    return f"?: {bake_file}: {_last_error(lines)}"


def _with_details(said: Sequence[str], index: int) -> str:
    """The error line at ``index``, and when it ends with ``:`` the indented lines under it
    (pip's "These do not:" and the requirement it names), joined."""
    line = said[index].strip()
    if not line.endswith(":"):
        return line
    details = []
    for more in said[index + 1:]:
        if not more[:1].isspace():
            break
        details.append(more.strip())
    return " ".join([line, *details])


def _cell(candidates: Sequence[str], named: str) -> str:
    """The cell of the failed step: among the targets built from its Dockerfile, the one of the
    arch of the target its header names (BuildKit runs a shared step once, under any name)."""
    arch = named.rsplit("-", 1)[-1]
    return next((c for c in candidates if c.endswith(f"-{arch}")),
                candidates[0] if candidates else named)


def _last_error(lines: list[str]) -> str:
    found = [m.group(2) for line in lines if (m := _TARGET_ERROR.match(line))]
    return found[-1] if found else "the bake failed (see its log: --log)"


def _said(log: str) -> list[str]:
    """The stand-ins' own lines ("rehearsal: ...") the build printed, once each."""
    seen: dict[str, None] = {}
    for line in log.splitlines():
        if match := _OUTPUT.match(line):
            text = match.group(2).strip()
            if text.startswith("rehearsal:"):
                seen.setdefault(re.sub(r"/tmp/\S+", "TMP", text), None)
    return list(seen)
