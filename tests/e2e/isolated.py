"""A machine state of a test's own, for the tests that start the project's engine themselves
(tests/e2e/firstuse, tests/e2e/test_engine_found.py).

No default engine, whatever the machine has: with no DOCKER_HOST, DOCKER_CONTEXT or
BUILDX_BUILDER and an empty DOCKER_CONFIG, the builder the default context reaches is the
engine on /var/run/docker.sock (a CI container often sees its runner's there). A test's PATH
starts with the `docker` that `mask_default_engine` writes: the real client in a private mount
namespace with an empty tmpfs over /var/run, so no docker command of the test reaches one and
the tasks find (or start) the project's engine, never skip.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

# The real docker client, with the default context's socket masked (see the module's text).
NO_DEFAULT_ENGINE = """#!/bin/sh
exec unshare --mount --propagation private -- \\
    sh -c 'mount -t tmpfs rocm-bake-no-default-engine /var/run && exec "$0" "$@"' {docker} "$@"
"""


def mask_default_engine(directory: Path) -> Path:
    """Write the masking `docker` into DIRECTORY (created) and return it, for the front of PATH."""
    directory.mkdir(parents=True, exist_ok=True)
    docker = shlex.quote(str(shutil.which("docker")))
    wrapper = directory / "docker"
    wrapper.write_text(NO_DEFAULT_ENGINE.format(docker=docker))
    wrapper.chmod(0o755)
    return directory


def assert_no_default_engine(env: Mapping[str, str]) -> None:
    """The default context, as the test's environment sees it, reaches no builder."""
    default = subprocess.run(["docker", "buildx", "inspect"], env=dict(env), capture_output=True,
                             text=True, timeout=60, check=False)
    assert not re.search(r"^Status:\s*running", default.stdout, re.M), \
        f"the default context still reaches a builder: {default.stdout}{default.stderr}"
    assert "/var/run/docker.sock" in default.stdout + default.stderr, default


@contextmanager
def held_port() -> Iterator[int]:
    """A loopback port for a test's registry, held until the block ends: bound with
    SO_REUSEADDR and never listening, so no other bind to port 0 and no outgoing connection
    is given it, while the registry (Go listens with SO_REUSEADDR) can still listen on it."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
