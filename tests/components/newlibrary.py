"""A throwaway library component added the way ARCHITECTURE.md's "A component" says for a
library: ``rocm-smi``, ROCm's SMI libraries (``librocm_smi64``, ``liboam``) built with CMake
from ROCm/rocm_smi_lib at a full commit, the shape of the real
``rocm-runtime`` component (vLLM v0.33.0's docker/Dockerfile.rocm_72_base build_rocm_runtime:
its final stage installs it with ``COPY --from=build_rocm_runtime /staging/ /opt/rocm/`` at
line 428 and ``RUN ldconfig`` at line 442).  It builds no wheel: its target stage exports
``/staging`` (``LIBRARIES``), and the vLLM image copies that into /opt/rocm and runs ldconfig.
Three hand-edited files -- the bake file, its own Dockerfile, the consumer's Dockerfile
(vllm.Dockerfile's runtime stage) -- and nothing builds it: upstream builds no such stage and
its pins are made up.

Each hand-edit is a named ``Edit`` (newcomponent.py's); ``apply(root, leave_out=...)`` writes
them all but the ones named, and ``FAULTS`` are the Dockerfile's wrong forms a test can pick
(``apply(root, fault="fetch-branch")``).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from tests.components.newcomponent import BAKE, Edit, insert

NAME = "rocm-smi"
DOCKERFILE = f"dockerfiles/{NAME}.Dockerfile"
CONSUMER = "dockerfiles/vllm.Dockerfile"
LIBRARIES = ("librocm_smi64", "liboam")
SKIP_REASON = ("its one consumer, vLLM, skips gfx1250 (a made-up reason of the throwaway "
               "library)")

EDITS = (
    Edit("pins", BAKE, "# Per-arch reality", """\
variable "ROCM_SMI_REPO" {
  type        = string
  default     = "https://github.com/ROCm/rocm_smi_lib.git"
  description = "ROCm SMI's repository (the throwaway library's source)."
}

variable "ROCM_SMI_COMMIT" {
  type        = string
  default     = "0123456789abcdef0123456789abcdef01234567"
  description = "rocm_smi_lib commit (made up)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", ROCM_SMI_COMMIT))
    error_message = "ROCM_SMI_COMMIT must be a full 40-hex commit."
  }
}

variable "ROCM_SMI_REF" {
  type        = string
  default     = "release/rocm-rel-7.2"
  description = "Human ref of ROCM_SMI_COMMIT; the commit is what is checked out."
}

# Where this pin comes from (read by `inv version-check`).
ROCM_SMI_COMMIT_SOURCE = {
  git    = ROCM_SMI_REPO
  branch = ROCM_SMI_REF
}

"""),
    Edit("skip", BAKE, '  "gfx1250/lmcache"', f"""\
  "gfx1250/rocm-smi" = "{SKIP_REASON}"
""", instead='  "gfx1250/rocm-smi" = ""\n'),
    Edit("archs", BAKE, "  wheels  = CELL_ARCHS", """\
  "rocm-smi" = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/rocm-smi")]
"""),
    Edit("version-tag", BAKE, "  lmcache = \"${trimprefix(LMCACHE_REF", """\
  "rocm-smi" = "git${substr(ROCM_SMI_COMMIT, 0, 8)}"
"""),
    Edit("no-gpu-code", BAKE, "  nixl   = \"UCX and NIXL",
         '  "rocm-smi" = "ROCm SMI is host code: its build passes no GPU arch"\n'),
    Edit("libraries", BAKE, '  "rocm-runtime" = ["libhsa-runtime64"', """\
  "rocm-smi" = ["librocm_smi64", "liboam"]
"""),
    # Upstream builds no rocm-smi stage.
    Edit("upstream-stage", BAKE, "  lmcache = []", """\
  "rocm-smi" = []
"""),
    Edit("consumers", BAKE, "  vllm   = [\"lmcache\"]", """\
  "rocm-smi" = ["vllm"]
"""),
    Edit("static-seconds", BAKE, "  wheels  = 60", """\
  "rocm-smi" = 1200
"""),
    Edit("cache-key", BAKE, "  lmcache = LMCACHE_COMMIT", """\
  "rocm-smi" = ROCM_SMI_COMMIT
"""),
    Edit("pins-map", BAKE, "  LMCACHE_COMMIT     = LMCACHE_COMMIT", """\
  ROCM_SMI_COMMIT = ROCM_SMI_COMMIT
  ROCM_SMI_REF    = ROCM_SMI_REF
"""),
    Edit("target", BAKE, "# Every wheel of one cell, plus rocm-bake-pins.txt", """\
# ROCm SMI over the base image's ROCm, a library the vLLM image installs (throwaway).
target "rocm-smi" {
  matrix     = { arch = ARCHS["rocm-smi"] }
  name       = "rocm-smi-${arch}"
  inherits   = ["_compile", "_cell-rocm-smi-${arch}"]
  dockerfile = "rocm-smi.Dockerfile"
  target     = "staging"
  contexts = {
    base = "target:base-${arch}"
  }
  args = {
    ROCM_SMI_REPO   = ROCM_SMI_REPO
    ROCM_SMI_COMMIT = ROCM_SMI_COMMIT
    ROCM_SMI_REF    = ROCM_SMI_REF
  }
  labels = {
    "org.opencontainers.image.source"   = ROCM_SMI_REPO
    "org.opencontainers.image.revision" = ROCM_SMI_COMMIT
  }
}

"""),
    Edit("consumer-context", BAKE, "    nixl   = contains(ARCHS[\"nixl\"], arch)",
         '    "rocm-smi" = contains(ARCHS["rocm-smi"], arch) ? '
         '"target:rocm-smi-${arch}" : "target:empty"\n'),
    Edit("all", BAKE, "    [for a in ARCHS[\"wheels\"] : \"wheels-${a}\"],", """\
    [for a in ARCHS["rocm-smi"] : "rocm-smi-${a}"],
"""),
    Edit("group", BAKE, 'group "wheels" {', """\
group "rocm-smi" {
  description = "ROCm SMI (librocm_smi64, liboam) from ROCm/rocm_smi_lib"
  targets     = [for a in ARCHS["rocm-smi"] : "rocm-smi-${a}"]
}

"""),
    # The consumer: its image copies the prefix and registers it (upstream's final stage).
    Edit("consumer-installs", CONSUMER, "# The runtime environment of vllm-project/vllm's",
         """\
# ROCm SMI of the rocm-smi cell over the base image's, as the rocm-runtime cell's prefix is
# installed (`empty` where the cell skips it: nothing is copied).
COPY --from=rocm-smi /staging/ /opt/rocm/
@@LDCONFIG@@
""", instead="""\
RUN --mount=type=bind,from=rocm-smi,source=/staging,target=/deps/rocm-smi \\
    ls -l /deps/rocm-smi/lib
"""),
    Edit("consumer-ldconfig", CONSUMER, "@@LDCONFIG@@", "RUN ldconfig\n"),
)

FETCH = """\
RUN fetch-source.sh "${ROCM_SMI_REPO}" "${ROCM_SMI_REF}" "${ROCM_SMI_COMMIT}" \\
        /src/rocm_smi_lib
"""
# The Dockerfile's wrong forms, each in place of what it replaces.
FAULTS = {
    # the branch fetched, the commit only written down
    "fetch-branch": (FETCH, """\
RUN git init -q /src/rocm_smi_lib \\
    && git -C /src/rocm_smi_lib remote add origin "${ROCM_SMI_REPO}" \\
    && git -C /src/rocm_smi_lib fetch --depth 1 origin "${ROCM_SMI_REF}" \\
    && git -C /src/rocm_smi_lib checkout -q FETCH_HEAD \\
    && echo "${ROCM_SMI_COMMIT}" > /src/rocm_smi_lib/COMMIT
"""),
    # fetch-source.sh without the commit
    "fetch-no-commit": (FETCH, """\
RUN fetch-source.sh "${ROCM_SMI_REPO}" "${ROCM_SMI_REF}" "" /src/rocm_smi_lib
"""),
    # the libraries left in the build stage: the target stage exports /wheels, as a wheel's
    "no-staging": ("COPY --from=build /staging/ /staging/\n",
                   "COPY --from=build /wheels/ /wheels/\n"),
}

ROCM_SMI_DOCKERFILE = """\
# rocm-smi.Dockerfile - the throwaway rocm-smi: ROCm SMI (librocm_smi64, liboam) built with
# CMake from ROCm/rocm_smi_lib at ROCM_SMI_COMMIT, for one cell (target rocm-smi-<arch>,
# stage staging: the libraries under /staging/lib).  Named contexts: base.
FROM base AS build

ARG ROCM_SMI_REPO
ARG ROCM_SMI_COMMIT
ARG ROCM_SMI_REF
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

@@FETCH@@
WORKDIR /src/rocm_smi_lib
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \\
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \\
    --mount=type=secret,id=sccache \\
    cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/rocm \\
        -DCMAKE_INSTALL_PREFIX=/opt/rocm \\
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \\
    && cmake --install build --prefix /smi-install --strip

RUN mkdir -p /staging/lib \\
    && cp -P /smi-install/lib/librocm_smi64.so* /smi-install/lib/liboam.so* \\
        /staging/lib/ \\
    && ls -l /staging/lib/librocm_smi64.so* /staging/lib/liboam.so*

FROM scratch AS staging
COPY --from=build /staging/ /staging/
"""


def dockerfile(fault: str = "") -> str:
    text = ROCM_SMI_DOCKERFILE.replace("@@FETCH@@\n", FETCH)
    if fault:
        good, bad = FAULTS[fault]
        assert good in text, fault
        text = text.replace(good, bad, 1)
    return text


def apply(root: Path, leave_out: Collection[str] = (), fault: str = "") -> list[str]:
    """Write the library into the checkout at ``root``, all but the edits named in
    ``leave_out``, its Dockerfile with ``fault`` (a key of ``FAULTS``) if one is named; the
    files touched, relative."""
    unknown = set(leave_out) - {e.name for e in EDITS}
    assert not unknown, f"no such edit: {sorted(unknown)}"
    touched = insert(root, EDITS, leave_out)
    (root / DOCKERFILE).write_text(dockerfile(fault), encoding="utf-8")
    return [*touched, DOCKERFILE]
