"""Abbreviated pins: a commit pin that carries upstream's abbreviated form because no full
commit could be had where it was pinned, declared as such in the bake file's top-level list
``ABBREVIATED``, a variable (so that a pin's validation can allow its short form:
``can(regex("^[0-9a-f]{40}$", X_COMMIT)) || contains(ABBREVIATED, "X_COMMIT")``; buildx lets a
validation read variables only), whose one-line list default names ``*_COMMIT`` variables.
Its branch is the pin's ``*_REF``; the build's source fetch resolves it there (fetch-source.sh,
failing when it is ambiguous or not on that branch) and records the full commit in the versions
manifest; ``inv lint`` warns about each one; ``inv bump --resolve`` replaces each by its full
commit where the host is reachable (and takes it off the list)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_bake.model.bakefile import Definition
from rocm_bake_checks.bump import hcledit
from rocm_bake_checks.bump.plan import BumpError
from rocm_bake_checks.lint import pins

if TYPE_CHECKING:
    from rocm_bake_checks.bump.run import Options

LIST = pins.ABBREVIATED
COMMAND = "inv bump --resolve"
_BLOCK = re.compile(rf'^variable\s+"{LIST}"\s*\{{\s*$')
_DEFAULT = re.compile(r"^(\s*default\s*=\s*)\[[^\]]*\](\s*)$")


def declared(definition: Definition) -> list[str]:
    """The pins the bake file declares abbreviated (none when it has no ``ABBREVIATED``)."""
    return pins.abbreviated(definition)


def warnings(definition: Definition) -> list[str]:
    """One line per abbreviated pin, naming the command that makes it full."""
    out = []
    for name in declared(definition):
        value = definition.value(name)
        ref = _ref(name)
        if isinstance(value, str) and len(value) == 40:
            out.append(f"{name} is full ({value}) but declared in {LIST}: take it off the list "
                       "(a full pin is never shortened)")
            continue
        out.append(f"{name} = {value!r} is upstream's abbreviated commit (declared in {LIST}); "
                   f"the build resolves it on {ref}: where the host is reachable, "
                   f"`{COMMAND}` replaces it with the full commit")
    return out


def _ref(name: str) -> str:
    return name.removesuffix("_COMMIT") + "_REF"


def _repo(name: str) -> str:
    return name.removesuffix("_COMMIT") + "_REPO"


def rewrite_list(text: str, keep: list[str]) -> str:
    """The variable ``ABBREVIATED``'s one-line list default with only ``keep`` left."""
    lines = text.splitlines(keepends=True)
    inside = False
    for index, line in enumerate(lines):
        if _BLOCK.match(line):
            inside = True
        elif inside and line.startswith("}"):
            break
        elif inside and (found := _DEFAULT.match(line.rstrip("\r\n"))) is not None:
            names = ", ".join(f'"{k}"' for k in keep)
            ending = line[len(line.rstrip("\r\n")):]
            lines[index] = f"{found.group(1)}[{names}]{found.group(2)}{ending}"
            return "".join(lines)
    raise BumpError(f"variable {LIST} has no one-line list default: edit it by hand")


def resolve(options: Options) -> tuple[int, str]:
    """Each abbreviated pin to its full commit (on its _REF branch); nothing else moves."""
    from rocm_bake.core import atomic  # noqa: PLC0415
    from rocm_bake.model import bakefile  # noqa: PLC0415
    from rocm_bake_checks.drift import run as drift  # noqa: PLC0415
    from rocm_bake_checks.drift.fetch import UnavailableError  # noqa: PLC0415
    from rocm_bake_checks.drift.model import Explanation  # noqa: PLC0415
    from rocm_bake_checks.drift.session import Session  # noqa: PLC0415
    from rocm_bake_checks.drift.settings import DriftSettings  # noqa: PLC0415

    definition = bakefile.load([options.file], {})
    names = declared(definition)
    if not names:
        return 0, f"no abbreviated pin in {options.file} ({LIST} is empty or absent)\n"
    session = Session(drift.prepare(DriftSettings(
        files=[str(options.file)], rewrites=list(options.rewrites),
        cache_dir=options.cache_dir, timeout=options.timeout), {}))
    full: dict[str, str] = {}
    try:
        for name in names:
            url, short = str(definition.value(_repo(name))), str(definition.value(name))
            branch = str(definition.value(_ref(name)))
            session.git.plan(url, branch)
            try:
                full[name] = session.git.resolve(url, short, branch, Explanation())
            except UnavailableError as exc:
                raise BumpError(f"{name}: cannot resolve {short!r} on {branch} at "
                                f"{session.git.where(url)}: {exc}") from None
    finally:
        session.close()
    text = hcledit.rewrite(options.file.read_text(encoding="utf-8"), full, str(options.file))
    text = rewrite_list(text, [n for n in names if n not in full])
    from rocm_bake_checks.bump.run import verify  # noqa: PLC0415

    verify(options, text, full)
    lines = [f"{n}: {definition.value(n)} -> {c}" for n, c in full.items()]
    if not options.dry_run:
        atomic.write_text(options.file, text)
    return 0, "\n".join(lines) + "\n"
