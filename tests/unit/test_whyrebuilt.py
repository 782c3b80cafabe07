"""inv why-rebuilt's comparison of two builds (rocm_bake.builds.whyrebuilt), on records shaped as
`docker buildx history inspect --format json` and `history logs --progress rawjson` of buildx
0.29.1 give them (tests/e2e/test_why_rebuilt.py runs it on the real engine)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rocm_bake.builds import contextfiles
from rocm_bake.builds.whyrebuilt import arg_causes, compare, image_causes, short
from rocm_bake.docker.history import Material, Record, Summary, build_ids
from rocm_bake.docker.progress import Step, parse_rawjson
from rocm_bake.model.bake.target import Target
from rocm_bake.reports import runs

T0 = datetime(2026, 12, 1, 19, 0, tzinfo=UTC)
BUSYBOX = "pkg:docker/rocm-bake/busybox@test?platform=linux%2Famd64"
PINS = {"PYTORCH_COMMIT", "BASE_IMAGE"}


def steps(*cached: bool) -> list[Step]:
    """A FROM (never cached) and one RUN step per flag."""
    out = [Step("sha256:from", "[stage-0 1/4] FROM docker.io/rocm-bake/busybox:test",
                T0, T0)]
    for i, flag in enumerate(cached):
        at = T0 + timedelta(seconds=i + 1)
        out.append(Step(f"sha256:{i}", f"[stage-0 {i + 2}/4] RUN --network=none echo {i}",
                        at, at, cached=flag))
    return out


def record(build_id: str, args: dict[str, str] | None = None, cached: tuple[bool, ...] = (),
           materials: list[Material] | None = None, contexts: dict[str, str] | None = None,
           no_cache: bool = False) -> Record:
    return Record(Summary(f"default/default/{build_id}", "core-gfx950", "Completed",
                          f"2026-12-01T19:00:0{len(build_id) % 10}Z", 0, 0),
                  args or {}, contexts or {},
                  materials or [Material(BUSYBOX, "sha256:" + "a" * 64)], no_cache,
                  steps(*cached))


def test_a_pin_reads_as_the_pin_and_a_knob_as_a_build_arg() -> None:
    old = {"PYTORCH_COMMIT": "6bbd2609a7e1c2f3b4d5e6f708192a3b4c5d6e7f", "MAX_JOBS": "32",
           "BUILDKIT_BUILD_NAME": "core-gfx950"}
    new = {"PYTORCH_COMMIT": "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", "MAX_JOBS": "48",
           "BUILDKIT_BUILD_NAME": "core-gfx950", "EXTRA": "1"}
    assert [c.sentence for c in arg_causes(old, new, PINS)] == [
        "build arg EXTRA added (1)", "build arg MAX_JOBS changed 32 → 48",
        "PYTORCH_COMMIT changed 6bbd260 → 1a2b3c4"]
    assert short("7.10") == "7.10"


def test_a_pin_carried_in_a_json_arg_is_named_once() -> None:
    old = {"PYTORCH_COMMIT": "a" * 40,
           "ROCM_BAKE_PINS": json.dumps({"PYTORCH_COMMIT": "a" * 40, "ROCM_VERSION": "7.2"})}
    new = {"PYTORCH_COMMIT": "b" * 40,
           "ROCM_BAKE_PINS": json.dumps({"PYTORCH_COMMIT": "b" * 40, "ROCM_VERSION": "7.10"})}
    assert [c.sentence for c in arg_causes(old, new, PINS)] == [
        "PYTORCH_COMMIT changed aaaaaaa → bbbbbbb",
        "build arg ROCM_BAKE_PINS.ROCM_VERSION changed 7.2 → 7.10"]


def test_the_image_a_material_names() -> None:
    assert Material(BUSYBOX, "").image == "rocm-bake/busybox:test"
    assert Material("pkg:docker/127.0.0.1%3A5000/wr/b@one?platform=linux%2Famd64",
                    "").image == "127.0.0.1:5000/wr/b:one"


def test_the_base_at_another_digest_and_a_dependency_image_that_changed() -> None:
    dep = "pkg:docker/127.0.0.1%3A5000/fleet/base-gfx950@{}?platform=linux%2Famd64"
    old = record("one", materials=[Material(BUSYBOX, "sha256:" + "a" * 64),
                                   Material(dep.format("run1"), "sha256:" + "c" * 64)],
                 contexts={"base": "docker-image://127.0.0.1:5000/fleet/base-gfx950:run1"})
    new = record("two", materials=[Material(BUSYBOX, "sha256:" + "b" * 64),
                                   Material(dep.format("run2"), "sha256:" + "d" * 64)],
                 contexts={"base": "docker-image://127.0.0.1:5000/fleet/base-gfx950:run2"})
    assert [c.sentence for c in image_causes(old, new)] == [
        "the image of context base changed (127.0.0.1:5000/fleet/base-gfx950:run2: "
        "sha256:cccccccccccc → sha256:dddddddddddd)",
        "the base image digest changed (rocm-bake/busybox:test: sha256:aaaaaaaaaaaa → "
        "sha256:bbbbbbbbbbbb)"]


def test_no_input_changed(tmp_path: Path) -> None:
    hot, cold = record("one", cached=(True, True)), record("two", cached=(False, False))
    explained = compare("core-gfx950", hot, cold, PINS, tmp_path)
    assert explained.first_uncached == "[stage-0 2/4] RUN --network=none echo 0"
    assert [c.sentence for c in explained.causes] == [
        "no input changed: the layer cache was not available (hot → cold)"]
    forced = record("three", cached=(False, False), no_cache=True)
    assert [c.sentence for c in compare("core-gfx950", hot, forced, PINS, tmp_path).causes] \
        == ["no input changed: the build ran with --no-cache"]
    again = compare("core-gfx950", cold, record("four", cached=(True, True)), PINS, tmp_path)
    assert again.first_uncached == "" and again.causes == []
    assert again.lines()[1] == "every step was cached: nothing was rebuilt"


def test_the_files_of_two_builds(tmp_path: Path) -> None:
    cell = tmp_path / "cell"
    (cell / "dockerfiles" / "scripts").mkdir(parents=True)
    script = cell / "dockerfiles" / "scripts" / "with-compiler-cache.sh"
    script.write_text("exec \"$@\"\n")
    (cell / "dockerfiles" / "core.Dockerfile").write_text("FROM scratch\n")
    target = Target("core")
    target.fields.update({"context": "dockerfiles", "dockerfile": "core.Dockerfile",
                          "contexts": {"scripts": "dockerfiles/scripts",
                                       "base": "target:base-gfx950"}})
    records = tmp_path / "records"
    contextfiles.write("one", "core", contextfiles.snapshot(target, cell), records)
    script.write_text("exec \"$@\" # changed\n")
    contextfiles.write("two", "core", contextfiles.snapshot(target, cell), records)
    assert sorted(contextfiles.read("two", records) or {}) == [
        "dockerfiles/core.Dockerfile", "dockerfiles/scripts/with-compiler-cache.sh"]
    explained = compare("core", record("one", cached=(True,)), record("two", cached=(False,)),
                        PINS, records)
    assert [c.sentence for c in explained.causes] == [
        "dockerfiles/scripts/with-compiler-cache.sh changed"]
    few = tmp_path / "few"
    for number in range(3):      # times of their own: no two records written in one tick
        written = contextfiles.write(f"more{number}", "core", {}, few, keep=2)
        os.utime(written, ns=((number + 1) * 10**9, (number + 1) * 10**9))
    assert sorted(p.name for p in few.iterdir()) == ["more1.json", "more2.json"]


def test_without_a_file_record_the_context_the_first_miss_reads(tmp_path: Path) -> None:
    status = {"vertexes": [
        {"digest": "sha256:ctx", "name": "[context scripts] load from client"},
        {"digest": "sha256:copy", "inputs": ["sha256:from", "sha256:ctx"],
         "name": "[stage-0 2/3] COPY --from=scripts . /opt/", "started": "2026-12-01T19:00:01Z"}]}
    new = record("two")
    new.steps = parse_rawjson([json.dumps(status)])
    assert [c.sentence for c in compare("core", record("one"), new, PINS, tmp_path).causes] == [
        "the files of context scripts may have changed (build one has no file record: it was "
        "not built by inv build)"]


def test_the_build_ids_of_a_metadata_file(tmp_path: Path) -> None:
    metadata = tmp_path / "metadata.json"
    metadata.write_text(json.dumps({"core": {"buildx.build.ref": "default/default/bsvib",
                                             "containerimage.digest": "sha256:1"},
                                    "b": {"image.name": "x"}}))
    assert build_ids(metadata) == {"core": "bsvib"}
    assert build_ids(tmp_path / "none.json") == {}


def test_the_fleet_report_links_a_rebuilt_cell_to_its_explanation() -> None:
    attempt = {"node": "n1", "start": 1.0, "end": 2.0, "returncode": 0, "run_steps": 2,
               "cached_steps": 1}
    data = {"run_id": "r", "started": 1.0, "nodes": {"n1": {"endpoint": "tcp://10.0.0.2:2376"}},
            "cells": [{"cell": "torch-gfx950", "attempts": [attempt]},
                      {"cell": "base-gfx950", "attempts": [{**attempt, "run_steps": 0}]}]}
    cells = {c["cell"]: c["attempts"][0] for c in runs.view(data)["cells"]}
    assert cells["torch-gfx950"]["why"] == \
        "DOCKER_HOST=tcp://10.0.0.2:2376 inv why-rebuilt torch-gfx950"
    assert "why" not in cells["base-gfx950"]      # every step cached: nothing to explain
    assert runs.why_command("vllm-gfx950", "node-b") == \
        "DOCKER_CONTEXT=node-b inv why-rebuilt vllm-gfx950"
