"""Benchmark: peak memory and wall time of `inv bump --dry-run` and `inv version-check` against
hostile upstreams on 127.0.0.1 (issue 41; tests/hostile.py serves them): an endless body, a
2 GiB bomb (for bump a 2 MB sdist holding one 2 GiB member; for version-check a 2 MB gzip'd
listing that inflates to 2 GiB) and a body that trickles in one byte every half second. Every
case must end in exit 2 with one line, under 200 MB of peak RSS, and within ``--timeout`` + 1 s
of the same command against an upstream that refuses at once (a 404 where the hostile answer
would be: the command's own start-up, bake file and all, measured in the same round).

Each run is a fresh `inv` process started by a small wrapper process that reports the child's
peak RSS (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``) and wall time. bump runs on a copy
of the real rocm-bake.hcl (it fails at the sdist, before any git or registry work);
version-check on a bake file of one PyPI pin.

    .venv/bin/python benchmarks/hostile.py [--timeout 5] [--rounds 1]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import _failed
import _machine
from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import hostile  # noqa: E402
from tests.hostile import MB, Server  # noqa: E402

INV = str(Path(sys.executable).parent / "inv")
RELEASE = "0.33.0"
SDIST = f"vllm-{RELEASE}.tar.gz"
MEMORY_GOAL = 200 * MB
PIN = ('variable "TRITON_VERSION" {\n  default = "3.9.0"\n}\n'
       'TRITON_VERSION_SOURCE = {\n  pypi = "triton"\n}\n')
WRAPPER = """\
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=False)
seconds = time.perf_counter() - start
print(json.dumps({"code": proc.returncode, "seconds": seconds, "stderr": proc.stderr,
                  "stdout": proc.stdout,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


@dataclass(frozen=True)
class Measured:
    code: int
    seconds: float
    peak: int   # bytes
    line: str


def measure(argv: list[str], cwd: Path) -> Measured:
    done = _failed.run([sys.executable, "-c", WRAPPER, *argv], cwd=cwd, stdout=subprocess.PIPE)
    data = json.loads(done.stdout)
    lines = [ln for ln in str(data["stderr"]).splitlines() if ln.strip()]
    with suppress(ValueError, KeyError, IndexError, TypeError):   # version-check --json
        lines.append(str(json.loads(data["stdout"])["pins"][0]["detail"]))
    return Measured(int(data["code"]), float(data["seconds"]), int(data["maxrss_kib"]) * 1024,
                    lines[-1] if lines else "")


def slow_trickle(data: bytes, pause: float = 0.5) -> hostile.Answer:
    """A byte every ``pause`` seconds of real time (a benchmark may sleep; a test may not)."""

    def answer(handler: BaseHTTPRequestHandler, _: Server) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        with suppress(OSError):
            for byte in data:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(pause)

    return answer


def gzip_bomb(size: int) -> hostile.Answer:
    """A listing sent as gzip: ~1 KB per MB of zeros it inflates to."""
    packed = gzip.compress(bytes(MB), mtime=0) * (size // MB)

    def answer(handler: BaseHTTPRequestHandler, _: Server) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(packed)))
        handler.end_headers()
        with suppress(OSError):
            handler.wfile.write(packed)

    return answer


def _not_found(handler: BaseHTTPRequestHandler, _: Server) -> None:
    hostile.send(handler, b"{}", status=404)


@contextmanager
def world() -> Iterator[dict[str, str]]:
    """One loopback server per case; yields case -> its base URL."""
    bomb = hostile.bomb(f"vllm-{RELEASE}", "docker/Dockerfile.rocm")
    trickled = b"x" * 4000
    sdists = {"refused": (_not_found, b""),
              "endless": (hostile.endless(limit=8192 * MB, kind="application/gzip"), b""),
              "2 GiB bomb": (hostile.body(bomb, "application/gzip"), bomb),
              "trickle": (slow_trickle(trickled), trickled)}
    listings = {"refused": _not_found,
                "endless": hostile.endless(limit=8192 * MB, kind="application/json"),
                "2 GiB bomb": gzip_bomb(2048 * MB),
                "trickle": slow_trickle(json.dumps({"releases": {}}).encode() + b" " * 4000)}
    with _servers(len(sdists) + len(listings)) as servers:
        urls = {}
        for server, (case, (answer, data)) in zip(servers, sdists.items(), strict=False):
            server.routes["/pypi/vllm/json"] = hostile.body(hostile.pypi_json(
                "vllm", RELEASE, data, f"{server.url}/files/{SDIST}"))
            server.routes[f"/files/{SDIST}"] = answer
            urls[f"bump {case}"] = server.url
        for server, (case, answer) in zip(servers[len(sdists):], listings.items(), strict=False):
            server.routes["/pypi/triton/json"] = answer
            urls[f"version-check {case}"] = server.url
        yield urls


@contextmanager
def _servers(count: int) -> Iterator[list[Server]]:
    if count == 0:
        yield []
        return
    with hostile.serving() as first, _servers(count - 1) as rest:
        yield [first, *rest]


def argv_of(case: str, url: str, tmp: Path, timeout: float) -> list[str]:
    common = ["--rewrite", f"https://pypi.org={url}", "--timeout", f"{timeout:g}",
              "--cache-dir", str(tmp / "cache" / case.replace(" ", "-"))]
    if case.startswith("bump"):
        return [INV, "--search-root", str(ROOT), "bump", "--dry-run", "--vllm", RELEASE,
                "--source", "sdist", *common]
    return [INV, "--search-root", str(ROOT), "version-check", "--file",
            str(tmp / "pin.hcl"), "--retries", "0", "--json", *common]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    load = os.getloadavg()
    rows = []
    failures = 0
    with tempfile.TemporaryDirectory(prefix="rocm-bake-bench-hostile-") as name:
        tmp = Path(name)
        tree = tmp / "tree"
        tree.mkdir()
        shutil.copy(ROOT / "rocm-bake.hcl", tree / "rocm-bake.hcl")
        (tmp / "pin.hcl").write_text(PIN, encoding="utf-8")
        with world() as urls:
            for _ in range(args.rounds):
                prompt: dict[str, float] = {}
                for case, url in urls.items():
                    command, _, kind = case.partition(" ")
                    got = measure(argv_of(case, url, tmp, args.timeout), tree)
                    if kind == "refused":
                        prompt[command] = got.seconds
                    within = got.seconds <= prompt[command] + args.timeout + 1
                    ok = got.code == 2 and within and got.peak < MEMORY_GOAL
                    failures += not ok
                    rows.append([case, got.code, f"{got.seconds:.2f}", f"{got.peak / MB:.0f}",
                                 "yes" if ok else "NO", got.line.removeprefix("error: ")[:120]])
    print(f"inv against hostile upstreams on 127.0.0.1, --timeout {args.timeout:g} s; goal: "
          f"exit 2, within --timeout + 1 s of the refused run, under {MEMORY_GOAL // MB} MB")
    print(_machine.line(load, os.getloadavg()))
    print(tabulate(rows, headers=["case", "exit", "wall s", "peak MB", "goal", "message"]))
    if failures:
        raise _failed.RunError(f"{failures} case(s) missed the goal")


if __name__ == "__main__":
    _failed.main(main)
