"""Benchmark: `inv version-check` vs nvchecker on the full pin set of rocm-bake.hcl.

Both run against the same local upstream world (tests/drift/upstream.py: git daemon behind a
TCP proxy, and one HTTP server), with LATENCY injected into every HTTP request and every git
connection, in the same process, alternately, N rounds each. nvchecker (PyPI `nvchecker`) is
installed by this script into its own venv under /tmp and configured for the same sources
(git tags / branch heads, the same PyPI JSON, index and GitHub release URLs; nvchecker's own
pypi and github sources cannot be pointed at a local server, so those use its `regex` source
on the same URLs). It checks less than we do (no commit history, no wheels, no coherence).
Python writes its bytecode cache as it does for a user (``PYTHONDONTWRITEBYTECODE`` is dropped:
set in CI or a sandbox, it would make every run of ours compile the project again).

    .venv/bin/python benchmarks/version_check.py [--rounds 3] [--latency 0.1]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import _failed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rocm_bake_checks.drift import warmup  # noqa: E402
from rocm_bake_checks.drift.cache import DiskCache  # noqa: E402
from tests.drift import upstream  # noqa: E402

INV = str(Path(sys.executable).parent / "inv")
ENGINE = ("import json, sys; from rocm_bake_checks.drift import run; "
          "from rocm_bake_checks.drift.settings import DriftSettings; "
          "s = DriftSettings(**json.loads(sys.argv[1])); c = run.check(s); "
          "sys.stdout.write(run.render_report(s, c.report)); sys.exit(c.report.exit_code())")
NVCHECKER_VENV = Path("/tmp/rocm-bake-nvchecker")


@contextlib.contextmanager
def latency_proxy(target: int, delay: float) -> Iterator[int]:
    """A TCP proxy that waits ``delay`` before forwarding each new connection."""
    server = socket.create_server(("127.0.0.1", 0))
    port = int(server.getsockname()[1])
    stop = threading.Event()

    def pipe(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := src.recv(65536):
                dst.sendall(chunk)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def handle(client: socket.socket) -> None:
        time.sleep(delay)
        with contextlib.suppress(OSError):
            backend = socket.create_connection(("127.0.0.1", target))
            threading.Thread(target=pipe, args=(backend, client), daemon=True).start()
            pipe(client, backend)

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=handle, args=(client,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        stop.set()
        server.close()


def install_nvchecker() -> Path:
    binary = NVCHECKER_VENV / "bin" / "nvchecker"
    if not binary.exists():
        _failed.run([sys.executable, "-m", "venv", str(NVCHECKER_VENV)])
        _failed.run([str(NVCHECKER_VENV / "bin" / "pip"), "install", "--quiet", "nvchecker"])
    return binary


def nvchecker_config(world: upstream.Upstream, git: str, http: str, tmp: Path) -> Path:
    gh = f"{git}"
    entries: dict[str, dict[str, object]] = {
        "ROCM_VERSION": {"source": "git", "git": f"{gh}ROCm/ROCm.git",
                         "include_regex": r"rocm-\d+\.\d+(\.\d+)?", "prefix": "rocm-"},
        "SCCACHE_VERSION": {"source": "regex", "regex": r'"tag_name": "v([0-9.]+)"',
                            "url": f"{http}/repos/mozilla/sccache/releases?per_page=100"},
        "PYTORCH_COMMIT": {"source": "git", "git": f"{gh}ROCm/pytorch.git",
                           "use_commit": True, "branch": "release/2.12"},
        "PYTORCH_TAGS": {"source": "git", "git": f"{gh}ROCm/pytorch.git",
                         "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "PYTORCH_VERSION": {"source": "regex", "url": f"{http}/pypi/torch/json",
                            "regex": r'"(\d+\.\d+\.\d+)": \['},
        "PYTORCH_WHEEL": {"source": "regex", "url": f"{http}/pytorch/whl/rocm7.2/torch/",
                          "regex": r"torch-([0-9.]+)\+rocm7\.2-cp312"},
        "TORCHVISION_COMMIT": {"source": "git", "git": f"{gh}pytorch/vision.git",
                               "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "TORCHAUDIO_COMMIT": {"source": "git", "git": f"{gh}pytorch/audio.git",
                              "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "TRITON_COMMIT": {"source": "git", "git": f"{gh}ROCm/triton.git", "use_commit": True,
                          "branch": "release/internal/3.7.x"},
        "TRITON_VERSION": {"source": "regex", "url": f"{http}/pypi/triton/json",
                           "regex": r'"(\d+\.\d+\.\d+)": \['},
        "AITER_REF": {"source": "git", "git": f"{gh}ROCm/aiter.git",
                      "include_regex": r"v\d+\.\d+\.\d+(\.post\d+)?", "prefix": "v"},
        "CUPY_REF": {"source": "git", "git": f"{gh}cupy/cupy.git",
                     "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "UCX_COMMIT": {"source": "git", "git": f"{gh}openucx/ucx.git",
                       "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "NIXL_COMMIT": {"source": "git", "git": f"{gh}ai-dynamo/nixl.git",
                        "include_regex": r"v?\d+\.\d+\.\d+", "prefix": "v"},
        "VLLM_COMMIT": {"source": "git", "git": f"{gh}vllm-project/vllm.git",
                        "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "VLLM_REF": {"source": "regex", "url": f"{http}/pypi/vllm/json",
                     "regex": r'"(\d+\.\d+\.\d+)": \['},
        "VLLM_WHEEL": {"source": "regex", "url": f"{http}/vllm-wheels/rocm/0.28.0/rocm723/vllm/",
                       "regex": r"vllm-([0-9.]+)\+rocm723-cp312"},
        "LMCACHE_COMMIT": {"source": "git", "git": f"{gh}LMCache/LMCache.git",
                           "include_regex": r"v\d+\.\d+\.\d+", "prefix": "v"},
        "LMCACHE_REF": {"source": "regex", "regex": r'"tag_name": "v([0-9.]+)"',
                        "url": f"{http}/repos/LMCache/LMCache/releases?per_page=100"},
    }
    lines = ["[__config__]", f'oldver = "{tmp}/old.json"', f'newver = "{tmp}/new.json"',
             "max_concurrency = 20", ""]
    for name, entry in entries.items():
        lines.append(f"[{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in entry.items()]
        lines.append("")
    path = tmp / "nvchecker.toml"
    path.write_text("\n".join(lines).replace("true", "true"))
    return path


CPU: dict[str, list[float]] = {}


def timed(argv: list[str], env: dict[str, str], label: str = "") -> tuple[float, str, int]:
    """Wall seconds, output and status of one run; its CPU seconds (user + system, the run
    and its children: git, nvchecker's curl) go to ``CPU[label]``, a figure that a busy
    machine does not inflate the way it inflates wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if label:
        CPU.setdefault(label, []).append(after.ru_utime - before.ru_utime
                                         + after.ru_stime - before.ru_stime)
    return wall, proc.stdout + proc.stderr, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()
    nvchecker = install_nvchecker()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        with upstream.running(tmp / "world", latency=args.latency) as world:
            git_port = int(world.git_url.rsplit(":", 1)[1].strip("/"))
            with latency_proxy(git_port, args.latency) as proxy:
                run(world, tmp, f"git://127.0.0.1:{proxy}/", nvchecker, args.rounds)


def run(world: upstream.Upstream, tmp: Path, git: str, nvchecker: Path, rounds: int) -> None:
    http = world.http_url
    rewrites = [r.replace(world.git_url, git) for r in world.rewrites()]
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           **world.pins}
    config = nvchecker_config(world, git, http, tmp)
    ours_times: list[float] = []
    cached_times: list[float] = []
    theirs_times: list[float] = []
    engine_times: list[float] = []
    inv_times: list[float] = []
    wave_times: list[float] = []
    cache_hits = requests = 0
    code = -1
    # the bytecode a user's first run leaves behind (pip writes it for a non-editable install)
    _failed.run([sys.executable, "-m", "compileall", "-q", "src", "tasks"], cwd=ROOT, env=env)
    for round_number in range(rounds):
        cache = tmp / f"cache-{round_number}"
        argv = [INV, "version-check", "--json", "--cache-dir", str(cache),
                *[a for r in rewrites for a in ("--rewrite", r)]]
        seconds, output, code = timed(argv, env, "cold")
        ours_times.append(seconds)
        seconds, output, _ = timed(argv, env, "warm")   # same cache: ETags and the git cache
        cached_times.append(seconds)
        data = json.loads(output[: output.rindex("}") + 1])
        cache_hits, requests = data["answered_from_cache"], data["requests"]
        engine_argv = [sys.executable, "-c", ENGINE, json.dumps({
            "files": ["rocm-bake.hcl"], "rewrites": rewrites, "cache_dir": str(cache),
            "output": "json"})]
        engine_times.append(timed(engine_argv, env)[0])   # warm, without invoke
        inv_times.append(timed([INV, "--version"], env)[0])
        wave_times.append(git_wave(cache, rewrites))
        seconds, nv_output, nv_code = timed([str(nvchecker), "-c", str(config)], env, "nv")
        if nv_code != 0:
            print(nv_output[-2000:])
        theirs_times.append(seconds)
    ours, cached, theirs, engine, inv, wave = (statistics.median(t) for t in (
        ours_times, cached_times, theirs_times, engine_times, inv_times, wave_times))
    print(f"latency injected: {world.web.latency * 1000:.0f} ms per HTTP request and per git "
          f"connection; {rounds} rounds, medians")
    print(f"inv version-check (cold cache):  {ours:6.2f} s   (exit {code}; checks 16 pins, "
          "3 wheels, 8 coherence rules)")
    print(f"inv version-check (warm cache):  {cached:6.2f} s   ({cache_hits} of {requests} HTTP "
          "requests answered 304 from the ETag cache)")
    print(f"nvchecker {version(nvchecker)}:             {theirs:6.2f} s   "
          "(19 entries: newest tag/version only)")
    print(f"same check without invoke (warm): {engine:5.2f} s   "
          "(python -c: rocm_bake_checks.drift.run.check)")
    print(f"`inv --version` alone:           {inv:6.2f} s   (invoke's own start-up)")
    print(f"the warm run's git ls-remotes:   {wave:6.2f} s   (all at once, bare: a floor both "
          "tools pay)")
    print(f"floor for a warm inv run: {inv + wave:.2f} s = {(inv + wave) / theirs:.2f}x nvchecker")
    print(f"ratio ours/nvchecker: {ours / theirs:.2f}x cold, {cached / theirs:.2f}x warm, "
          f"{engine / theirs:.2f}x warm without invoke")
    cold_cpu, warm_cpu, nv_cpu = (statistics.median(CPU[k]) for k in ("cold", "warm", "nv"))
    print(f"CPU seconds (user+sys, with children): ours {cold_cpu:.2f} cold, {warm_cpu:.2f} "
          f"warm; nvchecker {nv_cpu:.2f}; ratio {cold_cpu / nv_cpu:.2f}x cold, "
          f"{warm_cpu / nv_cpu:.2f}x warm (load average now "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


def git_wave(cache: Path, rewrites: list[str]) -> float:
    """Seconds for the ref listings a warm run asks (its plan, drift/warmup.py), started all at
    once with nothing else running: the network part of a warm run, which nvchecker pays too."""
    urls = warmup.load(DiskCache(cache / "plan"), [ROOT / "rocm-bake.hcl"]).git
    pairs = [r.split("=", 1) for r in rewrites]
    fetched = [next((new + u[len(old):] for old, new in pairs if u.startswith(old)), u)
               for u in urls]
    start = time.perf_counter()
    procs = [subprocess.Popen(["git", "ls-remote", "--tags", "--heads", u],
                              stdout=subprocess.DEVNULL) for u in fetched]
    for proc in procs:
        proc.wait()
    return time.perf_counter() - start


def version(nvchecker: Path) -> str:
    proc = subprocess.run([str(nvchecker), "--version"], capture_output=True, text=True,
                          check=False)
    return proc.stdout.strip().split()[-1] if proc.stdout.strip() else "?"


if __name__ == "__main__":
    _failed.main(main)
