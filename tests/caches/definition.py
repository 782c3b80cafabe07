"""A stand-in for an evaluated bake file (``rocm_bake.bake`` definition) in the cache tests:
declared variables with values, and the environment the build set."""

from __future__ import annotations


class Definition:
    """An evaluated bake file: declared variables with values, and what the build set."""

    def __init__(self, env: dict[str, str] | None = None, /, **values: object) -> None:
        self.values = values
        self.env = env or {}

    def variables(self) -> list[object]:
        return [type("V", (), {"name": k})() for k in self.values]

    def value(self, name: str) -> object:
        return self.values[name]
