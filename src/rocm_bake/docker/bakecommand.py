"""The one ``docker buildx bake`` command line: its argv, the environment it adds, and the
command as a shell line with secrets masked."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from rocm_bake.core import redact
from rocm_bake.docker.connection import Connection

_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_KEY$|^AWS_)", re.I)


MASK = "****"


@dataclass(frozen=True)
class BakeInvocation:
    """One ``docker buildx bake`` run: its argv and the environment variables it adds."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)

    def display(self) -> str:
        """The command as a shell line, secrets masked, ready to copy."""
        assignments = [f"{k}={shlex.quote(masked_value(k, v))}"
                       for k, v in sorted(self.env.items())]
        return " ".join([*assignments, *(shlex.quote(redact.text(a)) for a in self.argv)])


def masked_value(name: str, value: str) -> str:
    """A value to show for an environment variable: secrets never print."""
    return MASK if _SECRET_NAME.search(name) and value else redact.text(value)


@dataclass(frozen=True)
class BakeCommand:
    """Everything a ``docker buildx bake`` command line says; :meth:`argv` renders it. A
    variant (other progress, more grants, --no-cache) is ``dataclasses.replace`` of it."""

    files: Sequence[str]
    targets: Sequence[str]
    overrides: Sequence[str] = ()
    push: bool = False
    print_only: bool = False
    progress: str | None = None
    allow: Sequence[str] = ()
    metadata_file: str | None = None
    no_cache: bool = False
    connection: Connection = field(default_factory=Connection)

    def argv(self) -> list[str]:
        return bake_argv(self.files, self.targets, self.overrides, push=self.push,
                         print_only=self.print_only, progress=self.progress, allow=self.allow,
                         metadata_file=self.metadata_file, no_cache=self.no_cache,
                         docker=self.connection.argv())


def bake_argv(files: Sequence[str], targets: Sequence[str], overrides: Sequence[str] = (), *,
              push: bool = False, print_only: bool = False, progress: str | None = None,
              allow: Sequence[str] = (), metadata_file: str | None = None,
              no_cache: bool = False, docker: str | Sequence[str] = "docker") -> list[str]:
    """The argv for ``docker buildx bake`` with every option explicit; ``docker`` is the
    command, or a prefix that reaches one engine (:meth:`Connection.argv`)."""
    argv = [docker] if isinstance(docker, str) else list(docker)
    argv += ["buildx", "bake"]
    for path in files:
        argv += ["--file", path]
    if progress:
        argv += ["--progress", progress]
    if no_cache:
        argv.append("--no-cache")
    if metadata_file:
        argv += ["--metadata-file", metadata_file]
    for entitlement in dict.fromkeys(allow):
        argv += ["--allow", entitlement]
    for override in overrides:
        argv += ["--set", override]
    if push:
        argv.append("--push")
    if print_only:
        argv.append("--print")
    argv += list(targets)
    return argv
