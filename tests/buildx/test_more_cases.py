"""More bake files through buildx and the model side by side: user functions, --set forms,
multi-axis matrices, entitlements, and the errors both must raise."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.buildx.oracle import assert_same_error, groups_as_sets, model, oracle
from tests.conftest import Buildx

CASES: dict[str, tuple[str, list[str], dict[str, str]]] = {
    "user-function": (
        'function "tag" {\n  params = [name, ver]\n  result = "r/${name}:${ver}"\n}\n'
        'function "cat" {\n  params = [sep]\n  variadic_params = items\n'
        '  result = join(sep, items)\n}\n'
        'target "t" {\n  tags = [tag("vllm", "1")]\n  args = { C = cat("-", "a", "b") }\n}\n',
        ["--print", "t"], {}),
    "set-forms": (
        'target "a" {\n  args = { X = "1" }\n  tags = ["a:1"]\n}\ntarget "b" {}\n',
        ["--print", "a", "b", "--set", "*.labels.l=v", "--set", "a.tags=a:2", "--set",
         "a.tags=a:3", "--set", "b.args.FROM_ENV", "--set", "a.platform=linux/arm64",
         "--set", "b.no-cache=true", "--set", "a.cache-to=type=inline"],
        {"FROM_ENV": "env-value"}),
    "set-unknown-key": ('target "a" {}\n', ["--print", "a", "--set", "a.nope=1"], {}),
    "set-bad-bool": ('target "a" {}\n', ["--print", "a", "--set", "a.pull=maybe"], {}),
    "matrix-two-axes": (
        'target "c" {\n  matrix = { py = ["3.11", "3.12"], arch = ["gfx950", "gfx1201"] }\n'
        '  name = "c-${arch}-py${replace(py, ".", "")}"\n  args = { A = arch, P = py }\n}\n',
        ["--print", "c"], {}),
    "matrix-name-duplicate": (
        'target "c" {\n  matrix = { a = ["x", "y"] }\n  name = "same"\n}\n', ["--print", "c"], {}),
    "name-without-matrix": ('target "c" {\n  name = "d"\n}\n', ["--print", "c"], {}),
    "matrix-not-a-list": ('target "c" {\n  matrix = { a = "x" }\n  name = "c-${a}"\n}\n',
                          ["--print", "c"], {}),
    "bad-generated-name": (
        'target "c" {\n  matrix = { v = ["1.0"] }\n  name = "c-${v}"\n}\n', ["--print", "c"], {}),
    "network-host-entitlement": (
        'target "base" {\n  network = "host"\n}\ntarget "t" {\n'
        '  contexts = { base = "target:base" }\n}\n', ["--print", "t"], {}),
    "inherits-with-override": (
        'target "_p" {\n  args = { A = "p" }\n  tags = ["p"]\n}\n'
        'target "c" {\n  inherits = ["_p"]\n  args = { B = "c" }\n}\n',
        ["--print", "c", "--set", "_p.args.A=over", "--set", "c.args.B=set"], {}),
    "inherits-missing-parent": ('target "c" {\n  inherits = ["nope"]\n}\n', ["--print", "c"], {}),
    "unknown-target": ('target "c" {}\n', ["--print", "nope"], {}),
    "unknown-attribute": ('target "c" {\n  bogus = undefined_thing\n  args = { A = "1" }\n}\n',
                          ["--print", "c"], {}),
    "unknown-blocks": ('foo "x" {\n}\nvariable "V" {\n  default = 1\n  other {\n  }\n}\n'
                       'target "c" {\n  sub {\n  }\n}\n', ["--print", "c"], {}),
    "attribute-redefined": ('target "c" {\n  context = "."\n  context = "b"\n}\n',
                            ["--print", "c"], {}),
    "extra-label": ('target "c" "d" {\n}\n', ["--print", "c"], {}),
    "variable-cycle": ('A = B\nB = A\ntarget "c" {\n  args = { A = A }\n}\n',
                       ["--print", "c"], {}),
    "typed-number-from-string-default": (
        'variable "N" {\n  type = number\n  default = "5"\n}\n'
        'target "c" {\n  args = { N = N + 1 }\n}\n', ["--print", "c"], {}),
    "typed-bool-bad-default": (
        'variable "B" {\n  type = bool\n  default = "maybe"\n}\ntarget "c" {}\n',
        ["--print", "c"], {}),
    "map-csv-env": (
        'variable "M" {\n  type = map(string)\n  default = {}\n}\n'
        'target "c" {\n  labels = M\n}\n', ["--print", "c"], {"M": "a:1,b:2"}),
    "list-number-env": (
        'variable "L" {\n  type = list(number)\n  default = [1]\n}\n'
        'target "c" {\n  args = { S = jsonencode(L) }\n}\n', ["--print", "c"], {"L": "3,4.5"}),
    "empty-csv-env": (
        'variable "L" {\n  type = list(string)\n  default = ["a"]\n}\ntarget "c" {}\n',
        ["--print", "c"], {"L": ""}),
    "untyped-list-env": ('variable "L" {\n  default = ["a"]\n}\ntarget "c" {}\n',
                         ["--print", "c"], {"L": "b"}),
    "for-map-and-conditional-contexts": (
        'variable "ON" {\n  default = false\n}\ntarget "e" {}\ntarget "x" {}\n'
        'target "c" {\n  contexts = { x = ON ? "target:x" : "target:e", skip = "" }\n'
        '  args = { for k, v in { a = 1, b = 2 } : upper(k) => v * 2 }\n}\n',
        ["--print", "c"], {"ON": "true"}),
    "target-description-and-group-description": (
        'group "g" {\n  description = "a group"\n  targets = ["c"]\n}\n'
        'target "c" {\n  description = "a target"\n}\n', ["--print", "g"], {}),
    "secrets": (
        'target "c" {\n  secret = ["id=tok,env=TOKEN", "type=env,id=b,env=B",'
        ' "id=h,source=/etc/hostname", "id=f,type=file,src=/etc/hosts"]\n}\n',
        ["--print", "c"], {}),
    "secret-file-missing": ('target "c" {\n  secret = ["id=f,src=/nonexistent/f"]\n}\n',
                            ["--print", "c"], {}),
    "secret-id-as-path-missing": ('target "c" {\n  secret = ["id=nofile,type=env"]\n}\n',
                                  ["--print", "c"], {}),
    "ssh-agent-missing": ('target "c" {\n  ssh = ["default"]\n}\n', ["--print", "c"], {}),
    "group-null-targets": ('group "g" {\n  targets = null\n}\ntarget "t" {\n}\n',
                           ["--print", "t", "g"], {}),
    "group-naming-a-null-group": ('group "g" {\n  targets = null\n}\ngroup "h" {\n'
                                  '  targets = ["g", "t"]\n}\ntarget "t" {\n}\n',
                                  ["--print", "h"], {}),
    "contexts-null-value": ('target "t" {\n  contexts = { a = null }\n}\n', ["--print", "t"],
                            {}),
    "ssh-any-id-needs-the-agent": ('target "c" {\n  ssh = ["key"]\n}\n', ["--print", "c"], {}),
    "ssh-key-file-missing": ('target "c" {\n  ssh = ["key=/nonexistent/id"]\n}\n',
                             ["--print", "c"], {}),
    "list-variables-any-and-nested-types": (
        'variable "A" {\n  type = any\n  default = 1\n}\n'
        'variable "L" {\n  type = list(any)\n  default = ["a"]\n}\n'
        'variable "O" {\n  type = object({a = string, b = list(number)})\n'
        '  default = {a = "x", b = [1]}\n}\n'
        'variable "T" {\n  type = tuple([string, number])\n  default = ["a", 1]\n}\n'
        'variable "AL" {\n  type = any\n  default = ["s", 1]\n}\n'
        'variable "M" {\n  type = map(list(string))\n  default = {a = ["x"]}\n}\n'
        'target "c" {}\n', ["--list=type=variables,format=json"], {}),
    "null-list-field": ('target "c" {\n  tags = null\n  platforms = ["linux/amd64"]\n}\n',
                        ["--print", "c"], {}),
}


@pytest.mark.buildx
@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str, buildx: Buildx, tmp_path: Path) -> None:
    text, args, env = CASES[name]
    (tmp_path / "docker-bake.hcl").write_text(text)
    expected = oracle(buildx, args, tmp_path, env)
    got = model(args, tmp_path, env)
    assert got.ok == expected.ok, f"buildx: {expected.error or 'ok'}; model: {got.error or 'ok'}"
    if expected.ok:
        assert groups_as_sets(got.data) == groups_as_sets(expected.data)
    else:
        assert_same_error(f"more-cases/{name}", got, expected)
