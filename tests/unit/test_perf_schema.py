"""The perf history's record format (rocm_bake.perf.schema): what a line must hold, errors
naming file:line, and durations as people write them."""

from __future__ import annotations

import json
import re

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.perf import schema


def _record(**overrides: object) -> str:
    record = {"time": "2026-11-01T00:00:00+00:00", "condition": "warm",
              "target": "torch-gfx950", "seconds": 12.5, "arch": "gfx950",
              "workload": {"bake_file": "rocm-bake.hcl"}, **overrides}
    return json.dumps({k: v for k, v in record.items() if v is not None})


def test_perf_record_is_parsed() -> None:
    r = schema.parse(_record(cache_hit_rate=0.5, commit="abc"), "h:1")
    assert (r.condition, r.target, r.seconds, r.cache_hit_rate, r.commit) == (
        "warm", "torch-gfx950", 12.5, 0.5, "abc")
    assert (r.arch, r.workload) == ("gfx950", schema.Workload("rocm-bake.hcl"))


def test_a_record_names_the_units_its_workload_compiles() -> None:
    units = {"ggml": {"HIP": 39, "C/C++": 7}, "probe": {"HIP": 1}}
    r = schema.parse(_record(workload={"bake_file": "b.hcl", "units": units}), "h:1")
    assert r.workload == schema.Workload("b.hcl", units)
    assert r.workload.to_json() == {"bake_file": "b.hcl", "units": units}


@pytest.mark.parametrize(("line", "message"), [
    ("{", "h:3: not JSON"),
    ("[]", "h:3: a record must be a JSON object"),
    (_record(condition="tepid"), "h:3: condition must be one of frozen, hot, warm, cold"),
    (_record(seconds=-1), "h:3: seconds must be a non-negative number"),
    (_record(seconds=True), "h:3: seconds must be a non-negative number"),
    (_record(time="yesterday"), "h:3: time must be ISO 8601"),
    (_record(target=""), "h:3: target must be a non-empty string"),
    (_record(cache_hit_rate=1.5), "h:3: cache_hit_rate must be between 0 and 1"),
    (_record(arch=None), "h:3: arch must be a non-empty string"),
    (_record(workload=None), "h:3: workload must be an object naming its bake_file"),
    (_record(workload={}), "h:3: workload: bake_file must be a non-empty string"),
    (_record(workload={"bake_file": "b", "units": {"s": {"HIP": -1}}}),
     "h:3: workload.units must map each compile step to {language: count}"),
])
def test_bad_perf_records_name_file_and_line(line: str, message: str) -> None:
    with pytest.raises(RocmBakeError, match=re.escape(message)):
        schema.parse(line, "h:3")


@pytest.mark.parametrize(("seconds", "text"), [
    (0.42, "0.4 s"), (42, "42 s"), (842, "14m 02s"), (3 * 3600 + 125, "3h 02m")])
def test_durations_read_like_a_person_writes_them(seconds: float, text: str) -> None:
    assert schema.duration(seconds) == text
