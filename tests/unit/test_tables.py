"""rocm_bake.core.tables: a table fits the width it is given, and prints every value as written."""

from __future__ import annotations

from rocm_bake.core import tables


def test_a_table_that_fits_is_left_as_it_is() -> None:
    assert tables.column_widths([4, 6, 10], 40) == [None, None, None]


def test_only_the_columns_wider_than_their_share_are_wrapped() -> None:
    # budget 50 - 2*2 = 46: the 5-wide column keeps its width, the two long ones share 41
    assert tables.column_widths([5, 60, 80], 50) == [None, 20, 21]


def test_a_rendered_table_is_no_wider_than_asked() -> None:
    long = "upstream builds no PyTorch for gfx1250 on this ROCm release; " * 4
    text = tables.render([["torch", "gfx1250", long], ["base", "gfx950", "-"]],
                         ["component", "arch", "why"], width=72)
    assert max(len(line) for line in text.splitlines()) <= 72
    assert " ".join(text.split()).count("upstream builds no PyTorch") == 4


def test_values_print_as_written() -> None:
    text = tables.render([["ROCM_VERSION", "7.10"], ["X", "1.0"]], ["name", "value"], width=80)
    assert "7.10" in text and "1.0" in text


def test_credentials_are_masked_before_a_cell_is_wrapped() -> None:
    """A wrapped cell splits a URL over lines, where a mask that reads lines cannot see it."""
    fix = "start the registry at http://user:CANARYPASS@127.0.0.1:9/ " * 2
    text = tables.render([["registry", "missing", fix]], ["item", "state", "how to fix"],
                         width=40)
    assert "CANARYPASS" not in text and "user" not in text and "****" in text
