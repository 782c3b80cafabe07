"""A throwaway library component added the way ARCHITECTURE.md's "A component" says for a
library: ``rocm-runtime``, ROCr and CLR (``libhsa-runtime64``, ``libamdhip64``) built with CMake
from ROCm/rocm-systems at a full commit, as vLLM v0.33.0's docker/Dockerfile.rocm_72_base
builds them (stage ``build_rocm_runtime``, lines 325-371) and its final stage installs them
(``COPY --from=build_rocm_runtime /staging/ /opt/rocm/`` at line 428, ``RUN ldconfig`` at
line 442).  It builds no wheel: its target stage exports ``/staging`` (``LIBRARIES``), and the
vLLM image copies that into /opt/rocm and runs ldconfig.  Three hand-edited files -- the bake
file, its own Dockerfile, the consumer's Dockerfile (vllm.Dockerfile's runtime stage) -- and
nothing builds it: the pins read like the real ones (ROCM_RUNTIME_COMMIT is upstream's), the
rest is made up.

Each hand-edit is a named ``Edit`` (newcomponent.py's); ``apply(root, leave_out=...)`` writes
them all but the ones named, and ``FAULTS`` are the Dockerfile's wrong forms a test can pick
(``apply(root, fault="fetch-branch")``).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from tests.components.newcomponent import BAKE, Edit, insert

NAME = "rocm-runtime"
DOCKERFILE = f"dockerfiles/{NAME}.Dockerfile"
CONSUMER = "dockerfiles/vllm.Dockerfile"
LIBRARIES = ("libhsa-runtime64", "libamdhip64")
SKIP_REASON = ("upstream builds ROCr + CLR only in its ROCm 7.2 base (vLLM v0.33.0 "
               "docker/Dockerfile.rocm_72_base build_rocm_runtime), not for gfx1250; its one "
               "consumer, vLLM, skips gfx1250")

EDITS = (
    Edit("pins", BAKE, "# Per-arch reality", """\
variable "ROCM_RUNTIME_REPO" {
  type        = string
  default     = "https://github.com/ROCm/rocm-systems.git"
  description = "ROCm's systems monorepo (ROCr, CLR, HIP), upstream's ROCM_SYSTEMS_REPO."
}

variable "ROCM_RUNTIME_COMMIT" {
  type        = string
  default     = "af70edc91f1dc5d228fd4c076df99e65e49c4521"
  description = "rocm-systems commit of ROCr and CLR (upstream's ROCM_RUNTIME_COMMIT)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", ROCM_RUNTIME_COMMIT))
    error_message = "ROCM_RUNTIME_COMMIT must be a full 40-hex commit."
  }
}

variable "ROCM_RUNTIME_REF" {
  type        = string
  default     = "release/rocm-rel-7.2"
  description = "Human ref of ROCM_RUNTIME_COMMIT; the commit is what is checked out."
}

# Where this pin comes from (read by `inv version-check`).
ROCM_RUNTIME_COMMIT_SOURCE = {
  git    = ROCM_RUNTIME_REPO
  branch = ROCM_RUNTIME_REF
}

"""),
    Edit("skip", BAKE, '  "gfx1250/lmcache"', f"""\
  "gfx1250/rocm-runtime" = "{SKIP_REASON}"
""", instead='  "gfx1250/rocm-runtime" = ""\n'),
    Edit("archs", BAKE, "  wheels  = CELL_ARCHS", """\
  "rocm-runtime" = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/rocm-runtime")]
"""),
    Edit("version-tag", BAKE, "  lmcache = \"${trimprefix(LMCACHE_REF", """\
  "rocm-runtime" = "git${substr(ROCM_RUNTIME_COMMIT, 0, 8)}"
"""),
    Edit("no-gpu-code", BAKE, "  nixl   = \"UCX and NIXL",
         '  "rocm-runtime" = "ROCr and CLR are the host runtime; upstream\'s build_rocm_runtime '
         'passes no GPU arch (vLLM v0.33.0 docker/Dockerfile.rocm_72_base)"\n'),
    Edit("libraries", BAKE, "UPSTREAM_STAGE = {", """\
LIBRARIES = {
  "rocm-runtime" = ["libhsa-runtime64", "libamdhip64"]
}
"""),
    # The pinned upstream (vLLM v0.28.0) builds no ROCr; v0.33.0's build_rocm_runtime is the
    # default stage of the name (build_<name>), so the entry goes when the pin moves.
    Edit("upstream-stage", BAKE, "  lmcache = []", """\
  "rocm-runtime" = []
"""),
    Edit("consumers", BAKE, "  vllm   = [\"lmcache\"]", """\
  "rocm-runtime" = ["vllm"]
"""),
    Edit("static-seconds", BAKE, "  wheels  = 60", """\
  "rocm-runtime" = 1200
"""),
    Edit("cache-key", BAKE, "  lmcache = LMCACHE_COMMIT", """\
  "rocm-runtime" = ROCM_RUNTIME_COMMIT
"""),
    Edit("pins-map", BAKE, "  LMCACHE_COMMIT     = LMCACHE_COMMIT", """\
  ROCM_RUNTIME_COMMIT = ROCM_RUNTIME_COMMIT
  ROCM_RUNTIME_REF    = ROCM_RUNTIME_REF
"""),
    Edit("target", BAKE, "# Every wheel of one cell, plus rocm-bake-pins.txt", """\
# ROCr + CLR over the base image's ROCm, a library the vLLM image installs (vLLM v0.33.0
# docker/Dockerfile.rocm_72_base build_rocm_runtime).
target "rocm-runtime" {
  matrix     = { arch = ARCHS["rocm-runtime"] }
  name       = "rocm-runtime-${arch}"
  inherits   = ["_compile", "_cell-rocm-runtime-${arch}"]
  dockerfile = "rocm-runtime.Dockerfile"
  target     = "staging"
  contexts = {
    base = "target:base-${arch}"
  }
  args = {
    ROCM_RUNTIME_REPO   = ROCM_RUNTIME_REPO
    ROCM_RUNTIME_COMMIT = ROCM_RUNTIME_COMMIT
    ROCM_RUNTIME_REF    = ROCM_RUNTIME_REF
  }
  labels = {
    "org.opencontainers.image.source"   = ROCM_RUNTIME_REPO
    "org.opencontainers.image.revision" = ROCM_RUNTIME_COMMIT
  }
}

"""),
    Edit("consumer-context", BAKE, "    nixl   = contains(ARCHS[\"nixl\"], arch)",
         '    "rocm-runtime" = contains(ARCHS["rocm-runtime"], arch) ? '
         '"target:rocm-runtime-${arch}" : "target:empty"\n'),
    Edit("all", BAKE, "    [for a in ARCHS[\"wheels\"] : \"wheels-${a}\"],", """\
    [for a in ARCHS["rocm-runtime"] : "rocm-runtime-${a}"],
"""),
    Edit("group", BAKE, 'group "wheels" {', """\
group "rocm-runtime" {
  description = "ROCr and CLR (libhsa-runtime64, libamdhip64) from ROCm/rocm-systems"
  targets     = [for a in ARCHS["rocm-runtime"] : "rocm-runtime-${a}"]
}

"""),
    # The consumer: its image copies the prefix and registers it (upstream's final stage).
    Edit("consumer-installs", CONSUMER, "# The runtime environment of vllm-project/vllm's",
         """\
# ROCr + CLR of the rocm-runtime cell over the base image's, as vLLM v0.33.0's
# docker/Dockerfile.rocm_72_base final stage installs build_rocm_runtime's /staging (lines
# 428-442; `empty` where the cell skips it: nothing is copied).
COPY --from=rocm-runtime /staging/ /opt/rocm/
@@LDCONFIG@@
""", instead="""\
RUN --mount=type=bind,from=rocm-runtime,source=/staging,target=/deps/rocm-runtime \\
    ls -l /deps/rocm-runtime/lib
"""),
    Edit("consumer-ldconfig", CONSUMER, "@@LDCONFIG@@", "RUN ldconfig\n"),
)

FETCH = """\
RUN fetch-source.sh "${ROCM_RUNTIME_REPO}" "${ROCM_RUNTIME_REF}" "${ROCM_RUNTIME_COMMIT}" \\
        /src/rocm-systems
"""
# The Dockerfile's wrong forms, each in place of what it replaces.
FAULTS = {
    # the branch fetched, the commit only written down
    "fetch-branch": (FETCH, """\
RUN git init -q /src/rocm-systems \\
    && git -C /src/rocm-systems remote add origin "${ROCM_RUNTIME_REPO}" \\
    && git -C /src/rocm-systems fetch --depth 1 origin "${ROCM_RUNTIME_REF}" \\
    && git -C /src/rocm-systems checkout -q FETCH_HEAD \\
    && echo "${ROCM_RUNTIME_COMMIT}" > /src/rocm-systems/COMMIT
"""),
    # fetch-source.sh without the commit
    "fetch-no-commit": (FETCH, """\
RUN fetch-source.sh "${ROCM_RUNTIME_REPO}" "${ROCM_RUNTIME_REF}" "" /src/rocm-systems
"""),
    # the libraries left in the build stage: the target stage exports /wheels, as a wheel's
    "no-staging": ("COPY --from=build /staging/ /staging/\n",
                   "COPY --from=build /wheels/ /wheels/\n"),
}

ROCM_RUNTIME_DOCKERFILE = """\
# rocm-runtime.Dockerfile - the throwaway rocm-runtime: ROCr and CLR (libhsa-runtime64,
# libamdhip64) built with CMake from ROCm/rocm-systems at ROCM_RUNTIME_COMMIT, for one cell
# (target rocm-runtime-<arch>, stage staging: the libraries under /staging/lib).
# Named contexts: base.  Follows vLLM v0.33.0 docker/Dockerfile.rocm_72_base stage
# build_rocm_runtime (lines 325-371).
FROM base AS build

ARG ROCM_RUNTIME_REPO
ARG ROCM_RUNTIME_COMMIT
ARG ROCM_RUNTIME_REF
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

@@FETCH@@
# ROCr first, installed into /opt/rocm: the CLR build below needs its headers.
WORKDIR /src/rocm-systems/projects/rocr-runtime
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \\
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \\
    --mount=type=secret,id=sccache \\
    cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/rocm \\
        -DCMAKE_INSTALL_PREFIX=/opt/rocm \\
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \\
    && cmake --install build \\
    && cmake --install build --prefix /rocr-install --strip

WORKDIR /src/rocm-systems/projects/clr
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \\
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \\
    --mount=type=secret,id=sccache \\
    cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLR_BUILD_HIP=ON -DCLR_BUILD_OCL=OFF \\
        -DHIP_COMMON_DIR=/src/rocm-systems/projects/hip -DROCM_PATH=/opt/rocm \\
        -DCMAKE_PREFIX_PATH=/opt/rocm -DCMAKE_INSTALL_PREFIX=/opt/rocm \\
        -DHIP_LLVM_ROOT=/opt/rocm/llvm \\
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \\
    && cmake --install build --prefix /clr-install --strip

RUN mkdir -p /staging/lib \\
    && cp -P /rocr-install/lib/libhsa-runtime64.so* /clr-install/lib/libamdhip64.so* \\
        /staging/lib/ \\
    && ls -l /staging/lib/libhsa-runtime64.so* /staging/lib/libamdhip64.so*

FROM scratch AS staging
COPY --from=build /staging/ /staging/
"""


def dockerfile(fault: str = "") -> str:
    text = ROCM_RUNTIME_DOCKERFILE.replace("@@FETCH@@\n", FETCH)
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
