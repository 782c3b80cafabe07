"""Tests of the bake function library against what the real buildx printed.

The cases are data, tests/fixtures/bake/functions.json: a function's name, a real HCL
expression and what ``docker buildx bake --print`` gave for ``target "t" { args = { R =
jsonencode(EXPRESSION) } }`` (``R`` verbatim, or the error message after the file position),
recorded by ``python -m tests.buildx.record_functions``; tests/buildx/test_recorded_functions.py
checks the recording against the installed buildx. The model evaluates the same file here.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
from decimal import Decimal
from pathlib import Path

import pytest

from rocm_bake.core.errors import RocmBakeError
from rocm_bake.model import bakefile
from rocm_bake.model.hcl.functions import (
    FUNCTIONS,
    FunctionError,
    ListValue,
    MapValue,
    SetValue,
    cty_equal,
    type_of,
)
from rocm_bake.model.hcl.values import Value, loads_json
from tests.buildx import record_functions


def n(text: str) -> Decimal:
    return Decimal(text)


def L(*items: Value) -> ListValue:  # noqa: N802 - reads like the cty type it builds
    return ListValue(items)


def S(*items: Value) -> SetValue:  # noqa: N802
    return SetValue(items)


def M(items: dict[str, Value]) -> MapValue:  # noqa: N802
    return MapValue(items)


def call(name: str, *args: Value) -> Value:
    return FUNCTIONS[name](list(args))


def same(got: Value, want: Value) -> bool:
    """Equal content with equal kinds (True is not 1), and the sign of zero kept."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, Decimal) and isinstance(got, Decimal):
        return got == want and (got != 0 or got.is_signed() == want.is_signed())
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)
    return type(got) is type(want) and got == want


CASES: list[dict[str, str]] = record_functions.load()["cases"]

#: Cases where the model and the recorded buildx disagree, each with what differs. A listed case
#: that agrees again fails: take it off the list.
DISAGREE: dict[str, str] = {}


def model_outcome(expression: str, work: Path) -> dict[str, str]:
    """The model's ``{"value": R}`` or ``{"error": MESSAGE}`` for the file the recorder gave
    buildx (the message without the model's ``FILE:LINE:COL: `` position)."""
    path = work / "docker-bake.hcl"
    path.write_text(record_functions.bake_file([expression]), encoding="utf-8")
    try:
        plan = bakefile.load([path], {}).plan(["t"], [], False).to_json()
    except RocmBakeError as exc:
        return {"error": _MODEL_POSITION.sub("", str(exc), count=1)}
    return {"value": plan["target"]["t"]["args"]["R0"]}


_MODEL_POSITION = re.compile(r"^[^\s:]+\.hcl:\d+(?::\d+)?: ")


def agrees(got: dict[str, str], recorded: dict[str, str]) -> bool:
    """Both printed values equal as values (``same``: kinds kept, -0 is not 0), or both failed
    with buildx's message verbatim."""
    if "value" in recorded and "value" in got:
        return same(loads_json(got["value"]), loads_json(recorded["value"]))
    return "error" in recorded and got.get("error") == recorded["error"]


def test_cases_are_distinct_expressions_of_their_function() -> None:
    expressions = [case["expression"] for case in CASES]
    assert len(set(expressions)) == len(expressions), "a case is listed twice"
    for case in CASES:
        assert case["function"] in FUNCTIONS, case
        assert case["expression"].startswith(f"{case['function']}("), case
        assert ("value" in case) != ("error" in case), f"record again: {case}"


@pytest.mark.parametrize("case", CASES, ids=[case["expression"] for case in CASES])
def test_model_matches_the_recorded_buildx(case: dict[str, str], tmp_path: Path) -> None:
    got = model_outcome(case["expression"], tmp_path)
    recorded = {k: v for k, v in case.items() if k in ("value", "error")}
    if case["expression"] in DISAGREE:
        assert not agrees(got, recorded), "the model agrees now: take the case off DISAGREE"
        return
    assert agrees(got, recorded), f"{case['expression']}: model {got}, buildx {recorded}"


# -- the function table ------------------------------------------------------------------------

BUILDX_FUNCTIONS = {
    "absolute", "add", "and", "base64decode", "base64encode", "basename", "bcrypt", "byteslen",
    "bytesslice", "can", "ceil", "chomp", "chunklist", "cidrhost", "cidrnetmask", "cidrsubnet",
    "cidrsubnets", "coalesce", "coalescelist", "compact", "concat", "contains", "convert",
    "csvdecode", "dirname", "distinct", "divide", "element", "equal", "flatten", "floor",
    "format", "formatdate", "formatlist", "greaterthan", "greaterthanorequalto", "hasindex",
    "homedir", "indent", "index", "indexof", "int", "join", "jsondecode", "jsonencode", "keys",
    "length", "lessthan", "lessthanorequalto", "log", "lookup", "lower", "max", "md5", "merge",
    "min", "modulo", "multiply", "negate", "not", "notequal", "or", "parseint", "pow", "range",
    "regex_replace", "regex", "regexall", "replace", "reverse", "reverselist", "rsadecrypt",
    "sanitize", "sethaselement", "setintersection", "setproduct", "setsubtract",
    "setsymmetricdifference", "setunion", "sha1", "sha256", "sha512", "signum", "slice", "sort",
    "split", "strlen", "substr", "subtract", "timeadd", "timestamp", "title", "trim",
    "trimprefix", "trimspace", "trimsuffix", "try", "upper", "urlencode", "uuidv4", "uuidv5",
    "values", "zipmap",
}  # fmt: skip
# can/try/convert take unevaluated expressions (the evaluator's); bcrypt and rsadecrypt need
# crypto libraries: none of them is in this table.
LEFT_OUT = {"can", "try", "convert", "bcrypt", "rsadecrypt"}


def test_table_is_buildx_stdlib() -> None:
    assert set(FUNCTIONS) == BUILDX_FUNCTIONS - LEFT_OUT


@pytest.mark.parametrize(
    "name", ["tostring", "tonumber", "tolist", "abs", "alltrue", "semvercmp", "uuid", "sum"]
)
def test_terraform_only_functions_are_absent(name: str) -> None:
    # buildx answers "Call to unknown function" for these; so must the evaluator.
    assert name not in FUNCTIONS


# -- arity ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        (
            "upper",
            [],
            'upper: Not enough function arguments; Function "upper" expects 1 argument(s). '
            'Missing value for "str".',
        ),
        (
            "lookup",
            [{"a": n("1")}, "a"],
            'lookup: Not enough function arguments; Function "lookup" expects 3 argument(s). '
            'Missing value for "default".',
        ),
        (
            "join",
            [],
            'join: Not enough function arguments; Function "join" expects at least 1 '
            'argument(s). Missing value for "separator".',
        ),
        (
            "compact",
            [L("a"), n("1")],
            'compact: Too many function arguments; Function "compact" expects only 1 argument(s).',
        ),
        (
            "timestamp",
            [n("1")],
            'timestamp: Too many function arguments; Function "timestamp" expects only 0 '
            "argument(s).",
        ),
    ],
)
def test_arity(name: str, args: list[Value], message: str) -> None:
    with pytest.raises(FunctionError) as caught:
        FUNCTIONS[name](args)
    assert str(caught.value) == message


# -- cty's types: lists, sets and maps are not tuples and objects ---------------------------


def test_split_returns_a_list_and_lists_differ_from_tuples() -> None:
    parts = call("split", ",", "a")
    assert isinstance(parts, ListValue)
    assert call("equal", parts, ["a"]) is False  # buildx: false
    assert call("equal", parts, call("split", ",", "a")) is True


def test_concat_of_lists_unifies_their_element_types() -> None:
    # buildx: concat(split(",", "a"), range(2)) is ["a","0","1"]; with a tuple, ["a",1]
    assert call("concat", call("split", ",", "a"), call("range", n("2"))) == ["a", "0", "1"]
    mixed = call("concat", call("split", ",", "a"), [n("1")])
    assert same(mixed, ["a", n("1")])


def test_sets_sort_and_reject_indexing() -> None:
    union = call("setunion", ["b", "a"], ["c"])
    assert isinstance(union, SetValue)
    assert union == ["a", "b", "c"]
    with pytest.raises(FunctionError, match="cannot read elements from set of string"):
        call("element", union, n("0"))


def test_maps_from_zipmap_index_but_objects_do_not() -> None:
    mapping = call("zipmap", ["a"], call("split", ",", "x"))
    assert isinstance(mapping, MapValue)
    assert call("index", mapping, "a") == "x"
    with pytest.raises(FunctionError, match="collection must be a list, a map or a tuple"):
        call("index", {"a": "x"}, "a")


def test_type_of_and_equality() -> None:
    assert type_of(L("a")).friendly_name() == "list of string"
    assert cty_equal([None], [None])
    assert not cty_equal(n("1"), "1")
    assert not cty_equal(True, n("1"))


# -- numbers are cty's 512-bit floats ----------------------------------------------------------


def test_arithmetic_rounds_like_big_float() -> None:
    third = call("divide", n("1"), n("3"))
    assert isinstance(third, Decimal)
    assert str(third) == "0." + "3" * 154 + "5"  # buildx prints 155 digits
    assert str(call("subtract", n("0.3"), n("0.1"))) == "0.2" + "0" * 153 + "2"
    assert call("add", n("0.1"), n("0.2")) == n("0.3")


def test_signed_zero_is_kept() -> None:
    # buildx prints -0 for these; printing it is the value model's business
    for result in (
        call("negate", n("0")),
        call("multiply", n("-1"), n("0")),
        call("log", n("2"), n("0")),
    ):
        assert isinstance(result, Decimal)
        assert result == 0
        assert result.is_signed()


def test_division_by_zero_is_infinity_until_encoded() -> None:
    infinite = call("divide", n("1"), n("0"))
    assert isinstance(infinite, Decimal)
    assert infinite.is_infinite()
    with pytest.raises(FunctionError, match="cannot serialize infinity as JSON"):
        call("jsonencode", infinite)


# -- non-deterministic functions ---------------------------------------------------------------


def test_uuidv4_and_timestamp_shapes() -> None:
    uuid = call("uuidv4")
    assert isinstance(uuid, str)
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", uuid
    )
    stamp = call("timestamp")
    assert isinstance(stamp, str)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)


# -- homedir reads the environment, as buildx does ------------------------------------------


@pytest.mark.parametrize("home", ["/x", "/x/", "x"])
def test_homedir_is_home_verbatim(home: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # buildx under env -i HOME=/x prints /x (and /x/, x: no cleaning)
    monkeypatch.setenv("HOME", home)
    assert call("homedir") == home


@pytest.mark.parametrize("home", [None, ""])
def test_homedir_without_home_is_the_users_passwd_entry(
    home: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # buildx with HOME unset or empty prints the passwd home (/root as root, /nonexistent for
    # nobody)
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    assert call("homedir") == pwd.getpwuid(os.getuid()).pw_dir


@pytest.mark.parametrize(("config", "home"), [("/tmp/a/b/c", "/tmp/a/b"), (None, ".")])
def test_homedir_without_home_or_passwd_entry(
    config: str | None, home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # buildx run as uid 12345 (no passwd entry), HOME unset: DOCKER_CONFIG=/tmp/a/b/c gives
    # /tmp/a/b and no DOCKER_CONFIG gives "."
    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    if config is None:
        monkeypatch.delenv("DOCKER_CONFIG", raising=False)
    else:
        monkeypatch.setenv("DOCKER_CONFIG", config)
    assert call("homedir") == home


# -- results are NFC, as every cty string is -------------------------------------------------


def test_string_results_are_normalized() -> None:
    assert call("upper", "e\u0301") == "\u00c9"
    assert call("format", "%s", "e\u0301") == "\u00e9"


# -- robustness: only FunctionError ever escapes ---------------------------------------------

ODD_ARGUMENTS: list[Value] = [
    None,
    True,
    "",
    "x",
    "%",
    "(",
    n("-1"),
    n("0"),
    n("1.5"),
    n("1e400"),
    n("Infinity"),
    [],
    [None],
    ["a", n("1")],
    [[n("1")], {"a": True}],
    {},
    {"a": [n("1")]},
    L("a", None),
    S(n("1")),
    M({"a": "b"}),
]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_odd_arguments_raise_only_function_error(name: str) -> None:
    function = FUNCTIONS[name]
    for count in range(4):
        for first in ODD_ARGUMENTS:
            for other in ODD_ARGUMENTS if count > 1 else [None]:
                args = [first, other, first][:count]
                with contextlib.suppress(FunctionError):
                    function(args)


def test_jsonencode_prints_numbers_as_buildx() -> None:
    # buildx: jsonencode({b=[1.50, -0.0]}) is {"b":[1.5,-0]}; 1/3 has 155 digits
    third = call("divide", n("1"), n("3"))
    assert call("jsonencode", [n("-0"), third]) == "[-0,0." + "3" * 154 + "5]"
    assert call("jsonencode", {"b": [n("1.50"), n("-0.0")]}) == '{"b":[1.5,-0]}'
