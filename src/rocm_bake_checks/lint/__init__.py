"""``inv lint``: hadolint, bake <-> Dockerfile consistency and the pin policy, computed from the
real bake model across every arch. The rule families, and their modules:

- ``hadolint``     hadolint on every Dockerfile, with the committed ``.hadolint.yaml``
- ``consistency``  args, named contexts, target stages, unused pins (``pinuse``), what a
                   component's declaration lacks (``components``)
- ``pins``         commits/refs/versions/digests, moving references, base images
- ``downloads``    sha256 on every download, exact versions on every pip install; fetches
                   what no pin fixes (``fetches``)
- ``caching``      compiler-cache hooks on every compiling RUN, none left in ENV; how each
                   component picks its compiler launcher (``launchers``)
- ``recipes``      what upstream's own ROCm builds do (import paths, constraints, ...)
- ``conformance``  each stage against its source's own build metadata at the pinned version
                   (``conformance``, ``upstream``: replayed from the committed snapshot); the
                   Dockerfiles against upstream's (``dockerconformance``, over
                   ``upstreamdocker`` and ``upstreamstages``: ``aptbase``, ``buildflags``,
                   ``buildsteps``, ``releasewheels``, ``runtimeenv``, ``runtimepip``); the
                   archs a cell is built for (``supportedarchs``)
- ``locks``        every pip install from the component's lock, with hashes; locks not stale
                   (``locks.rules``)
- ``resolution``   every image's pip installs, its parents' first, resolved offline by the
                   pinned uv against stand-in wheels (``locks.resolution``)

``locks/`` is also ``inv lock`` (the locks' inputs ``locks.inputs``, their format
``locks.file``, the locked distributions' metadata ``locks.metadata``, what a built wheel
requires ``locks.built``) and ``inv version-check --locks`` (``locks.newer``).

``runner`` runs the families; they read the bake model through ``bakemodel`` and the
Dockerfiles through ``dockerfile`` and ``stages``. Each finding (``findings``) prints as
``file:line: rule: message``; deliberate exceptions live, with their reasons, in
``src/rocm_bake_checks/lint/policy.toml`` (``policy``).
"""

from rocm_bake_checks.lint.findings import Finding, LintError
from rocm_bake_checks.lint.runner import FAMILIES, metadata_settings, run

__all__ = ["FAMILIES", "Finding", "LintError", "metadata_settings", "run"]
