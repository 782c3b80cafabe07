"""The seven families of issue 11, each through buildx and the model side by side: --set forms
(env args, ``+=``, CSV values), ``target.NAME.FIELD`` references, ``any``-typed variables from
the environment, ``--print`` escaping, and SOURCE_DATE_EPOCH."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.buildx.oracle import assert_same_error, groups_as_sets, model, oracle
from tests.conftest import Buildx

Case = tuple[str, list[str], dict[str, str]]

BASE = ('target "a" {\n  args = { X = "1" }\n  tags = ["a:1"]\n  platforms = ["linux/amd64"]\n'
        '  cache-from = ["type=registry,ref=c/a"]\n  output = ["type=docker"]\n'
        '  no-cache-filter = ["x"]\n  ulimits = ["nofile=1024:1024"]\n  network = "none"\n'
        '  annotations = ["k=v"]\n}\ntarget "b" {\n  inherits = ["a"]\n}\n')


def _set(*items: str) -> list[str]:
    return [arg for item in items for arg in ("--set", item)]


SET_ENV_ARGS: dict[str, Case] = {
    "args-from-env": (BASE, ["--print", "a", *_set("a.args.FOO")], {"FOO": "env"}),
    "args-from-env-missing": (BASE, ["--print", "a", *_set("a.args.FOO")], {}),
    "args-from-env-empty": (BASE, ["--print", "a", *_set("a.args.FOO")], {"FOO": ""}),
    "args-from-env-plus": (BASE, ["--print", "a", *_set("a.args.FOO+")], {"FOO": "p"}),
    "args-from-env-replaces": (BASE, ["--print", "a", *_set("a.args.X")], {"X": "env"}),
    "args-from-env-glob": (BASE, ["--print", "a", "b", *_set("*.args.FOO")], {"FOO": "g"}),
    "labels-without-value": (BASE, ["--print", "a", *_set("a.labels.FOO")], {"FOO": "x"}),
    "args-without-name": (BASE, ["--print", "a", *_set("a.args=1")], {}),
}

SET_APPEND: dict[str, Case] = {
    "platform-append": (BASE, ["--print", "a", *_set("a.platform+=linux/arm64")], {}),
    "platform-append-twice": (BASE, ["--print", "a", *_set("a.platform+=linux/arm64",
                                                           "a.platform+=linux/riscv64")], {}),
    "platform-set-then-append": (BASE, ["--print", "a", *_set("a.platform=linux/arm64",
                                                              "a.platform+=linux/ppc64le")], {}),
    "platform-append-then-set": (BASE, ["--print", "a", *_set("a.platform+=linux/arm64",
                                                              "a.platform=linux/ppc64le")], {}),
    "tags-append": (BASE, ["--print", "a", "b", *_set("*.tags+=r/x:2")], {}),
    "tags-append-duplicate": (BASE, ["--print", "a", *_set("a.tags+=a:1")], {}),
    "cache-from-append": (BASE, ["--print", "a", *_set("a.cache-from+=type=local,src=/c")], {}),
    "cache-to-append": (BASE, ["--print", "a", *_set("a.cache-to+=type=inline")], {}),
    "output-append": (BASE, ["--print", "a", *_set("a.output+=type=image,name=r/a")], {}),
    "secrets-append": (BASE, ["--print", "a", *_set("a.secrets+=id=t,env=T")], {}),
    "annotations-always-append": (BASE, ["--print", "a", *_set("a.annotations=k2=v")], {}),
    "entitlements-append": (BASE, ["--print", "a", *_set("a.entitlements+=network.host")], {}),
    "attest-always-merges": (BASE, ["--print", "a", *_set("a.attest=type=sbom")], {}),
    "args-plus-sets": (BASE, ["--print", "a", *_set("a.args.X+=2")], {}),
    "context-plus-sets": (BASE, ["--print", "a", *_set("a.context+=sub")], {}),
    "no-cache-filter-not-a-list-key": (BASE, ["--print", "a", *_set("a.no-cache-filter=y")],
                                       {}),
    "ulimits-not-a-list-key": (BASE, ["--print", "a", *_set("a.ulimits+=core=0")], {}),
    "network-is-a-list-key": (BASE, ["--print", "a", *_set("a.network=host")], {}),
    "platform-plus-without-value": (BASE, ["--print", "a", *_set("a.platform+")], {}),
    "unknown-key-plus": (BASE, ["--print", "a", *_set("a.nope+=1")], {}),
}

SET_CSV: dict[str, Case] = {
    "cache-from-refs": (BASE, ["--print", "a", *_set("a.cache-from=u/app:c,u/b:c")], {}),
    "cache-from-ref-with-slashes": (BASE, ["--print", "a", *_set("a.cache-from=r.io/a/b:c")],
                                    {}),
    "cache-from-empty": (BASE, ["--print", "a", *_set("a.cache-from=")], {}),
    "cache-from-quoted": (BASE, ["--print", "a",
                                 *_set('a.cache-from="type=registry,ref=a/b"')], {}),
    "cache-to-mixed": (BASE, ["--print", "a", *_set("a.cache-to=type=local,dest=/a/b,mode=max")],
                       {}),
    "cache-from-bad-field": (BASE, ["--print", "a", *_set("a.cache-from=type=local,x")], {}),
    "cache-from-no-type": (BASE, ["--print", "a", *_set("a.cache-from=ref=a/b")], {}),
    "output-empty": (BASE, ["--print", "a", *_set("a.output=")], {}),
    "output-path": (BASE, ["--print", "a", *_set("a.output=./out/dir")], {}),
    "output-dash": (BASE, ["--print", "a", *_set("a.output=-")], {}),
    "output-two-paths": (BASE, ["--print", "a", *_set("a.output=/a/b,/c")], {}),
    "output-upper-keys": (BASE, ["--print", "a", *_set("a.output=TYPE=local,Dest=/o")], {}),
    "secret-env-type": (BASE, ["--print", "a", *_set("a.secrets=type=env,id=t,src=TOK")], {}),
    "secret-bad-key": (BASE, ["--print", "a", *_set("a.secrets=id=t,foo=bar")], {}),
    "hcl-cache-refs-in-one-string": (
        'target "a" {\n  cache-from = ["a/b,c/d", "", {type = "local", src = "/x"}]\n'
        '  cache-to = ["e/f"]\n  output = ["", "-"]\n  tags = ["", "t", "t"]\n}\n',
        ["--print", "a"], {}),
    "load-false-keeps-docker": (BASE, ["--print", "a", *_set("a.load=false")], {}),
    "load-true-with-docker": (BASE, ["--print", "a", *_set("a.load=true")], {}),
    "load-true-with-image": (
        'target "a" {\n  output = ["type=image,name=x"]\n}\n',
        ["--print", "a", *_set("a.load=true")], {}),
    "push-false-drops-registry": (
        'target "a" {\n  output = ["type=registry,name=x", "type=image,name=y", "type=local,'
        'dest=o"]\n}\n', ["--print", "a", *_set("a.push=false")], {}),
    "platform-unknown": (BASE, ["--print", "a", *_set("a.platform=x")], {}),
    "platform-unknown-in-a-list": (BASE, ["--print", "a",
                                          *_set("a.platform=linux/amd64,x")], {}),
    "platform-forms-accepted": (BASE, ["--print", "a", *_set("a.platform=amd64,macos,i386",
                                                             "a.platform+=LOCAL",
                                                             "a.platform+=linux(1.0)/arm64")],
                                {}),
    "platform-too-many-parts": (BASE, ["--print", "a", *_set("a.platform=linux/arm/v7/x")], {}),
    "platform-wildcard": (BASE, ["--print", "a", *_set("a.platform=linux/*")], {}),
    "platform-bad-component": (BASE, ["--print", "a", *_set("a.platform=linux/a b")], {}),
    "platform-bad-os": ('target "a" {\n  platforms = ["li nux/amd64"]\n}\n', ["--print", "a"],
                        {}),
    "platform-empty-in-a-list": (BASE, ["--print", "a", *_set("a.platform=,")], {}),
    "glob-targets-requested": (BASE, ["--print", "[ab]"], {}),
    "glob-bad-pattern": (BASE, ["--print", "a", *_set("[.args.X=1")], {}),
}

TARGET_REFS: dict[str, Case] = {
    "field-references": (
        'target "base" {\n  args = { A = "1" }\n  tags = ["r/base:1"]\n'
        '  dockerfile = "base.Dockerfile"\n}\ntarget "c" {\n'
        '  args = { B = target.base.args.A, D = target.base.dockerfile }\n'
        '  tags = [for t in target.base.tags : "${t}-c"]\n}\n', ["--print", "c"], {}),
    "reference-unset-field": (
        'target "base" {\n}\ntarget "c" {\n  args = { B = target.base.context }\n}\n',
        ["--print", "c"], {}),
    "reference-cycle": (
        'target "a" {\n  dockerfile = target.b.dockerfile\n}\n'
        'target "b" {\n  dockerfile = target.a.dockerfile\n}\n', ["--print", "a"], {}),
    "reference-same-target": (
        'target "a" {\n  dockerfile = "x"\n  args = { D = target.a.dockerfile }\n}\n',
        ["--print", "a"], {}),
    "reference-missing-target": (
        'target "a" {\n  args = { D = target.nope.dockerfile }\n}\n', ["--print", "a"], {}),
    "reference-in-variable": (
        'variable "V" {\n  default = target.a.tags[0]\n}\ntarget "a" {\n  tags = ["t:1"]\n}\n'
        'target "b" {\n  args = { V = V }\n}\n', ["--print", "b"], {}),
    "reference-not-inherited": (
        'target "p" {\n  args = { A = "p" }\n}\ntarget "a" {\n  inherits = ["p"]\n'
        '  args = { B = "b" }\n}\ntarget "c" {\n  args = target.a.args\n}\n',
        ["--print", "c"], {}),
    "reference-bare-block-type": ('target "a" {\n  args = { A = jsonencode(target) }\n}\n',
                                  ["--print", "a"], {}),
    "reference-matrix-name": (
        'target "m" {\n  matrix = { v = ["1", "2"] }\n  name = "m-${v}"\n  args = { V = v }\n}\n'
        'target "c" {\n  args = { V = target.m-2.args.V }\n}\n', ["--print", "c"], {}),
    "reference-group": (
        'group "g" {\n  targets = ["a"]\n}\ntarget "a" {\n  tags = group.g.targets\n}\n',
        ["--print", "a"], {}),
}

ANY_FROM_ENV: dict[str, Case] = {
    "any-with-default-from-env": (
        'variable "V" {\n  type = any\n  default = 1\n}\ntarget "c" {\n  args = { V = V }\n}\n',
        ["--print", "c"], {"V": "2"}),
    "any-without-default-from-env": (
        'variable "W" {\n  type = any\n}\ntarget "c" {\n  args = { W = W }\n}\n',
        ["--print", "c"], {"W": "x"}),
    "any-listing-from-env": (
        'variable "V" {\n  type = any\n  default = "a"\n}\ntarget "c" {}\n',
        ["--list=type=variables,format=json"], {"V": "b"}),
    "any-from-typed-json": (
        'variable "V" {\n  type = any\n  default = 1\n}\ntarget "c" {\n'
        '  args = { V = jsonencode(V) }\n}\n', ["--print", "c"],
        {"V_JSON": '{"value": ["a", 1], "type": ["tuple", ["string", "number"]]}'}),
    "any-from-plain-json": (
        'variable "V" {\n  type = any\n  default = 1\n}\ntarget "c" {\n'
        '  args = { V = jsonencode(V) }\n}\n', ["--print", "c"], {"V_JSON": '["a"]'}),
    "list-any-from-env": (
        'variable "L" {\n  type = list(any)\n  default = []\n}\ntarget "c" {}\n',
        ["--print", "c"], {"L": "a,b"}),
    "tuple-from-csv": (
        'variable "T" {\n  type = tuple([string, number])\n  default = ["a", 1]\n}\n'
        'target "c" {\n  args = { T = jsonencode(T) }\n}\n', ["--print", "c"], {"T": "b,2"}),
    "tuple-from-csv-wrong-length": (
        'variable "T" {\n  type = tuple([string, number])\n  default = ["a", 1]\n}\n'
        'target "c" {}\n', ["--print", "c"], {"T": "b"}),
    "untyped-from-json-env": (
        'variable "N" {\n  default = 1\n}\nvariable "S" {\n}\ntarget "c" {\n'
        '  args = { N = N + 1, S = S }\n}\n', ["--print", "c"], {"N_JSON": "5", "S_JSON": "[1]"}),
    "typed-json-env-wins-over-plain": (
        'variable "N" {\n  type = number\n  default = 1\n}\ntarget "c" {\n  args = { N = N }\n}\n',
        ["--print", "c"], {"N": "2", "N_JSON": "3"}),
    "json-env-shadowed-by-variable": (
        'variable "N" {\n  type = number\n  default = 1\n}\nvariable "N_JSON" {\n'
        '  default = "x"\n}\ntarget "c" {\n  args = { N = N }\n}\n', ["--print", "c"],
        {"N_JSON": "3"}),
    "object-from-plain-env": (
        'variable "O" {\n  type = object({a = string})\n  default = {a = "x"}\n}\n'
        'target "c" {}\n', ["--print", "c"], {"O": "y"}),
}

ESCAPING: dict[str, Case] = {
    "heredoc-and-quoted-escapes": (
        'target "c" {\n  dockerfile-inline = <<EOT\nFROM x\nRUN echo $${A} %%{b} $$ %% $x\nEOT\n'
        '  args = { A = "$${x} %%{y} $$ %%", B = <<-EOT\n    a $${x}\n    b %%{y}\n    EOT\n'
        '  }\n  labels = { L = "$${l}" }\n  annotations = ["a=$${b}"]\n'
        '  tags = ["t$${x}"]\n  description = "d$${x}"\n}\n', ["--print", "c"], {}),
    "template-escapes-in-set": (BASE, ["--print", "a", *_set("a.args.X=${y}%{z}",
                                                             "a.labels.L=$${q}",
                                                             "a.annotations=a=${b}",
                                                             "a.dockerfile=${d}")], {}),
    "escapes-from-env": (
        'variable "V" {\n  default = ""\n}\ntarget "c" {\n  args = { V = V }\n'
        '  dockerfile-inline = "FROM ${V}"\n}\n', ["--print", "c"], {"V": "${HOME}%{x}"}),
    "escaped-directive-in-heredoc": (
        'target "c" {\n  args = { A = <<EOT\n%%{if true}x%%{endif} $${y}\nEOT\n  }\n}\n',
        ["--print", "c"], {}),
}

SOURCE_DATE_EPOCH: dict[str, Case] = {
    "epoch-injected": (BASE, ["--print", "a", "b"], {"SOURCE_DATE_EPOCH": "1700000000"}),
    "epoch-empty-ignored": (BASE, ["--print", "a"], {"SOURCE_DATE_EPOCH": ""}),
    "epoch-target-arg-wins": (
        'target "a" {\n  args = { SOURCE_DATE_EPOCH = "1" }\n}\n', ["--print", "a"],
        {"SOURCE_DATE_EPOCH": "2"}),
    "epoch-set-arg-wins": (BASE, ["--print", "a", *_set("a.args.SOURCE_DATE_EPOCH=3")],
                           {"SOURCE_DATE_EPOCH": "2"}),
    "epoch-linked-target": (
        'target "base" {\n}\ntarget "a" {\n  contexts = { b = "target:base" }\n}\n',
        ["--print", "a"], {"SOURCE_DATE_EPOCH": "5"}),
    "epoch-escaped": (BASE, ["--print", "a"], {"SOURCE_DATE_EPOCH": "${x}"}),
    "epoch-variable-listing": (
        'variable "SOURCE_DATE_EPOCH" {\n  default = "0"\n}\ntarget "a" {\n'
        '  args = { E = SOURCE_DATE_EPOCH }\n}\n', ["--print", "a"], {"SOURCE_DATE_EPOCH": "9"}),
}

#: Minimal cases of the disagreement classes the differential fuzzer found (tests/buildx/fuzz.py).
FUZZ_FOUND: dict[str, Case] = {
    "csv-bare-quote-in-env": ('variable "V" {\n  type = set(string)\n}\ntarget "t" {}\n',
                              ["--print", "t"], {"V": '{"a":1}'}),
    "template-for-key-value": (
        'target "t" {\n  args = { A = "%{for i, v in [\"a\", \"b\"]}${i}=${v};%{endfor}" }\n}\n',
        ["--print", "t"], {}),
    "heredoc-trim-blank-line": (
        'target "t" {\n  dockerfile-inline = <<-EOT\n    \n    RUN a\n\t  tab\n    EOT\n}\n',
        ["--print", "t"], {}),
    "invalid-escape-after-directive": (
        'target "t" {\n  args = { A = "%{if true}x%{endif}q\\q" }\n}\n', ["--print", "t"], {}),
    "conditional-types-unify": (
        'target "t" {\n  tags = [true ? 1 : "a", false ? "x" : true]\n}\n', ["--print", "t"], {}),
    "conditional-types-clash": (
        'target "t" {\n  tags = [true ? "d" : ["l"]]\n}\n', ["--print", "t"], {}),
    "conditional-untaken-error": (
        'target "t" {\n  tags = [true ? "a" : upper(1, 2)]\n}\n', ["--print", "t"], {}),
    "shm-size-invalid": ('target "t" {\n  shm-size = " sp "\n}\n', ["--print", "t"], {}),
    "ulimits-invalid": ('target "t" {\n  ulimits = ["a"]\n}\n', ["--print", "t"], {}),
    "linked-platforms-not-subset": (
        'target "b" {\n  platforms = ["linux/arm64", "linux/riscv64"]\n}\ntarget "t" {\n'
        '  platforms = ["linux/amd64", "linux/arm64"]\n  contexts = { base = "target:b" }\n}\n',
        ["--print", "t"], {}),
    "empty-dockerfile-defaults": ('target "t" {\n  dockerfile = ""\n}\n', ["--print", "t"], {}),
    "null-description": ('target "u" {\n  description = null\n}\ntarget "t" {}\n',
                         ["--print", "t"], {}),
    "typed-variable-without-value-used": (
        'variable "V" {\n  type = string\n}\ntarget "u" {\n  description = V\n}\n'
        'target "t" {}\n', ["--print", "t"], {}),
    "typed-variable-without-value-listed": (
        'variable "V" {\n  type = string\n}\ntarget "t" {}\n',
        ["--list=type=variables,format=json"], {}),
    "unset-list-field-reference": (
        'target "a" {}\ntarget "t" {\n  tags = coalescelist(target.a.tags, ["z"])\n'
        '  args = { N = jsonencode(target.a.args) }\n}\n', ["--print", "t"], {}),
    "modulo-of-infinity": ('target "t" {\n  args = { A = (1 / 0) % 7 }\n}\n', ["--print", "t"],
                           {}),
    "signum-of-fraction": ('target "t" {\n  args = { A = signum(1.5) }\n}\n', ["--print", "t"],
                           {}),
    "unbalanced-directive-after-escape": (
        'target "t" {\n  args = { A = "%%%{if true} y %{else}n%{endif}" }\n}\n',
        ["--print", "t"], {}),
    "typed-default-checked-before-env": (
        'variable "B" {\n  type = bool\n  default = "x"\n}\ntarget "t" {}\n', ["--print", "t"],
        {"B": "true"}),
    "typed-string-listing-escapes": (
        'variable "S" {\n  type = string\n  default = "<a>&\\\\"\n}\nvariable "U" {\n'
        '  default = "\\"u\\""\n}\ntarget "t" {}\n', ["--list=type=variables,format=json"],
        {"S": 'a,"b,c"'}),
    "empty-entries-inherit-as-unset": (
        'target "a" {\n  cache-to = []\n  output = []\n  tags = []\n}\ntarget "b" {\n'
        '  cache-to = ["", "type=gha"]\n  output = ["type=docker"]\n  tags = ["x"]\n}\n'
        'target "t" {\n  inherits = ["b", "a"]\n}\n', ["--print", "t"], {}),
    "minus-zero-minus-infinity": ('target "t" {\n  pull = ((-1 * 0) - (7 / 0)) < 1\n}\n',
                                  ["--print", "t"], {}),
    "shm-size-forms": ('target "t" {\n  shm-size = "1.51.5"\n}\ntarget "u" {\n'
                       '  shm-size = "2.5GiB"\n}\n', ["--print", "u", "t"], {}),
    "typed-infinity-listing": ('variable "N" {\n  type = number\n  default = 1 / 0\n}\n'
                               'variable "U" {\n  default = 1 / 0\n}\n',
                               ["--list=type=variables,format=json"], {}),
    "heredoc-nested-quotes": (
        'target "t" {\n  dockerfile-inline = <<-EOF\n    FROM ${"${"q\\"q"}$${x}"}\n    EOF\n}\n',
        ["--print", "t"], {}),
    "group-naming-an-empty-group": (
        'group "g0" {\n  targets = []\n}\ngroup "g1" {\n  targets = ["t", "g0"]\n}\n'
        'target "t" {}\n', ["--print", "g1"], {}),
    "default-group-naming-an-empty-group": (
        'group "g0" {\n  targets = []\n}\ngroup "default" {\n  targets = ["g0"]\n}\n'
        'target "t" {}\n', ["--print"], {}),
    "empty-group-requested": ('group "g0" {\n  targets = []\n}\ntarget "t" {}\n',
                              ["--print", "t", "g0"], {}),
    "for-condition-checked-without-iterations": (
        'variable "B" {\n  type = bool\n  default = null\n}\ntarget "t" {\n'
        '  args = { A = jsonencode([for s in [] : s if B]) }\n}\n', ["--print", "t"], {}),
    "for-condition-not-bool-without-iterations": (
        'target "t" {\n  args = { A = jsonencode({for k, v in {} : k => v if [1]}) }\n}\n',
        ["--print", "t"], {}),
    "for-condition-naming-the-iterator": (
        'target "t" {\n  args = { A = jsonencode([for s in [] : s if s]),'
        ' B = jsonencode([for s in [] : s if "true"]) }\n}\n', ["--print", "t"], {}),
    "set-iteration-key-is-element": (
        'variable "S" {\n  type = set(string)\n  default = ["b", "a"]\n}\ntarget "t" {\n'
        '  args = { A = "%{for i, v in S}${i}=${v};%{endfor}", B = jsonencode([for i, v in S : i]),'
        ' C = jsonencode({for i, v in S : i => v}) }\n}\n', ["--print", "t"], {}),
}

def _bare(item: str, env: dict[str, str] | None = None) -> Case:
    """``--print a --set a.ITEM`` on BASE."""
    return (BASE, ["--print", "a", *_set(f"a.{item}")], env or {})


#: ``--set`` with its value left out, for every kind of field (string, list, map, bool, entry
#: lists, membytes, and keys buildx does not take): ``KEY`` with no ``=``, ``KEY=`` and
#: ``KEY+=`` empty. buildx reads a value from the environment only for ``args.NAME``; every
#: other key needs ``=``; an empty value clears a string field, empties a list, sets a map key
#: to ``""`` (``args.`` names the empty key) and is refused by a bool or a size.
SET_WITHOUT_VALUE: dict[str, Case] = {
    "no-cache": _bare("no-cache"), "no-cache-empty": _bare("no-cache="),
    "no-cache-append-empty": _bare("no-cache+="),
    "pull": _bare("pull"), "pull-empty": _bare("pull="),
    "pull-append-empty": _bare("pull+="),
    "load": _bare("load"), "load-empty": _bare("load="),
    "load-append-empty": _bare("load+="),
    "push": _bare("push"), "push-empty": _bare("push="),
    "push-append-empty": _bare("push+="),
    "args.X": _bare("args.X"), "args.X-empty": _bare("args.X="),
    "args.X-append-empty": _bare("args.X+="),
    "args.NEW": _bare("args.NEW"), "args.NEW-empty": _bare("args.NEW="),
    "args.NEW-append-empty": _bare("args.NEW+="),
    "args-no-name": _bare("args."), "args-no-name-empty": _bare("args.="),
    "args-no-name-append-empty": _bare("args.+="),
    "labels.L": _bare("labels.L"), "labels.L-empty": _bare("labels.L="),
    "labels.L-append-empty": _bare("labels.L+="),
    "labels-no-name": _bare("labels."), "labels-no-name-empty": _bare("labels.="),
    "labels-no-name-append-empty": _bare("labels.+="),
    "contexts.c": _bare("contexts.c"), "contexts.c-empty": _bare("contexts.c="),
    "contexts.c-append-empty": _bare("contexts.c+="),
    "contexts-no-name": _bare("contexts."), "contexts-no-name-empty": _bare("contexts.="),
    "contexts-no-name-append-empty": _bare("contexts.+="),
    "cache-from": _bare("cache-from"), "cache-from-empty": _bare("cache-from="),
    "cache-from-append-empty": _bare("cache-from+="),
    "cache-to": _bare("cache-to"), "cache-to-empty": _bare("cache-to="),
    "cache-to-append-empty": _bare("cache-to+="),
    "output": _bare("output"), "output-empty": _bare("output="),
    "output-append-empty": _bare("output+="),
    "secrets": _bare("secrets"), "secrets-empty": _bare("secrets="),
    "secrets-append-empty": _bare("secrets+="),
    "ssh": _bare("ssh"), "ssh-empty": _bare("ssh="),
    "ssh-append-empty": _bare("ssh+="),
    "platform": _bare("platform"), "platform-empty": _bare("platform="),
    "platform-append-empty": _bare("platform+="),
    "tags": _bare("tags"), "tags-empty": _bare("tags="),
    "tags-append-empty": _bare("tags+="),
    "target": _bare("target"), "target-empty": _bare("target="),
    "target-append-empty": _bare("target+="),
    "dockerfile": _bare("dockerfile"), "dockerfile-empty": _bare("dockerfile="),
    "dockerfile-append-empty": _bare("dockerfile+="),
    "context": _bare("context"), "context-empty": _bare("context="),
    "context-append-empty": _bare("context+="),
    "network": _bare("network"), "network-empty": _bare("network="),
    "network-append-empty": _bare("network+="),
    "entitlements": _bare("entitlements"), "entitlements-empty": _bare("entitlements="),
    "entitlements-append-empty": _bare("entitlements+="),
    "allow": _bare("allow"), "allow-empty": _bare("allow="),
    "allow-append-empty": _bare("allow+="),
    "annotations": _bare("annotations"), "annotations-empty": _bare("annotations="),
    "annotations-append-empty": _bare("annotations+="),
    "attest": _bare("attest"), "attest-empty": _bare("attest="),
    "attest-append-empty": _bare("attest+="),
    "shm-size": _bare("shm-size"), "shm-size-empty": _bare("shm-size="),
    "shm-size-append-empty": _bare("shm-size+="),
    "ulimits": _bare("ulimits"), "ulimits-empty": _bare("ulimits="),
    "ulimits-append-empty": _bare("ulimits+="),
    "call": _bare("call"), "call-empty": _bare("call="),
    "call-append-empty": _bare("call+="),
    "no-cache-filter": _bare("no-cache-filter"), "no-cache-filter-empty": _bare("no-cache-filter="),
    "no-cache-filter-append-empty": _bare("no-cache-filter+="),
    "description": _bare("description"), "description-empty": _bare("description="),
    "description-append-empty": _bare("description+="),
    "dockerfile-inline": _bare("dockerfile-inline"),
    "dockerfile-inline-empty": _bare("dockerfile-inline="),
    "dockerfile-inline-append-empty": _bare("dockerfile-inline+="),
    "args-from-env-named-like-field": _bare("args.tags", {"tags": "v"}),
    "tags-with-env-named-like-field": _bare("tags", {"tags": "v"}),
    "glob-tags": (BASE, ["--print", "a", "b", *_set("*.tags")], {}),
    "glob-tags-empty": (BASE, ["--print", "a", "b", *_set("*.tags=")], {}),
    "glob-args-no-name-empty": (BASE, ["--print", "a", "b", *_set("*.args.=")], {}),
    "empty-then-append": (BASE, ["--print", "a", *_set("a.tags=", "a.tags+=r/x:1")], {}),
    "value-then-empty": (BASE, ["--print", "a", *_set("a.platform=linux/arm64",
                                                      "a.platform=")], {}),
    "labels-no-name-empty-then-set": (BASE, ["--print", "a", *_set("a.labels.=",
                                                                   "a.labels.+=x")], {}),
}

_NIL = 'variable "V" {\n  type = string\n}\nvariable "L" {\n  type = list(string)\n}\n'


def _nil(expression: str) -> str:
    return _NIL + f'target "t" {{\n  args = {{ A = {expression} }}\n}}\n'


#: A typed variable with no default and no value is cty's NilVal in buildx: null to ``==``,
#: jsonencode, collections and for-expressions; refused by every field and typed parameter.
TYPED_NIL: dict[str, Case] = {
    "compares-as-null": (_nil('jsonencode([V == null, V == "", "" != V, L == null])'),
                         ["--print", "t"], {}),
    "carried-by-collections": (
        _nil("jsonencode([length([V, 1]), [\"x\", V][1], {k = V}, concat([V], [\"a\"]),"
             " keys({a = V}), element([V], 0), [for s in [V] : s == null], flatten([V])])"),
        ["--print", "t"], {}),
    "untaken-for-iteration": (
        _nil('jsonencode([for s in ["q", V] : upper(s) if 7 <= 2])'), ["--print", "t"], {}),
    "can-and-try": (_nil('jsonencode([can(V), can(upper(V)), try(upper(V), "z"), try(V, 1)])'),
                    ["--print", "t"], {}),
    "format-as-null": (_nil('format("%v", V)'), ["--print", "t"], {}),
    "coalesce-with-a-null": (_nil('jsonencode([coalesce(null, V, "a"), coalesce(V, null, 1)])'),
                             ["--print", "t"], {}),
    "coalesce-without-a-null": (_nil("coalesce(V, V)"), ["--print", "t"], {}),
    "as-a-field-value": (_nil("V"), ["--print", "t"], {}),
    "inside-a-field-value": (_nil('lookup({k = V}, "k", "d")'), ["--print", "t"], {}),
    "as-a-description": (_NIL + 'target "u" {\n  description = V\n}\ntarget "t" {}\n',
                         ["--print", "t"], {}),
    "in-a-template": (_nil('"${V}"'), ["--print", "t"], {}),
    "in-a-multi-part-template": (_nil('"x-${V}"'), ["--print", "t"], {}),
    "to-a-list-parameter": (_nil("jsonencode(distinct([V, V]))"), ["--print", "t"], {}),
    "to-a-non-null-parameter": (_nil('contains(["a", V], V)'), ["--print", "t"], {}),
    "to-a-user-function": (
        _NIL + 'function "f" {\n  params = [p]\n  result = 1\n}\ntarget "t" {\n'
        "  args = { A = f(V) }\n}\n", ["--print", "t"], {}),
    "null-to-a-user-function": (
        'function "f" {\n  params = [p]\n  variadic_params = r\n  result = 1\n}\n'
        'target "t" {\n  args = { A = f(1, null) }\n}\n', ["--print", "t"], {}),
    "default-of-an-untyped-variable": (
        _NIL + 'variable "W" {\n  default = [V]\n}\nvariable "X" {\n  default = V\n}\n'
        'target "t" {\n  args = { A = jsonencode([W, X]) }\n}\n', ["--print", "t"], {}),
    "default-of-an-untyped-variable-listed": (
        _NIL + 'variable "W" {\n  default = [V]\n}\nvariable "X" {\n  default = V\n}\n',
        ["--list=type=variables,format=json"], {}),
    "default-of-a-typed-variable": (
        _NIL + 'variable "W" {\n  type = string\n  default = V\n}\ntarget "t" {}\n',
        ["--print", "t"], {}),
    "in-a-validation": (
        'variable "V" {\n  type = string\n  validation {\n    condition = V == null\n'
        '    error_message = "e"\n  }\n}\ntarget "t" {}\n', ["--print", "t"], {}),
    "in-a-group": (_NIL + 'group "g" {\n  targets = V == null ? ["t"] : []\n}\n'
                   'target "t" {}\n', ["--print", "g"], {}),
}

#: Bake files buildx refuses, one error each, that the model must refuse with the same
#: meaning (compared with oracle.error_gist): expressions, functions, conditions, heredocs,
#: blocks, fields and type specifications.
REFUSED: dict[str, Case] = {
    "heredoc-call-error": (
        'target "t" {\n  dockerfile-inline = <<EOT\nFROM ${upper(1, 2)}\nEOT\n}\n',
        ["--print", "t"], {}),
    "heredoc-unknown-variable": (
        'target "t" {\n  dockerfile-inline = <<EOT\nFROM x\nRUN ${nope}\nEOT\n}\n',
        ["--print", "t"], {}),
    "unknown-function": (
        'target "t" {\n  args = { A = nofn(1) }\n}\n',
        ["--print", "t"], {}),
    "unknown-variable": (
        'target "t" {\n  args = { A = nope }\n}\n',
        ["--print", "t"], {}),
    "index-out-of-range": (
        'target "t" {\n  args = { A = ["a"][3] }\n}\n',
        ["--print", "t"], {}),
    "missing-key": (
        'target "t" {\n  args = { A = {a = "1"}["b"] }\n}\n',
        ["--print", "t"], {}),
    "duplicate-object-key": (
        'target "t" {\n  args = { A = jsonencode({for k in ["a", "a"] : k => 1}) }\n}\n',
        ["--print", "t"], {}),
    "for-over-number": (
        'target "t" {\n  args = { A = jsonencode([for x in 1 : x]) }\n}\n',
        ["--print", "t"], {}),
    "attr-of-string": (
        'target "t" {\n  args = { A = "s".x }\n}\n',
        ["--print", "t"], {}),
    "too-many-args": (
        'target "t" {\n  args = { A = upper("a", "b") }\n}\n',
        ["--print", "t"], {}),
    "too-few-args": (
        'target "t" {\n  args = { A = upper() }\n}\n',
        ["--print", "t"], {}),
    "user-fn-too-many": (
        'function "f" {\n  params = [a]\n  result = a\n}\ntarget "t" {\n'
        '  args = { A = f(1, 2) }\n}\n',
        ["--print", "t"], {}),
    "user-fn-too-few": (
        'function "f" {\n  params = [a, b]\n  result = a\n}\ntarget "t" {\n'
        '  args = { A = f(1) }\n}\n',
        ["--print", "t"], {}),
    "group-null-targets": (
        'group "g" {\n  targets = null\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "group-targets-not-list": (
        'group "g" {\n  targets = "t"\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "group-name": (
        'group "g" {\n  name = "x"\n  targets = ["t"]\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "bad-label": (
        'target "a.b" {\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "target-no-label": (
        'target {\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "args-not-map": (
        'target "t" {\n  args = ["a"]\n}\n',
        ["--print", "t"], {}),
    "tags-not-list": (
        'target "t" {\n  tags = "a"\n}\n',
        ["--print", "t"], {}),
    "tags-element-not-string": (
        'target "t" {\n  tags = [["a"]]\n}\n',
        ["--print", "t"], {}),
    "contexts-null-value": (
        'target "t" {\n  contexts = { a = null }\n}\n',
        ["--print", "t"], {}),
    "interp-list": (
        'target "t" {\n  args = { A = "x${["a"]}" }\n}\n',
        ["--print", "t"], {}),
    "cond-not-bool": (
        'target "t" {\n  args = { A = "x" ? "a" : "b" }\n}\n',
        ["--print", "t"], {}),
    "cond-null": (
        'target "t" {\n  args = { A = null ? "a" : "b" }\n}\n',
        ["--print", "t"], {}),
    "unary-not-number": (
        'target "t" {\n  args = { A = -"x" }\n}\n',
        ["--print", "t"], {}),
    "unary-not-bool": (
        'target "t" {\n  pull = !"x"\n}\n',
        ["--print", "t"], {}),
    "validation-not-bool": (
        'variable "V" {\n  default = 1\n  validation {\n    condition = "x"\n'
        '    error_message = "m"\n  }\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "validation-null": (
        'variable "V" {\n  default = 1\n  validation {\n    condition = null\n'
        '    error_message = "m"\n  }\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "template-if-not-bool": (
        'target "t" {\n  args = { A = "%{if "x"}a%{endif}" }\n}\n',
        ["--print", "t"], {}),
    "splat-null": (
        'target "t" {\n  args = { A = jsonencode(null[*]) }\n}\n',
        ["--print", "t"], {}),
    "function-no-result": (
        'function "f" {\n  params = []\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "variable-unknown-type": (
        'variable "V" {\n  type = strin\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "variable-type-bad-default": (
        'variable "V" {\n  type = number\n  default = "x"\n}\ntarget "t" {\n\n}\n',
        ["--print", "t"], {}),
    "matrix-bad-name": (
        'target "m" {\n  matrix = { v = ["a b"] }\n  name = "m-${v}"\n}\n',
        ["--print", "m"], {}),
    "inherits-self": (
        'target "t" {\n  inherits = ["t"]\n}\n',
        ["--print", "t"], {}),
    "context-link-self": (
        'target "t" {\n  contexts = { a = "target:t" }\n}\n',
        ["--print", "t"], {}),
    "description-not-string": (
        'target "t" {\n  description = ["x"]\n}\n',
        ["--print", "t"], {}),
    "no-cache-string": (
        'target "t" {\n  no-cache = "maybe"\n}\n',
        ["--print", "t"], {}),
    "shm-size-number": (
        'target "t" {\n  shm-size = 1\n}\n',
        ["--print", "t"], {}),
    "output-no-type": (
        'target "t" {\n  output = [{ dest = "x" }]\n}\n',
        ["--print", "t"], {}),
    "cache-bad-entry": (
        'target "t" {\n  cache-from = ["type=local,x"]\n}\n',
        ["--print", "t"], {}),
    "attest-no-type": (
        'target "t" {\n  attest = ["x=y"]\n}\n',
        ["--print", "t"], {}),
    "secret-bad": (
        'target "t" {\n  secret = ["foo=bar"]\n}\n',
        ["--print", "t"], {}),
    "annotation-bad": (
        'target "t" {\n  annotations = ["x"]\n}\n',
        ["--print", "t"], {}),
    "heredoc-trimmed-error": (
        'target "t" {\n  dockerfile-inline = <<-EOT\n    FROM x\n      RUN ${nope}\n'
        '    EOT\n}\n',
        ["--print", "t"], {}),
}

#: go-textseg v15's grapheme clusters (why hcl/functions/graphemes.py is not ``regex``'s \X).
GRAPHEMES: dict[str, Case] = {
    "clusters": (
        'target "t" {\n  args = { A = strlen("क्ष"), B = strlen("🇺🇸🇬🇧"), C = strlen("👨‍👩‍👧"),'
        ' D = strlen("e\\u0301"), E = strlen("\\r\\n"), F = strlen("각"),'
        ' G = strlen("अनुच्छेद"), H = substr("क्षa", 1, 2), I = reverse("ab🇺🇸") }\n}\n',
        ["--print", "t"], {}),
}

FAMILIES: dict[str, dict[str, Case]] = {
    "set-env-args": SET_ENV_ARGS,
    "set-append": SET_APPEND,
    "set-csv-values": SET_CSV,
    "target-references": TARGET_REFS,
    "any-from-env": ANY_FROM_ENV,
    "print-escaping": ESCAPING,
    "source-date-epoch": SOURCE_DATE_EPOCH,
    "fuzz-found": FUZZ_FOUND,
    "typed-nil": TYPED_NIL,
    "graphemes": GRAPHEMES,
    "set-without-value": SET_WITHOUT_VALUE,
    "refused": REFUSED,
}
CASES = {f"{family}/{name}": case for family, cases in FAMILIES.items()
         for name, case in cases.items()}


def compare(name: str, case: Case, buildx: Buildx, cwd: Path) -> None:
    text, args, env = case
    (cwd / "docker-bake.hcl").write_text(text)
    expected = oracle(buildx, list(args), cwd, env)
    got = model(list(args), cwd, env)
    assert got.ok == expected.ok, f"buildx: {expected.error or 'ok'}; model: {got.error or 'ok'}"
    if expected.ok:
        assert groups_as_sets(got.data) == groups_as_sets(expected.data)
    else:
        assert_same_error(name, got, expected)


@pytest.mark.buildx
@pytest.mark.parametrize("name", sorted(CASES))
def test_family_case(name: str, buildx: Buildx, tmp_path: Path) -> None:
    compare(name, CASES[name], buildx, tmp_path)


#: Constructs buildx accepts that the model does not model yet: the model must fail and say so
#: ("not supported"), never answer differently. docs/reference/bake-model.md lists them.
UNSUPPORTED: dict[str, Case] = {
    "nested-unary-operators": ('target "t" {\n  pull = !!false\n}\n', ["--print", "t"], {}),
    "whole-target-as-a-value": (
        'target "a" {\n  tags = ["x"]\n}\ntarget "t" {\n  args = { A = jsonencode(target.a) }\n}\n',
        ["--print", "t"], {}),
    "json-bake-file": ("", ["-f", "docker-bake.json", "--print", "t"], {}),
    "escape-after-literal-dollar": ('target "t" {\n  args = { A = "$$${x}" }\n}\n',
                                    ["--print", "t"], {}),
    "arithmetic-on-a-log-or-pow-fraction": (
        'target "t" {\n  args = { A = signum(1) - log(2, 10), B = pow(2, 0.5) * 2 }\n}\n',
        ["--print", "t"], {}),
    "escape-without-closing-brace": ('target "t" {\n  args = { A = "$${", B = "%%{ x" }\n}\n',
                                     ["--print", "t"], {}),
}


@pytest.mark.buildx
@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_construct_is_named(name: str, buildx: Buildx, tmp_path: Path) -> None:
    text, args, env = UNSUPPORTED[name]
    (tmp_path / "docker-bake.hcl").write_text(text)
    (tmp_path / "docker-bake.json").write_text('{"target": {"t": {"tags": ["j"]}}}')
    expected = oracle(buildx, list(args), tmp_path, env)
    assert expected.ok, f"buildx rejects it, so it needs no entry here: {expected.error}"
    got = model(list(args), tmp_path, env)
    assert not got.ok and "not supported" in got.error, got.error or got.data
