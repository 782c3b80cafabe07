"""The expression evaluator on HCL snippets: values, templates, errors at file:line."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rocm_bake.errors import HCLError
from rocm_bake.hcl.evaluate import Evaluator, Scope
from rocm_bake.hcl.functions import FUNCTIONS
from rocm_bake.hcl.syntax import parse
from rocm_bake.hcl.values import Value

SCOPE: dict[str, Value] = {
    "ARCHS": ["gfx90a", "gfx942"], "PY": "3.12", "M": {"b": "2", "a": "1", "c": ""},
    "N": Decimal(16), "T": True,
}


def evaluate(expression: str) -> Value:
    tree = parse(f"x = {expression}\n", "t.hcl")
    return Evaluator("t.hcl", FUNCTIONS).eval(tree.body.children[0].expression, Scope(dict(SCOPE)))


@pytest.mark.parametrize(("expression", "expected"), [
    ('"%{ if T }push%{ else }local%{ endif }"', "push"),
    ('"%{ for a in ARCHS }${a};%{ endfor }"', "gfx90a;gfx942;"),
    ('"x %{~ if true ~} y %{~ endif ~} z"', "xyz"),
    ('"vllm-py${replace(PY, ".", "")}"', "vllm-py312"),
    ('[for k, v in M : "${k}=${v}" if v != ""]', ["a=1", "b=2"]),
    ("{for k, v in M : v => k}", {"1": "a", "2": "b", "": "c"}),
    ("{for a in ARCHS : substr(a, 0, 3) => a...}", {"gfx": ["gfx90a", "gfx942"]}),
    ("1 + 2 * 3 - 4 / 8", Decimal("6.5")),
    ("N % 5", Decimal(1)),
    ('!true || (1 < 2 && "a" == "a")', True),
    ('1 == "1"', False),
    ("ARCHS[1]", "gfx942"),
    ("ARCHS.0", "gfx90a"),
    ('"${ARCHS}"', ["gfx90a", "gfx942"]),
    ('length(ARCHS) > 1 ? "many" : "one"', "many"),
    ('"a\\"b\\n\\u00e9 $${x} %%{y}"', 'a"b\né ${x} %{y}'),
    ('[{a = 1}, {a = 2}][*].a', [Decimal(1), Decimal(2)]),
    ("can(ARCHS[5])", False),
    ("try(ARCHS[5], \"fallback\")", "fallback"),
    ("join(\",\", [\"a\", 1, true])", "a,1,true"),
])
def test_values(expression: str, expected: Value) -> None:
    assert evaluate(expression) == expected


def test_heredoc_with_directives_and_strip_markers() -> None:
    text = 'x = <<EOT\nFROM scratch\n%{ for a in ARCHS ~}\nLABEL arch_${a}=1\n%{ endfor ~}\nEOT\n'
    tree = parse(text, "t.hcl")
    value = Evaluator("t.hcl", FUNCTIONS).eval(tree.body.children[0].expression,
                                              Scope(dict(SCOPE)))
    assert value == "FROM scratch\nLABEL arch_gfx90a=1\nLABEL arch_gfx942=1\n"


def test_indented_heredoc_keeps_backslashes_literal() -> None:
    text = 'x = <<-EOT\n    a ${PY}\n      "q" \\n\n    EOT\n'
    tree = parse(text, "t.hcl")
    value = Evaluator("t.hcl", FUNCTIONS).eval(tree.body.children[0].expression,
                                              Scope(dict(SCOPE)))
    assert value == 'a 3.12\n  "q" \\n\n'


@pytest.mark.parametrize(("expression", "message"), [
    ("unknown_var", "unknown variable 'unknown_var'"),
    ("nofunc(1)", "unknown function 'nofunc'"),
    ("ARCHS[7]", "out of range"),
    ('M["zz"]', "does not exist"),
    ('"x${M}"', "cannot include a object"),
    ("1 / 0", "by zero"),
    ('"a" + 1', "not a number"),
])
def test_errors_name_file_and_line(expression: str, message: str) -> None:
    with pytest.raises(HCLError) as caught:
        evaluate(expression)
    assert str(caught.value).startswith("t.hcl:1:")
    assert message in str(caught.value)


@pytest.mark.parametrize("text", ['target "a" {\n  args = { A = }\n}\n', 'x = "unterminated\n',
                                  "x = [1, 2\n"])
def test_syntax_errors_have_a_position(text: str) -> None:
    with pytest.raises(HCLError) as caught:
        parse(text, "bad.hcl")
    assert str(caught.value).startswith("bad.hcl:")
    assert caught.value.line is not None
