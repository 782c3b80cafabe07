"""Rule supported-archs (lint/supportedarchs.py): a cell exists only for archs upstream
supports.  A small repository whose components' upstream arch lists come from a replayed
snapshot (a real upstream file, FlashAttention's setup.py at FA_COMMIT, from
tests/lint/fixtures/upstream) and from a recorded list; a bad case (an arch outside the list
with no SKIP entry: before this rule the bake file silently made a cell of it) and a good one,
and the committed bake file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_bake_checks import lint
from rocm_bake_checks.lint import supportedarchs, upstream

ROOT = Path(__file__).resolve().parents[2]
FA_COMMIT = "0e60e39473e8df549a20fb5353760f7a65b30e2d"
FA_URL = f"https://raw.githubusercontent.com/Dao-AILab/flash-attention/{FA_COMMIT}/setup.py"
FA_SETUP = (Path(__file__).with_name("fixtures") / "upstream" / "raw.githubusercontent.com"
            / "Dao-AILab" / "flash-attention" / FA_COMMIT / "setup.py")
NO_POLICY = Path("no-policy.toml")
CONFIG = """[supported-archs.flash-attn]
url = "https://raw.githubusercontent.com/Dao-AILab/flash-attention/{FA_COMMIT}/setup.py"
name = "allowed_archs"

[supported-archs.mori]
archs = ["gfx942", "gfx950"]
from = "MoRI setup.py _supported_arch_list"
"""


def bake(skip: str) -> str:
    return f"""variable "FA_COMMIT" {{ default = "{FA_COMMIT}" }}
ALL_ARCHS = ["gfx950", "gfx1201"]
SKIP = {{
{skip}}}
CACHE_KEY = {{ flash-attn = "f", mori = "m" }}
group "default" {{
  targets = []
}}
"""


GOOD_SKIP = '  "gfx1201/flash-attn" = "not in allowed_archs"\n  "gfx1201/mori" = "not supported"\n'


def findings(root: Path, skip: str) -> list[str]:
    (root / "docker-bake.hcl").write_text(bake(skip), encoding="utf-8")
    (root / "upstream.toml").write_text(CONFIG, encoding="utf-8")
    snapshot = root / "snapshot.json"
    snapshot.write_text(json.dumps({
        "format": "rocm-bake-drift-snapshot/1", "recorded_at": "2026-11-02T00:00:00Z",
        "note": "test", "answers": {f"GET {FA_URL} [text/plain]": {"value": {
            "status": 200, "content_type": "text/plain; charset=utf-8", "next": "",
            "body": FA_SETUP.read_text(encoding="utf-8")}}}}), encoding="utf-8")
    settings = upstream.Settings(offline=snapshot, config=root / "upstream.toml",
                                 dockerfiles=None)
    found = lint.run(root, [root / "docker-bake.hcl"], ["conformance"], root / NO_POLICY,
                     settings)
    return [str(f) for f in found if f.rule == supportedarchs.RULE]


def test_an_arch_outside_upstreams_list_without_a_skip_entry_is_a_finding(
        tmp_path: Path) -> None:
    found = findings(tmp_path, '  "gfx1201/mori" = "not supported"\n')
    assert found == [
        "docker-bake.hcl:3: supported-archs: flash-attn: gfx1201 is not among the archs "
        "upstream supports (gfx90a, gfx950, gfx942: " + FA_URL + " allowed_archs) and SKIP has "
        "no entry 'gfx1201/flash-attn', so a cell would be built; add \"gfx1201/flash-attn\" "
        "= \"<why>\" to SKIP"]


def test_a_recorded_list_counts_too(tmp_path: Path) -> None:
    found = findings(tmp_path, '  "gfx1201/flash-attn" = "not in allowed_archs"\n')
    assert len(found) == 1 and "mori: gfx1201 is not among" in found[0]
    assert "(gfx942, gfx950: MoRI setup.py _supported_arch_list)" in found[0]


def test_every_unsupported_arch_skipped_is_clean(tmp_path: Path) -> None:
    assert findings(tmp_path, GOOD_SKIP) == []


def test_the_committed_bake_file_skips_every_unsupported_arch() -> None:
    found = lint.run(ROOT, [ROOT / "rocm-bake.hcl"], ["conformance"], NO_POLICY,
                     upstream.Settings())
    assert [f for f in found if f.rule == supportedarchs.RULE] == []


def test_a_name_with_no_arch_literal_is_one_line_error() -> None:
    with pytest.raises(lint.LintError, match="no literal list or dict of gfx archs") as caught:
        supportedarchs.archs_in("x = 1\n", "allowed_archs", "setup.py")
    assert "\n" not in str(caught.value)
