"""The expression evaluator on HCL snippets: values, templates, errors at file:line."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rocm_bake.core.errors import HCLError
from rocm_bake.model.hcl.evaluate import Evaluator, Scope
from rocm_bake.model.hcl.functions import FUNCTIONS
from rocm_bake.model.hcl.syntax import parse
from rocm_bake.model.hcl.types import STRING, Type, convert
from rocm_bake.model.hcl.values import Value

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
    ("unknown_var", 'Unknown variable; There is no variable named "unknown_var"'),
    ("nofunc(1)", 'Call to unknown function; There is no function named "nofunc"'),
    ("ARCHS[7]", "out of range"),
    ('M["zz"]', "M has no entry 'zz'"),
    ('"x${M}"', "cannot include a object"),
    ("0 / 0", "can't divide zero by zero"),
    ('"a" + 1', "a number is required"),
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


# -- typed variables are cty lists, sets and maps (checked with buildx 0.29.1) ----------------

TYPED: dict[str, Value] = {
    # variable "G" { type = list(string), default = ["gfx950"] }; "U" the same, untyped
    "G": convert(["gfx950"], Type("list", STRING)),
    "U": ["gfx950"],
    # set(string) with default ["b", "a", "b"]; map(string) with default {a = "1"}
    "S": convert(["b", "a", "b"], Type("set", STRING)),
    "M": convert({"a": "1"}, Type("map", STRING)),
}


def evaluate_typed(expression: str) -> Value:
    tree = parse(f"x = {expression}\n", "t.hcl")
    return Evaluator("t.hcl", FUNCTIONS).eval(tree.body.children[0].expression, Scope(dict(TYPED)))


@pytest.mark.parametrize(("expression", "printed"), [
    # a list is never equal to a tuple, in functions and operators alike
    ('[equal(G, ["gfx950"]), G == ["gfx950"], equal(U, ["gfx950"]), U == ["gfx950"]]',
     "[false,false,true,true]"),
    ('[equal(G, split(",", "gfx950")), G == split(",", "gfx950"), M == {a = "1"}]',
     "[true,true,false]"),
    ('[index(G, 0), element(G, 0), concat(G, ["x", 1]), index(M, "a"), keys(M)]',
     '["gfx950","gfx950",["gfx950","x",1],"1",["a"]]'),
    # a set is distinct and in cty's order, for functions and for expressions
    ('[S, [for s in S : s], setunion(S, ["c"]), length(S), S == ["a", "b"]]',
     '[["a","b"],["a","b"],["a","b","c"],2,false]'),
])
def test_typed_collections_behave_as_in_buildx(expression: str, printed: str) -> None:
    assert evaluate_typed(f"jsonencode({expression})") == printed


def test_a_set_has_no_index() -> None:
    # buildx: "Invalid index; Elements of a set are identified only by their value ..."
    with pytest.raises(HCLError, match="set"):
        evaluate_typed("S[0]")


# -- operators are cty's number functions: 512-bit floats, signed zero (buildx 0.29.1) --------


@pytest.mark.parametrize(("expression", "printed"), [
    ("-0", "-0"),
    ("[1.50, -0.0, 0 - 0, -(0), 2 * -0, 0 * -1, -0 + -0, -0 - 0, -0 / 5, -0 % 5]",
     "[1.5,-0,0,-0,-0,-0,-0,-0,-0,-0]"),
    ("[5 % 0, 7 % -3, -7 % 3, 5.5 % 2]", "[5,1,-1,1.5]"),
    ("1 / 3", "0." + "3" * 154 + "5"),
    ("[0.3 - 0.1, 0.1 + 0.2, 0.1 + 0.2 == 0.3, 2 / 3 * 3]",
     "[0.2" + "0" * 153 + "2,0.3,true,2]"),
    ('["+5" + 1, ".5" * 2, "inf" + 1 < 3, -"3"]', "[6,1,false,-3]"),
    ("1234567890" * 16 + ".5", "1234567890" * 15 + "1234600000"),  # 155 digits kept
    ('format("%s", -0)', '"-0"'),
])
def test_arithmetic_prints_as_buildx(expression: str, printed: str) -> None:
    assert evaluate(f"jsonencode({expression})") == printed


@pytest.mark.parametrize(("expression", "text"), [
    ('"=${1 / 0}"', "=+Inf"), ('"=${-1 / 0}"', "=-Inf"), ('"=${-0}"', "=-0"),
    ('"=${5 % 0}"', "=5"),
])
def test_infinity_and_negative_zero_in_templates(expression: str, text: str) -> None:
    assert evaluate(expression) == text

