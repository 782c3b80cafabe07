"""A seeded differential fuzzer: random bake files, environments and ``--set`` lists, run through
the installed buildx and through the model, compared as data.

The generator draws from the grammar the model supports: variables of every type (defaults,
validation, null, descriptions), top-level attributes, user functions, templates with
directives and escapes, heredocs, for-expressions, conditionals, builtin functions; targets with
inherits, matrix/name, ``target:`` contexts, ``target.NAME.FIELD`` references; groups; the
environment (plain, CSV, ``NAME_JSON``, SOURCE_DATE_EPOCH) and ``--set`` in all its forms.

    cases = [generate(random.Random(f"{seed}:{i}")) for i in range(n)]
    report = run(cases, buildx, workdir)          # agreement, disagreements (shrunk)

Deterministic: a case depends only on its seed string. Left out on purpose, because buildx's
answer depends on things outside the file (and the model mirrors them separately): secrets and
ssh (files and agents), ``--push``/``--load`` together with output overrides (buildx applies
``--set`` keys in Go map order), and time/uuid functions.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.buildx.oracle import Outcome, groups_as_sets, model
from tests.conftest import Buildx, Result, minimal_env

#: Where the docker CLI looks for plugins on Linux (its own search order).
PLUGIN_DIRS = ("~/.docker/cli-plugins", "/usr/local/lib/docker/cli-plugins",
               "/usr/local/libexec/docker/cli-plugins", "/usr/lib/docker/cli-plugins",
               "/usr/libexec/docker/cli-plugins")


class PluginBuildx(Buildx):
    """The same buildx binary ``docker buildx`` runs, called directly: the docker CLI's
    plugin hand-off costs more than bake's own work for ``--print``, so the fuzzer skips it."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        found = [Path(d).expanduser() / "docker-buildx" for d in PLUGIN_DIRS]
        self.binary = next((str(p) for p in found if p.exists()), None)

    def bake(self, args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> Result:
        if self.binary is None:
            return super().bake(args, cwd, env)
        config = self.home / "docker"
        config.mkdir(exist_ok=True)
        full_env = minimal_env({"DOCKER_CONFIG": str(config),
                                "BUILDX_CONFIG": str(self.home / "buildx"), **(env or {})},
                               home=self.home)
        proc = subprocess.run([self.binary, "bake", "--progress=plain", *args], cwd=cwd,
                              env=full_env, capture_output=True, text=True, timeout=60,
                              check=False)
        return Result(proc.returncode, proc.stdout, proc.stderr)

# -- cases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """One top-level item: a header line (or a whole one-line attribute) and its body lines."""

    header: str
    lines: tuple[str, ...] = ()
    nested: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def render(self) -> str:
        if not self.lines and not self.nested and not self.header.endswith("{"):
            return self.header + "\n"
        body = [f"  {line}" for line in self.lines]
        for head, lines in self.nested:
            body += [f"  {head} {{", *[f"    {line}" for line in lines], "  }"]
        return "\n".join([self.header, *body, "}"]) + "\n"


@dataclass(frozen=True)
class Case:
    blocks: tuple[Block, ...]
    env: tuple[tuple[str, str], ...] = ()
    sets: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    listing: bool = False

    @property
    def text(self) -> str:
        return "".join(b.render() for b in self.blocks)

    @property
    def args(self) -> list[str]:
        if self.listing:
            return ["--list=type=variables,format=json"]
        return ["--print", *self.targets, *[a for s in self.sets for a in ("--set", s)]]

    def describe(self) -> str:
        env = " ".join(f"{k}={json.dumps(v)}" for k, v in self.env)
        return (f"# env: {env or '(none)'}\n# args: {json.dumps(self.args)}\n{self.text}")


# -- the generator ----------------------------------------------------------------------------

STRINGS = ["a", "x-1", "gfx950", "r/img:1", "a,b", "k=v", "/p/q", "é", " sp ", "", "1.5", "true",
           "$${x}", "%%{y}", "$$", "%%", "a\\nb", "q\\\"q", "\\\\", "${", "%{"]
SAFE_STRINGS = [s for s in STRINGS if s not in ("${", "%{")]
PLATFORMS = ["linux/amd64", "linux/arm64", "linux/riscv64"]
CACHES = ['"r/c:1"', '"type=registry,ref=r/c:2"', '"type=local,src=/tmp/c"', '"u/a,u/b"', '""',
          '{ type = "local", src = "/x" }', '"type=gha"']
OUTPUTS = ['"type=docker"', '"type=image,name=r/x"', '"type=local,dest=out"', '"-"',
           '"type=cacheonly"', '"out/dir"', '""']
ANNOTATIONS = ['"k=v"', '"index:k=v"', '"manifest:o=${"x"}"', '"a=$${b}"']
ANY_DEFAULTS = ["1", '"a"', '["x", 1]', "{a = 1}", "null"]
ENV_BY_KIND = {"string": ["v", "", "a b", "${x}"], "number": ["2", "-1.5", "1e3", "0"],
               "bool": ["true", "false", "1", "F"], "list": ["a,b", "x", '"q,r",s'],
               "map": ["a:1,b:2", "k:v"], "any": ["x"]}
ENV_VALUES = ["1", "0", "true", "false", "x", "", "2.5", "-3", "1e3", "a,b", "a:1,b:2", "a,\"b,c\"",
              "nan", "0x10", "${y}", "%{z}", "t", "F", "1_000", "[1]", '{"a":1}']


class Generator:
    """Builds one case from an RNG; every choice goes through ``self.rng``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vars: dict[str, str] = {}  # name -> kind: string number bool list map any
        self.functions: list[tuple[str, int]] = []
        self.targets: list[str] = []
        self.generated: list[str] = []  # matrix-generated target names
        self.matrix: list[str] = []  # targets with a matrix (referenced by generated names)

    def pick(self, items: list[str]) -> str:
        return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- expressions by kind --------------------------------------------------------------
    def expr(self, kind: str, depth: int = 0) -> str:
        return {"string": self.string, "number": self.number, "bool": self.boolean,
                "list": self.strings, "map": self.string_map}[kind](depth)

    def var_of(self, *kinds: str) -> str | None:
        names = [n for n, k in self.vars.items() if k in kinds]
        return self.pick(names) if names else None

    def literal(self, safe: bool = True) -> str:
        return '"' + self.pick(SAFE_STRINGS if safe else STRINGS) + '"'

    def string(self, depth: int = 0) -> str:
        if depth > 2:
            return self.literal()
        roll = self.rng.random()
        var = self.var_of("string", "number", "bool")
        if roll < 0.25:
            return self.literal(safe=self.chance(0.97))
        if roll < 0.4 and var:
            return var
        if roll < 0.55:
            return self.template(depth)
        if roll < 0.75:
            return self.call_string(depth)
        if roll < 0.85:
            when, then = self.boolean(depth + 1), self.string(depth + 1)
            return f"{when} ? {then} : {self.string(depth + 1)}"
        if roll < 0.9 and self.functions:
            name, arity = self.rng.choice(self.functions)
            return f"{name}({', '.join(self.string(depth + 1) for _ in range(arity))})"
        if roll < 0.95:
            return f'join("-", {self.strings(depth + 1)})'
        return f'lookup({self.string_map(depth + 1)}, "k", "d")' if self.chance(0.5) else (
            f'["x", {self.string(depth + 1)}][1]')

    def template(self, depth: int) -> str:
        parts = []
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.35:
                parts.append(self.pick(SAFE_STRINGS).replace('"', "").replace("\\", ""))
            elif roll < 0.7:
                parts.append("${" + self.string(depth + 1) + "}")
            elif roll < 0.85:
                strip = "~" if self.chance(0.3) else ""
                parts.append(f"%{{if {self.boolean(depth + 1)}{strip}}} yes %{{else}}no"
                             f"%{{{strip}endif}}")
            else:
                parts.append(f"%{{for i, v in {self.strings(depth + 1)}}}${{i}}=${{v}};"
                             "%{endfor}")
        # "$$" or "%%" right before "${"/"%{" is not supported by the model (named so).
        return '"' + "-".join(parts) + '"'

    def call_string(self, depth: int) -> str:
        s = self.string(depth + 1)
        options: list[Callable[[], str]] = [
            lambda: f"upper({s})", lambda: f"lower({s})", lambda: f"trimspace({s})",
            lambda: f'replace({s}, "a", "b")', lambda: f'join("{self.pick([",", "-", ""])}", '
                                                       f"{self.strings(depth + 1)})",
            lambda: f'format("%s-%v", {s}, {self.number(depth + 1)})',
            lambda: f"substr({s}, 0, 2)", lambda: f"jsonencode({self.value(depth + 1)})",
            lambda: f'coalesce({s}, "d")', lambda: f'trimprefix({s}, "a")',
            lambda: f"title({s})", lambda: f'regex_replace({s}, "[a-c]", "Z")',
            lambda: f"sanitize({s})", lambda: f"md5({s})", lambda: f"reverse({s})",
            lambda: f'element(["e", {s}], {self.rng.randint(0, 3)})',  # wraps around
            lambda: f"lookup({self.string_map(depth + 1)}, \"k\", \"dflt\")",
            lambda: f"indent(2, {s})", lambda: f"chomp({s})", lambda: f"basename({s})",
            lambda: f"base64encode({s})", lambda: f'base64decode("{self.pick(["aGk=", "x"])}")',
            lambda: f"{self.pick(['sha1', 'sha256', 'sha512', 'urlencode', 'dirname'])}({s})",
            lambda: f'trim({s}, "a ")', lambda: f'trimsuffix({s}, "1")',
            lambda: f'uuidv5("{self.pick(["dns", "url", "x500", "oid", "nope"])}", {s})',
            lambda: f'formatdate("{self.pick(["YYYY-MM-DD", "hh:mm ZZZ", "EEE DD MMM"])}", '
                    f'"{self.pick(["2024-02-29T03:04:05Z", "2024-13-01T00:00:00Z"])}")',
            lambda: f'timeadd("2024-01-01T00:00:00Z", "{self.pick(["1h", "-90m", "1d"])}")',
            lambda: f'format("{self.pick(["%05.1f|%s", "%-4s|%q", "%x|%v", "%%|%t"])}", '
                    f"{self.number(depth + 1)}, {s})",
            lambda: f'regex("{self.pick(["[a-z]+", "^(x)", "(?P<n>[0-9])"])}", {s})',
            lambda: f'cidrhost("10.{self.rng.randint(0, 3)}.0.0/16", {self.number(depth + 1)})',
            lambda: f'cidrsubnet("10.0.0.0/8", {self.pick(["8", "4", "30"])}, 2)',
            lambda: f'try({self.string(depth + 1)}, "t")', lambda: f"trimspace(jsondecode("
                                                               f"jsonencode({s})))",
            lambda: f'join(",", formatlist("%s!", {self.strings(depth + 1)}))',
        ]
        return self.rng.choice(options)()

    def value(self, depth: int) -> str:
        return self.expr(self.pick(["string", "number", "bool", "list", "map"]), depth + 1)

    def number(self, depth: int = 0) -> str:
        roll = self.rng.random()
        var = self.var_of("number")
        if roll < 0.35 or depth > 2:
            return self.pick(["0", "1", "2", "7", "1.5", "10", "-1", "0.1", "3e2"])
        if roll < 0.5 and var:
            return var
        if roll < 0.75:
            op = self.pick(["+", "-", "*", "/", "%"])
            return f"({self.number(depth + 1)} {op} {self.number(depth + 1)})"
        a, b = self.number(depth + 1), self.number(depth + 1)
        if self.chance(0.35):
            return self.pick([f"absolute({a})", f"add({a}, {b})", f"divide({a}, {b})",
                              f"multiply({a}, {b})", f"modulo({a}, {b})", f"negate({a})",
                              # log/pow fractions in arithmetic: named not supported
                              f"floor(pow({a}, 2))", f"ceil(log({a}, 10))", f"int({a})",
                              f"strlen({self.string(depth + 1)})",
                              f'index(["a", "b"], {self.string(depth + 1)})',
                              'indexof(["a", "b"], "b")', f"max([{a}, {b}]...)",
                              f"length({self.string_map(depth + 1)})"])
        return self.pick([f"length({self.strings(depth + 1)})",
                          f"max(1, {self.number(depth + 1)})", f"floor({self.number(depth + 1)})",
                          f"ceil({self.number(depth + 1)})", f"signum({self.number(depth + 1)})",
                          f'parseint("{self.pick(["10", "ff", "-7"])}", 16)',
                          f"min({self.number(depth + 1)}, 4)"])

    def boolean(self, depth: int = 0) -> str:
        roll = self.rng.random()
        var = self.var_of("bool")
        if roll < 0.3 or depth > 2:
            return self.pick(["true", "false"])
        if roll < 0.45 and var:
            return var
        if roll < 0.65:
            op = self.pick(["==", "!=", "<", ">=", "<="])
            if op in ("==", "!="):
                return f"{self.string(depth + 1)} {op} {self.string(depth + 1)}"
            return f"{self.number(depth + 1)} {op} {self.number(depth + 1)}"
        if roll < 0.8:
            return f"{self.boolean(depth + 1)} {self.pick(['&&', '||'])} {self.boolean(depth + 1)}"
        if self.chance(0.3):
            a, b = self.number(depth + 1), self.number(depth + 1)
            return self.pick([f"equal({a}, {b})", f"notequal({self.string(depth + 1)}, {a})",
                              f"greaterthan({a}, {b})", f"lessthanorequalto({a}, {b})",
                              f"not({self.boolean(depth + 1)})",
                              f"and({self.boolean(depth + 1)}, {self.boolean(depth + 1)})",
                              f"or({self.boolean(depth + 1)}, false)",
                              f"hasindex({self.strings(depth + 1)}, 1)",
                              f'sethaselement({self.strings(depth + 1)}, "A")',
                              f'can(regex("^a", {self.string(depth + 1)}))'])
        return self.pick([f"!({self.boolean(depth + 1)})",
                          f'contains({self.strings(depth + 1)}, "a")',
                          f"can({self.string(depth + 1)})", f'{self.string(depth + 1)} == ""'])

    def strings(self, depth: int = 0) -> str:
        roll = self.rng.random()
        var = self.var_of("list")
        if roll < 0.35 or depth > 2:
            items = [self.string(depth + 1) for _ in range(self.rng.randint(0, 3))]
            return "[" + ", ".join(items) + "]"
        if roll < 0.5 and var:
            return var
        if roll < 0.7:
            cond = f" if {self.boolean(depth + 1)}" if self.chance(0.3) else ""
            return f"[for s in {self.strings(depth + 1)} : upper(s){cond}]"
        return self.pick([f'split(",", {self.string(depth + 1)})',
                          f"concat({self.strings(depth + 1)}, {self.strings(depth + 1)})",
                          f"distinct({self.strings(depth + 1)})",
                          f"sort({self.strings(depth + 1)})",
                          f"compact({self.strings(depth + 1)})",
                          f"keys({self.string_map(depth + 1)})",
                          f"reverselist({self.strings(depth + 1)})",
                          f'slice(["a", "b", {self.string(depth + 1)}], 0, 2)',
                          f"flatten([{self.strings(depth + 1)}, [{self.string(depth + 1)}]])",
                          f'formatlist("%s-x", {self.strings(depth + 1)})',
                          f"{self.pick(['setunion', 'setintersection', 'setsubtract'])}("
                          f"{self.strings(depth + 1)}, {self.strings(depth + 1)})",
                          f"values({self.string_map(depth + 1)})",
                          f'regexall("[a-c]", {self.string(depth + 1)})',
                          f"range({self.pick(['3', '0', '1, 4', '5, 1, -2', '1.5'])})",
                          f'try({self.strings(depth + 1)}, ["t"])',
                          'cidrsubnets("10.0.0.0/16", 4, 8)'])

    def string_map(self, depth: int = 0) -> str:
        roll = self.rng.random()
        var = self.var_of("map")
        if roll < 0.45 or depth > 2:
            return self.object_literal(depth)
        if roll < 0.6 and var:
            return var
        if roll < 0.8:
            return f"{{for k, v in {self.string_map(depth + 1)} : upper(k) => v}}"
        return self.pick([f"merge({self.string_map(depth + 1)}, {self.string_map(depth + 1)})",
                          f'zipmap(["a", "b"], ["1", {self.string(depth + 1)}])',
                          f'{{for s in {self.strings(depth + 1)} : s => "${{s}}-v"...}}'
                          if self.chance(0.1) else self.object_literal(depth)])

    def object_literal(self, depth: int) -> str:
        items = []
        for i in range(self.rng.randint(0, 3)):
            key = self.pick(["k", "A", "B_2", '"q-k"', f"K{i}"])
            value = self.pick([self.string(depth + 1), self.string(depth + 1), "null",
                               self.number(depth + 1), self.boolean(depth + 1)])
            items.append(f"{key} = {value}")
        return "{ " + ", ".join(items) + " }" if items else "{}"

    def heredoc(self) -> str:
        marker = self.pick(["EOT", "EOF"])
        indent = self.pick(["<<", "<<-"])
        pad = "    " if indent == "<<-" else ""
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.3:
                lines.append(f"{pad}RUN echo $${{A}} %%{{b}} $$ %% $x")
            elif roll < 0.6:
                lines.append(f"{pad}FROM ${{{self.string(2)}}}")
            elif roll < 0.8:
                lines.append(f'{pad}%{{if {self.boolean(2)}}}yes%{{endif}} "q" \\n')
            else:
                lines.append(f"{pad}" + self.pick(SAFE_STRINGS).replace("\\", ""))
        return f"{indent}{marker}\n" + "\n".join(lines) + f"\n{pad}{marker}"

    # -- blocks ---------------------------------------------------------------------------
    def variable(self, index: int) -> Block:
        name = f"V{index}"
        kind = self.pick(["string", "number", "bool", "list", "map", "untyped", "untyped",
                          "any", "tuple", "object", "set", "listnum", "nodefault"])
        lines: list[str] = []
        nested: list[tuple[str, tuple[str, ...]]] = []
        hcl_kind = {"string": "string", "number": "number", "bool": "bool", "list": "list",
                    "map": "map", "set": "list", "listnum": "list"}.get(kind)
        types = {"string": "string", "number": "number", "bool": "bool", "list": "list(string)",
                 "map": "map(string)", "set": "set(string)", "listnum": "list(number)",
                 "any": "any", "tuple": "tuple([string, number])",
                 "object": "object({a = string, b = number})"}
        if kind in types:
            lines.append(f"type = {types[kind]}")
        if kind == "untyped":
            hcl_kind = self.pick(["string", "number", "bool"])
            lines.append(f"default = {self.expr(hcl_kind, 1)}" if self.chance(0.8)
                         else "default = null")
        elif kind == "nodefault":  # buildx's NilVal (values.NIL in the model)
            hcl_kind, type_ = self.rng.choice([("string", "string"), ("number", "number"),
                                               ("list", "list(string)"), ("bool", "bool")])
            lines.append(f"type = {type_}")
        elif kind == "any":
            lines.append("default = " + self.pick(ANY_DEFAULTS))
        elif kind == "tuple":
            lines.append('default = ["a", 1]')
        elif kind == "object":
            lines.append('default = {a = "x", b = 2}')
        elif kind == "listnum":
            lines.append("default = [1, 2]")
        elif self.chance(0.1):
            lines.append("default = null")
        elif self.chance(0.9):
            lines.append(f"default = {self.expr(hcl_kind or 'string', 1)}")
        if self.chance(0.2):
            lines.append(f"description = {self.literal()}")
        if self.chance(0.15) and hcl_kind in ("string", "number", "bool", "list"):
            check = {"string": f"strlen({name}) < 20", "number": f"{name} < 100",
                     "bool": f"{name} || {name} == null",
                     "list": f"length({name}) < 3"}[hcl_kind]
            nested.append(("validation", (f"condition = {check}",
                                          f'error_message = "bad {name}"')))
        if hcl_kind is not None:
            self.vars[name] = hcl_kind
        return Block(f'variable "{name}" {{', tuple(lines), tuple(nested))

    def function(self, index: int) -> Block:
        name = f"fn{index}"
        arity = self.rng.randint(1, 2)
        params = ", ".join(f"p{i}" for i in range(arity))
        body = " ".join(f"${{p{i}}}" for i in range(arity))
        self.functions.append((name, arity))
        if self.chance(0.3):  # variadic: called with its fixed arity, the rest empty
            return Block(f'function "{name}" {{', (f"params = [{params}]", "variadic_params = r",
                                                     f'result = "{body}-${{length(r)}}"'))
        return Block(f'function "{name}" {{', (f"params = [{params}]", f'result = "{body}-f"'))

    def target(self, index: int) -> Block:
        name = f"t{index}"
        lines: list[str] = []
        others = [t for t in self.targets if t not in self.matrix] + self.generated
        fields = list(dict.fromkeys(self.rng.sample(TARGET_FIELDS, self.rng.randint(1, 6))))
        for fname in fields:
            value = self.target_field(fname, others)
            if value is not None:
                lines.append(f"{fname} = {value}")
        if self.chance(0.15):
            axis = self.pick(["v", "arch"])
            values_ = self.rng.sample(["a", "b", "c-1", "gfx950"], self.rng.randint(1, 2))
            if self.chance(0.3):  # two axes
                lines.append(f'matrix = {{ {axis} = {json.dumps(values_)}, py = ["3", "4"] }}')
                lines.append(f'name = "{name}-${{{axis}}}-${{py}}"')
                self.generated += [f"{name}-{v}-{p}" for v in values_ for p in "34"]
            else:
                lines.append(f"matrix = {{ {axis} = {json.dumps(values_)} }}")
                lines.append(f'name = "{name}-${{{axis}}}"')
                self.generated += [f"{name}-{v}" for v in values_]
            if not any(line.startswith("args =") for line in lines):
                lines.append(f"args = {{ M = {axis} }}")
            self.matrix.append(name)
        self.targets.append(name)
        return Block(f'target "{name}" {{', tuple(lines))

    def target_field(self, fname: str, others: list[str]) -> str | None:
        if fname in ("args", "labels"):
            if self.chance(0.05):
                return f"{{ H = {self.heredoc()}\n}}"  # the marker ends its own line
            if others and self.chance(0.15):
                field_name = self.pick(["dockerfile", "context", "target"])
                return f"{{ R = target.{self.pick(others)}.{field_name} }}"
            return self.string_map()
        if fname == "tags":
            if others and self.chance(0.1):
                other = self.pick(others)
                return f'[for t in coalescelist(target.{other}.tags, ["z"]) : "${{t}}-x"]'
            return self.strings()
        if fname == "platforms":
            return json.dumps(self.rng.sample(PLATFORMS, self.rng.randint(0, 2)))
        if fname == "shm-size":
            return self.pick(['"128m"', '"1g"', '"2.5GiB"', '"10"', self.string()])
        if fname in ("context", "dockerfile", "target", "description"):
            if fname == "context" and self.chance(0.5):
                return self.pick(['"."', '"sub"', '"./a/../b/"', '"https://h/x.git"'])
            return self.string()
        if fname == "dockerfile-inline":
            return self.heredoc() if self.chance(0.7) else self.string()
        if fname in ("cache-from", "cache-to"):
            return "[" + ", ".join(self.pick(CACHES) for _ in range(self.rng.randint(0, 2))) + "]"
        if fname == "output":
            return "[" + ", ".join(self.pick(OUTPUTS) for _ in range(self.rng.randint(0, 2))) + "]"
        if fname in ("no-cache", "pull"):
            return self.boolean()
        if fname == "inherits" and others:
            parents = [t for t in self.targets if t not in self.matrix] or others
            return json.dumps(self.rng.sample(parents, self.rng.randint(1, min(2, len(parents)))))
        if fname == "contexts":
            items = []
            if others:
                items.append(f'base = "target:{self.pick(others)}"')
            items.append(self.pick(['img = "docker-image://alpine"', 'e = ""', 'l = "./ctx"']))
            return "{ " + ", ".join(items) + " }"
        if fname == "network":
            return self.pick(['"host"', '"none"', '"default"', "null"])
        if fname == "annotations":
            items = [self.pick(ANNOTATIONS) for _ in range(self.rng.randint(0, 2))]
            return "[" + ", ".join(items) + "]"
        if fname == "ulimits":
            return self.pick(['["nofile=1024:1024"]', '["core=0", "nproc=5:6"]', "[]",
                              '["nproc=5:4"]' if self.chance(0.2) else "[]"])
        if fname == "no-cache-filter":
            return self.pick(['["a", "b", "a"]', "[]", '["", "x"]'])
        if fname == "entitlements":
            return self.pick(['["network.host"]', '["security.insecure"]', "[]"])
        return None

    def group(self, index: int) -> Block:
        members = self.targets + [f"g{i}" for i in range(index)]
        chosen = self.rng.sample(members, self.rng.randint(1, min(3, len(members))))
        if self.chance(0.1):
            chosen = []  # an empty group (buildx refuses a group that names one)
        description = f"\n  description = {self.literal()}" if self.chance(0.2) else ""
        return Block(f'group "g{index}" {{{description}', (f"targets = {json.dumps(chosen)}",))

    # -- the command line -----------------------------------------------------------------
    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for name, kind in self.vars.items():
            if self.chance(0.3):
                env[name] = self.pick(ENV_VALUES if self.chance(0.3) else ENV_BY_KIND[kind])
            if self.chance(0.1):
                env[f"{name}_JSON"] = self.pick(['["a","b"]', '{"a":"1"}', "5", '"s"', "true",
                                                 '{"value":1,"type":"number"}', "[1", "null"])
        if self.chance(0.1):
            env["SOURCE_DATE_EPOCH"] = self.pick(["1700000000", "", "${x}"])
        if self.chance(0.2):
            env["FROMENV"] = self.pick(["e", "", "a,b"])
        return env

    def sets(self) -> list[str]:
        names = self.targets + self.generated
        out = []
        for _ in range(self.rng.choice([0, 0, 1, 2, 3])):
            t = self.pick([*names, *names, "*", "t*", "t[0-1]"]) if names else "*"
            t = "nope" if self.chance(0.03) else t
            out.append(self.pick([
                f"{t}.args.A={self.pick(SAFE_STRINGS)}", f"{t}.args.FROMENV",
                f"{t}.args.MISSING", f"{t}.labels.L=${{v}}", f"{t}.tags=r/s:1",
                f"{t}.tags+=r/s:2", f"{t}.platform+=linux/arm64", f"{t}.platform=linux/amd64",
                f"{t}.cache-from=u/a:c,u/b:c", f"{t}.cache-from+=type=local,src=/c",
                f"{t}.cache-to=type=inline", f"{t}.output=type=local,dest=o",
                f"{t}.output+=type=docker", f"{t}.no-cache=true", f"{t}.pull=maybe",
                f"{t}.context=sub", f"{t}.dockerfile=D", f"{t}.target=s", f"{t}.nope=1",
                f"{t}.annotations=k=v", f"{t}.network=host", f"{t}.args.A+=x",
                f"{t}.contexts.c=target:{t}", f"{t}.shm-size=1g", f"{t}.push=true",
                f"{t}.ulimits=nofile=1:1", f"{t}.entitlements+=network.host"]))
        pushes = [s for s in out if ".push=" in s or ".load=" in s]
        if pushes and any(".output" in s for s in out):
            out = [s for s in out if s not in pushes]
        return out

    def case(self) -> Case:
        blocks: list[Block] = []
        for i in range(self.rng.randint(0, 4)):
            blocks.append(self.variable(i))
        if self.chance(0.2):
            name = f"A{len(blocks)}"
            blocks.append(Block(f"{name} = {self.string(1)}"))
            self.vars[name] = "string"
        if self.chance(0.25):
            blocks.append(self.function(0))
        for i in range(self.rng.randint(1, 4)):
            blocks.append(self.target(i))
        for i in range(self.rng.choice([0, 0, 1, 2])):
            blocks.append(self.group(i))
        if self.chance(0.1):
            self.rng.shuffle(blocks)
        listing = self.chance(0.15)
        requested = [*self.targets, *[b.header.split('"')[1] for b in blocks
                                      if b.header.startswith("group")]]
        targets = (() if listing or self.chance(0.05) else
                   tuple(self.rng.sample(requested, self.rng.randint(1, min(3, len(requested))))))
        return Case(tuple(blocks), tuple(sorted(self.env().items())), tuple(self.sets()),
                    targets, listing)


TARGET_FIELDS = ["args", "labels", "tags", "platforms", "context", "dockerfile",
                 "dockerfile-inline", "cache-from", "cache-to", "output", "no-cache", "pull",
                 "inherits", "contexts", "target", "description", "network", "annotations",
                 "shm-size", "ulimits", "no-cache-filter", "entitlements", "args", "tags"]


def generate(seed: str) -> Case:
    return Generator(random.Random(seed)).case()


# -- running and comparing --------------------------------------------------------------------

PANIC = "buildx panicked: "


@dataclass
class Verdict:
    case: Case
    expected: Outcome
    got: Outcome
    crashed: bool = False

    @property
    def buildx_panicked(self) -> bool:
        """buildx crashed (a Go panic): no answer to compare with; counted apart."""
        return self.expected.error.startswith(PANIC)

    @property
    def agree(self) -> bool:
        if self.crashed:
            return False
        if self.got.ok != self.expected.ok:
            return False
        return not self.got.ok or groups_as_sets(self.got.data) == groups_as_sets(
            self.expected.data)

    @property
    def kind(self) -> str:
        """A short class for a disagreement: who failed, or where the outputs differ."""
        if self.crashed:
            return f"model crashed: {self.got.error.split(':')[0]}"
        if self.got.ok and not self.expected.ok:
            return f"model accepts, buildx rejects: {_error_class(self.expected.error)}"
        if self.expected.ok and not self.got.ok:
            return f"model rejects, buildx accepts: {_error_class(self.got.error)}"
        return "different output at " + _first_difference(groups_as_sets(self.got.data),
                                                            groups_as_sets(self.expected.data))


def _error_class(error: str) -> str:
    text = error.removeprefix("ERROR: ")
    text = text.split(": ", 1)[1] if text.count(":") >= 2 and "hcl:" in text else text
    return " ".join(text.split()[:6])


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                step = "*" if path in (".target", ".group") else key
                return _first_difference(a.get(key), b.get(key), f"{path}.{step}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b, strict=True):
            if x != y:
                return _first_difference(x, y, f"{path}[]")
    return path or "."


def check(case: Case, buildx: Buildx, workdir: Path) -> Verdict:
    return judge(case, buildx_outcome(case, buildx, workdir), workdir)


def buildx_outcome(case: Case, buildx: Buildx, workdir: Path) -> Outcome:
    """buildx's answer; a Go panic is kept as the error ``buildx panicked: ...``."""
    (workdir / "docker-bake.hcl").write_text(case.text)
    result = buildx.bake(case.args, workdir, dict(case.env))
    if result.returncode != 0 and "\npanic: " in "\n" + result.stderr:
        detail = result.stderr.split("panic: ", 1)[1].splitlines()[0]
        return Outcome(False, error=PANIC + detail)
    if result.returncode != 0:
        errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR:")]
        return Outcome(False, error=(errors or [result.stderr.strip()[-300:]])[-1])
    return Outcome(True, result.json())


def judge(case: Case, expected: Outcome, workdir: Path) -> Verdict:
    """Run the model on a case already written to ``workdir`` and compare with buildx's."""
    try:
        got = model(case.args, workdir, dict(case.env))
    except Exception as exc:  # a crash of the model is a disagreement, never a pass
        return Verdict(case, expected, Outcome(False, error=f"{type(exc).__name__}: {exc}"),
                       crashed=True)
    return Verdict(case, expected, got)


def shrink(verdict: Verdict, buildx: Buildx, workdir: Path) -> Verdict:
    """The smallest case (by removing blocks, lines, env, --set values, requested targets) that
    still disagrees in the same way."""
    kind = verdict.kind
    best = verdict

    def still(candidate: Case) -> Verdict | None:
        result = check(candidate, buildx, workdir)
        return result if not result.agree and result.kind == kind else None

    changed = True
    while changed:
        changed = False
        for candidate in _smaller(best.case):
            result = still(candidate)
            if result is not None:
                best, changed = result, True
                break
    return best


def _smaller(case: Case) -> Iterable[Case]:
    for i in range(len(case.blocks)):
        yield replace(case, blocks=case.blocks[:i] + case.blocks[i + 1:])
    for i in range(len(case.env)):
        yield replace(case, env=case.env[:i] + case.env[i + 1:])
    for i in range(len(case.sets)):
        yield replace(case, sets=case.sets[:i] + case.sets[i + 1:])
    for i in range(len(case.targets)):
        if len(case.targets) > 1:
            yield replace(case, targets=case.targets[:i] + case.targets[i + 1:])
    for b, block in enumerate(case.blocks):
        for i in range(len(block.lines)):
            smaller = replace(block, lines=block.lines[:i] + block.lines[i + 1:])
            yield replace(case, blocks=(*case.blocks[:b], smaller, *case.blocks[b + 1:]))
        for i in range(len(block.nested)):
            smaller = replace(block, nested=block.nested[:i] + block.nested[i + 1:])
            yield replace(case, blocks=(*case.blocks[:b], smaller, *case.blocks[b + 1:]))


@dataclass
class Report:
    total: int = 0
    agreed: int = 0
    disagreements: list[Verdict] = field(default_factory=list)
    buildx_failed: int = 0
    #: Cases where buildx itself crashed: nothing to compare, so not in ``total``.
    panics: list[Verdict] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.agreed / self.total if self.total else 1.0


def run(cases: list[Case], buildx: Buildx, workers: int = 4) -> Report:
    """Check every case: buildx runs in parallel threads, the model in this thread (the
    parser is not shared across threads). Disagreements are returned unshrunk."""
    report = Report()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=workers) as pool:
        dirs = [Path(tmp) / f"w{i}" for i in range(len(cases))]
        for d in dirs:
            d.mkdir()
        outcomes = pool.map(lambda i: buildx_outcome(cases[i], buildx, dirs[i]),
                            range(len(cases)))
        for index, expected in enumerate(outcomes):
            verdict = judge(cases[index], expected, dirs[index])
            if verdict.buildx_panicked:
                report.panics.append(verdict)
                continue
            report.total += 1
            report.buildx_failed += not expected.ok
            if verdict.agree:
                report.agreed += 1
            else:
                report.disagreements.append(verdict)
    return report
