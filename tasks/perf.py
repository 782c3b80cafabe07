"""inv perf / perf-report / perf-serve: build time under the four cache conditions."""

from __future__ import annotations

import os
from pathlib import Path

from invoke.context import Context
from invoke.tasks import task

from tasks._cli import reports_errors

ROOT = Path(__file__).resolve().parent.parent
# The library's defaults (rocm_bake.perf: conditions.STACK_DIR, history.PATH), spelt out so that
# listing the tasks does not import the perf library; tests/unit/test_task_imports.py checks them.
STACK_DIR = "tests/e2e/cachestack"
HISTORY = "perf/history.jsonl"
DOWNLOADS = os.environ.get("ROCM_BAKE_CACHESTACK_DIR", "/var/cache/rocm-bake/cachestack")


@task(iterable=["set_"], auto_shortflags=False, help={
    "target": "the bake target to measure (default: ggml of the cache test stack: ggml's HIP "
              "backend from the llama-cpp-python sdist, the full GGML_TU_SET, GPU_ARCHS gfx950)",
    "conditions_": "comma-separated subset of frozen,hot,warm,cold (default: all four)",
    "repeat": "how many times to measure each condition (default 1)",
    "bake_dir": "directory of the bake file (default: tests/e2e/cachestack)",
    "pin": "the pin variable a warm build touches (default GGML_PIN)",
    "set_": "NAME=VALUE: a bake variable for every build",
    "webdav": "the sccache WebDAV store (default http://127.0.0.1:8080)",
    "cache_repo": "registry cache repository base (a fresh one per repeat is derived from it)",
    "registry_dir": "the registry's run directory, for bytes pulled/pushed (default: the "
                    "project's engine's, $ROCM_BAKE_ENGINE_DIR or /tmp/rocm-bake-engine)",
    "history_": "the JSON-lines history to append to (default perf/history.jsonl)",
})
@reports_errors
def perf(c: Context, target: str = "ggml", conditions_: str = "frozen,hot,warm,cold",
         repeat: int = 1, bake_dir: str = STACK_DIR, pin: str = "GGML_PIN",
         set_: list[str] | None = None, webdav: str = "http://127.0.0.1:8080",
         cache_repo: str = "127.0.0.1:5000/rocm-bake-perf/buildcache",
         registry_dir: str = "", history_: str = HISTORY) -> None:
    """Build under frozen, hot, warm and cold caches (each prepared for real); append to the
    history. Finds (or starts) the engine and registry as inv build does; needs the WebDAV
    store (scripts/webdav.sh)."""
    from rocm_bake.docker import engine
    from rocm_bake.perf import conditions, history

    registry = Path(registry_dir) if registry_dir else engine.run_dir(os.environ)
    setup = conditions.PerfSetup(
        root=ROOT, bake_dir=Path(bake_dir), target=target, pin_variable=pin,
        sets=list(set_ or []), webdav=webdav, cache_repo=cache_repo,
        registry_log=registry / "registry.log", registry_root=registry / "registry",
        history=Path(history_))
    if setup.bake_dir == conditions.STACK_DIR and \
            not any(s.startswith("DOWNLOADS=") for s in setup.sets):
        setup.sets.append(f"DOWNLOADS={DOWNLOADS}")
    wanted = conditions.parse_conditions(conditions_)
    records = conditions.measure(setup, wanted, repeat)
    print(history.markdown(records))


@task(auto_shortflags=False, help={"history_": "the history to read (default perf/history.jsonl)",
            "out": "output directory (default perf/)"})
@reports_errors
def perf_report(c: Context, history_: str = HISTORY, out: str = "perf") -> None:
    """Render the perf history: perf/report.html (charts, self-contained) + perf/summary.md."""
    from rocm_bake.perf import report

    page, summary = report.write(ROOT / history_, ROOT / out)
    print(f"{page}\n{summary}")


@task(auto_shortflags=False, help={"port": "port on 127.0.0.1 (default 8001)",
            "history_": "the history to serve (default perf/history.jsonl)"})
@reports_errors
def perf_serve(c: Context, port: int = 8001, history_: str = HISTORY) -> None:
    """Serve the perf report on 127.0.0.1 (it refreshes while a perf run appends)."""
    from rocm_bake.perf import report

    server = report.serve(ROOT / history_, port)
    print(f"serving the perf report on http://127.0.0.1:{port}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
