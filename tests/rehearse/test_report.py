"""The rehearsal's one-line report from a failed bake's plain log, without an engine: the
logs of bad cases (tests/rehearse/badcases.py) as the rehearsal recorded them, trimmed to the
failed step.  In the pip check case pip install printed its resolver's warning ("ERROR: ...",
exit 0) and the step failed at ``pip check``, whose own line is the report; in the einops
case pip's error goes on, indented, on the lines under it."""

from __future__ import annotations

from pathlib import Path

from rocm_bake_checks.rehearse.run import failure

RUN = ("RUN --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy     "
       "--mount=type=bind,from=wheels,source=/wheels,target=/deps/lmcache     shopt -s nullglob"
       "     && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/lmcache.txt"
       "         -r /tmp/cell-wheels.txt     && rm /tmp/cell-wheels.txt     && pip check")
WARNING = ("ERROR: pip's dependency resolver does not currently take into account all the "
           "packages that are installed. This behaviour is the source of the following "
           "dependency conflicts.")
STEP = [
    "28.39 Installing collected packages: sortedcontainers, lark, cupy, lmcache",
    "28.79   Attempting uninstall: lark",
    "28.81     Found existing installation: lark 1.2.2",
    "29.07       Successfully uninstalled lark-1.2.2",
    "37.97 ",
    f"38.04 {WARNING}",
    "38.04 vllm 0.28.0+rocm723 requires lark==1.2.2, but you have lark 1.3.1 which is "
    "incompatible.",
    "38.04 Successfully installed cupy-14.2.0 lark-1.3.1 lmcache-0.5.3+rocm7.2",
]


def log(check: list[str]) -> str:
    """The plain log of the failed step: its output, buildx's error and its summary."""
    said = [*STEP, *check]
    return "\n".join([
        f"#132 [lmcache-gfx950 runtime 2/4] {RUN}",
        *(f"#132 {line}" for line in said),
        '#132 ERROR: process "/bin/bash -euo pipefail -c shopt -s nullglob ..." did not '
        "complete successfully: exit code: 1",
        "------",
        f" > [lmcache-gfx950 runtime 2/4] {RUN}:",
        *said,
        "------",
        "lmcache.Dockerfile:101",
        "--------------------",
        " 101 | >>> RUN --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \\",
        "--------------------",
        "ERROR: target lmcache-gfx950: failed to solve: process ... exit code: 1"])


def report(text: str) -> str:
    return failure(text, Path("rocm-bake.hcl"),
                       {"lmcache.Dockerfile": ["lmcache-gfx1201", "lmcache-gfx950"]})


def test_a_failed_pip_check_is_reported_by_its_own_line() -> None:
    assert report(log(["41.85 vllm 0.28.0+rocm723 has requirement lark==1.2.2, but you have "
                       "lark 1.3.1."])) == (
        "lmcache-gfx950: dockerfiles/lmcache.Dockerfile:101: vllm 0.28.0+rocm723 has "
        "requirement lark==1.2.2, but you have lark 1.3.1.")


def test_each_of_pip_checks_lines_is_its_own_error() -> None:
    # pip/_internal/commands/check.py: a missing requirement, an unsupported wheel
    for line in ("vllm 0.28.0 requires einops, which is not installed.",
                 "vllm 0.28.0 is not supported on this platform"):
        assert report(log([f"41.85 {line}"])).endswith(f"Dockerfile:101: {line}")


def test_pips_resolver_warning_is_never_the_failure() -> None:
    # a later command of the step failing with output that reads as no error: its last line
    assert report(log(["41.85 some check said no"])).endswith("Dockerfile:101: some check said no")


def test_an_error_ending_in_a_colon_carries_the_lines_under_it() -> None:
    said = ["22.62 ERROR: In --require-hashes mode, all requirements must have their versions "
            "pinned with ==. These do not:",
            "22.62     einops from http://127.0.0.1:38761/files/5405/einops-0.8.2-py3-none-any.whl"
            " (from amd-aiter@ file:///deps/aiter/amd_aiter-0.1.19-cp312-cp312-linux_x86_64.whl"
            "->-r /tmp/cell-wheels.txt (line 3))"]
    assert report(log(said)).endswith(
        "Dockerfile:101: ERROR: In --require-hashes mode, all requirements must have their "
        "versions pinned with ==. These do not: einops from http://127.0.0.1:38761/files/5405/"
        "einops-0.8.2-py3-none-any.whl (from amd-aiter@ file:///deps/aiter/amd_aiter-0.1.19-"
        "cp312-cp312-linux_x86_64.whl->-r /tmp/cell-wheels.txt (line 3))")
