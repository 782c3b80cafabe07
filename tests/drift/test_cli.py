"""``inv version-check`` as a user runs it: the real rocm-bake.hcl against the committed
snapshot, bad input as one line with exit 2, the progress line on a TTY."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, VENV_BIN, run_cli
from tests.drift import make_snapshot

SNAPSHOT = "src/rocm_bake_checks/drift/snapshots/upstream.json"


def one_line_error(result_err: str, code: int, *fragments: str) -> None:
    assert code == 2, (code, result_err)
    lines = [line for line in result_err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result_err, result_err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_offline_real_bake_file_table_and_exit_status() -> None:
    result = run_cli(["inv", "version-check", "--offline", SNAPSHOT])
    assert result.returncode == 1, result.stderr   # the snapshot holds drift: never 0
    rows = {line.split()[1]: line.split()[0] for line in result.stdout.splitlines()
            if line.split() and line.split()[0] in ("ok", "DRIFT", "ERROR")}
    assert rows["PYTORCH_VERSION"] == "DRIFT" and rows["VLLM_REF[wheel]"] == "ok"
    assert result.stdout.startswith("check    pin ")             # headed columns
    assert "variables declare no source (not pins, or not checked): list them with " \
        "--list-undeclared" in result.stdout
    assert "checked 2026-08-20T12:00:00+00:00" in result.stdout
    assert "exit 1" in result.stdout


def test_offline_json_is_deterministic() -> None:
    runs = [run_cli(["inv", "version-check", "--offline", SNAPSHOT, "--json"]) for _ in "ab"]
    assert runs[0].stdout == runs[1].stdout
    data = json.loads(runs[0].stdout)
    assert data["exit_code"] == 1 and data["mode"] == "offline"
    assert {p["status"] for p in data["pins"]} <= {"up to date", "behind", "wheel available"}


def test_committed_docs_page_is_current() -> None:
    result = run_cli(["inv", "version-check", "--offline", SNAPSHOT, "--docs", "--check"])
    assert result.returncode == 0, (
        f"{result.stderr}: run `inv version-check --offline {SNAPSHOT} --docs`")


def test_committed_snapshot_is_what_the_generator_records(tmp_path: Path) -> None:
    fresh = tmp_path / "upstream.json"
    make_snapshot.generate(fresh)
    assert json.loads(fresh.read_text()) == json.loads((ROOT / SNAPSHOT).read_text()), \
        "regenerate: python -m tests.drift.make_snapshot"


@pytest.mark.parametrize(("args", "fragments"), [
    (["--offline", "nope.json"], ["cannot read snapshot nope.json"]),
    (["--offline", "rocm-bake.hcl"], ["is not valid JSON"]),
    (["--rewrite", "no-equals-sign"], ["expected PREFIX=REPLACEMENT"]),
    (["--offline", SNAPSHOT, "--record", "x.json"], ["exclude each other"]),
    (["--check"], ["use it with --docs"]),
    (["--deadline", "0"], ["--deadline must be a positive number"]),
    (["--offline", SNAPSHOT, "--explain", "NOPE"], ["--explain NOPE: no such pin"]),
    (["--file", "nope.hcl"], ["nope.hcl", "cannot read bake file"]),
    (["--pypi", "notaurl"], ["--pypi 'notaurl': expected an http:// or https:// base URL"]),
    (["--pypi", "ftp://127.0.0.1:9/"], ["--pypi 'ftp://127.0.0.1:9/': expected an http://"]),
    (["--max-wait", "-5"], ["--max-wait must be a number of seconds >= 0, not -5"]),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], fragments: list[str]) -> None:
    result = run_cli(["inv", "version-check", *args])
    one_line_error(result.stderr, result.returncode, *fragments)


@pytest.mark.parametrize(("declaration", "fragments"), [
    ('X_SOURCE = { git = "u", tag = "x" }', ["X_SOURCE: unknown field(s) tag"]),
    ('X_SOURCE = { git = "u", pypi = "x" }', ["declare exactly one upstream"]),
    ('X_SOURCE = { git = "u", tags = "^v(.*)$" }', ["must have a (?P<version>...) group"]),
    ('X_SOURCE = { git = "u", tags = "^v(?P<version>[$" }', ["is not a valid regex"]),
    ('X_SOURCE = { pypi = "x", waiver = { until = "soon" } }', ['until = "YYYY-MM-DD"']),
    ('X_SOURCE = { pypi = "x", allow_behind = { minor = -1 } }', ["whole number >= 0"]),
    ('Y_SOURCE = { pypi = "x" }', ["declares a source for Y, which is not a variable"]),
])
def test_bad_declaration_names_file_and_line(tmp_path: Path, declaration: str,
                                             fragments: list[str]) -> None:
    bake = tmp_path / "bad.hcl"
    bake.write_text(f'variable "X" {{\n  default = "1.0"\n}}\n\n{declaration}\n')
    result = run_cli(["inv", "version-check", "--file", str(bake), "--offline",
                      str(ROOT / SNAPSHOT)])
    one_line_error(result.stderr, result.returncode, f"{bake}:5", *fragments)


def test_progress_line_on_a_tty() -> None:
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(VENV_BIN / "inv"), "version-check", "--offline", SNAPSHOT],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=slave,
                            env={"PATH": f"{VENV_BIN}:{os.environ['PATH']}",
                                 "HOME": str(Path.home())})
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=30)
    os.close(master)
    assert b"\r\x1b[K[1/" in seen and b"] " in seen, seen[:300]


def test_offline_newest_is_in_each_pins_own_spelling_and_rows_of_a_component_agree() -> None:
    result = run_cli(["inv", "version-check", "--offline", SNAPSHOT, "--json"])
    pins = {p["name"]: p for p in json.loads(result.stdout)["pins"]}
    newest = {name: pins[name]["newest"] for name in (
        "VLLM_REF", "ROCM_VERSION", "SCCACHE_VERSION", "AITER_REF", "PYTORCH_VERSION[wheel]")}
    assert newest == {"VLLM_REF": "v0.33.0",             # a v-tag pin read from PyPI
                      "ROCM_VERSION": "7.3.0",           # a version read from rocm-7.3.0
                      "SCCACHE_VERSION": "0.14.0",       # a version read from release v0.14.0
                      "AITER_REF": "v0.1.26",            # a tag, as tagged
                      "PYTORCH_VERSION[wheel]": "2.13.1+rocm7.2"}   # version and variant
    assert pins["PYTORCH_VERSION[wheel]"]["status"] == "wheel available"   # not "up to date"
    assert pins["LMCACHE_REF"]["story"] == ("v0.5.4 (LMCACHE_COMMIT, from git tags) is not "
                                            "among GitHub releases of LMCache/LMCache")
    assert pins["LMCACHE_COMMIT"]["story"] == ("LMCACHE_REF reads GitHub releases of "
                                               "LMCache/LMCache, whose newest is v0.5.3")
