"""A task's flags declared once: one dataclass field per flag, with its default and its
``--help`` line beside it (``flag``). ``tasks/_cli.py`` makes the task's parameters from the
fields and maps what invoke parsed back onto the dataclass; the library reads the dataclass.

The field's metadata says how it is spelled on the command line:

- ``help``: the flag's ``--help`` line;
- ``name``: the flag's name when it is not the field's (``--file`` for ``files``);
- ``many``: a repeatable flag (the field is a list, ``[]`` unless given);
- ``optional``: a flag whose value may be left out (``--images`` or ``--images=HOST``): the
  field is ``None`` when the flag is absent, ``""`` when it is given alone;
- ``choices``: no flag of its own, one boolean flag per value (``--json``, ``--markdown``),
  each with its help line; the first one given is the field's value, else its default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

HELP, NAME, MANY, OPTIONAL, CHOICES = "help", "name", "many", "optional", "choices"


def flag(default: Any, help: str = "", *, name: str = "", optional: bool = False,
         choices: Mapping[str, str] | None = None) -> Any:
    """A dataclass field that is a flag. A list default (``[]``) makes a repeatable flag."""
    many = isinstance(default, list)
    if many and default:
        raise ValueError("a repeatable flag's default is [] (nothing given)")
    if not help and not choices:
        raise ValueError("a flag has a help line (or one per choice)")
    metadata = {HELP: help, NAME: name, MANY: many, OPTIONAL: optional,
                CHOICES: dict(choices or {})}
    if many:
        return dataclasses.field(default_factory=list, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def flags(settings: type[Any]) -> list[dataclasses.Field[Any]]:
    """The fields of the dataclass ``settings`` that are flags, in declaration order."""
    return [f for f in dataclasses.fields(settings) if HELP in f.metadata]
