"""Issue 25: the drift output is exact to the character, whatever the output path."""

from __future__ import annotations

import json
import re

import pytest

from tests.drift.conftest import Checker, pin


@pytest.mark.parametrize("output", ["table", "markdown", "json"])
def test_number_like_pins_print_as_spelled(checker: Checker, output: str) -> None:
    """A column holding only number-like text (``--only``) is still text: 7.10 stays 7.10."""
    checker.world.web.pypi("exact-a", {"7.9": [], "7.10": []})
    checker.world.web.pypi("exact-b", {"0.9": [], "1.0": []})
    text = pin("ALPHA_VERSION", "7.10", pypi="exact-a") + pin("BETA_VERSION", "1.0",
                                                                pypi="exact-b")
    result = checker.run(text, only=["ALPHA_VERSION", "BETA_VERSION"], output=output)
    assert result.code == 0, result
    if output == "json":
        pins = {p["name"]: p for p in json.loads(result.out)["pins"]}
        assert (pins["ALPHA_VERSION"]["value"], pins["ALPHA_VERSION"]["newest"]) == ("7.10",
                                                                                 "7.10")
        assert (pins["BETA_VERSION"]["value"], pins["BETA_VERSION"]["newest"]) == ("1.0", "1.0")
        return
    for name, value in (("ALPHA_VERSION", "7.10"), ("BETA_VERSION", "1.0")):
        row = rf"ok\s*\|?\s*{name}\s*\|?\s*{re.escape(value)}\s*\|?\s*up to date\s*\|?\s*" \
              rf"{re.escape(value)}\s*\|?\s*newest release is {re.escape(value)}\s"
        assert re.search(row, result.out), result.out
