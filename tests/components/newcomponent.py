"""A throwaway component added the way ARCHITECTURE.md's "A component" says: ROCm's
flash-attention (CK backend on gfx950, Triton backend on gfx1201, gfx1250 skipped), written
into a copy of the repository by hand-edits to three files only -- the bake file, its own
Dockerfile, and the consumer Dockerfile (wheels-export) -- then everything else regenerated.

Each hand-edit is a named ``Edit``; ``apply(root, leave_out=...)`` writes them all but the ones
named, so a test can forget exactly one thing and see the error that names it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

NAME = "sage-attn"
DOCKERFILE = f"dockerfiles/{NAME}.Dockerfile"
BAKE = "rocm-bake.hcl"
CONSUMER = "dockerfiles/wheels-export.Dockerfile"


@dataclass(frozen=True)
class Edit:
    """Insert ``text`` into ``file`` before the first line that starts with ``before``."""

    name: str
    file: str
    before: str
    text: str


COMMIT_DESCRIPTION = ('  description = "flash-attention commit (the commit of tag '
                      'v2.8.0-cktile)."\n')

EDITS = (
    Edit("pins", BAKE, "# Per-arch reality", """\
variable "SAGE_ATTN_REPO" {
  type        = string
  default     = "https://github.com/ROCm/flash-attention.git"
  description = "flash-attention source repository (ROCm's fork: CK and Triton backends)."
}

variable "SAGE_ATTN_COMMIT" {
  type        = string
  default     = "0123456789abcdef0123456789abcdef01234567"
@@DESCRIPTION@@
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", SAGE_ATTN_COMMIT))
    error_message = "SAGE_ATTN_COMMIT must be a full 40-hex commit."
  }
}

variable "SAGE_ATTN_REF" {
  type        = string
  default     = "v2.8.0-cktile"
  description = "Human ref of SAGE_ATTN_COMMIT."
}

"""),
    Edit("description", BAKE, "@@DESCRIPTION@@", COMMIT_DESCRIPTION),
    Edit("source", BAKE, "# Per-arch reality", """\
# Where this pin comes from (read by `inv version-check`).
SAGE_ATTN_COMMIT_SOURCE = {
  git  = SAGE_ATTN_REPO
  tags = "^v(?P<version>[0-9]+\\\\.[0-9]+\\\\.[0-9]+)-cktile$"
}

"""),
    Edit("skip", BAKE, '  "gfx1250/lmcache"', """\
  "gfx1250/sage-attn" = "needs the cell's torch, which gfx1250 has no build of on ROCm 7.2.3"
"""),
    Edit("archs", BAKE, "  wheels  = CELL_ARCHS", """\
  "sage-attn" = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/sage-attn")]
"""),
    Edit("version-tag", BAKE, "  lmcache = \"${trimprefix(LMCACHE_REF", """\
  "sage-attn" = "${trimprefix(SAGE_ATTN_REF, "v")}-git${substr(SAGE_ATTN_COMMIT, 0, 8)}"
"""),
    Edit("cache-key", BAKE, "  lmcache = LMCACHE_COMMIT", """\
  "sage-attn" = SAGE_ATTN_COMMIT
"""),
    Edit("pins-map", BAKE, "  LMCACHE_COMMIT     = LMCACHE_COMMIT", """\
  SAGE_ATTN_COMMIT  = SAGE_ATTN_COMMIT
  SAGE_ATTN_REF     = SAGE_ATTN_REF
"""),
    Edit("target", BAKE, "# Every wheel of one cell, plus rocm-bake-pins.txt", """\
# flash-attention: the CK backend where Composable Kernel builds (gfx950), the Triton
# backend elsewhere.
target "sage-attn" {
  matrix     = { arch = ARCHS["sage-attn"] }
  name       = "sage-attn-${arch}"
  inherits   = ["_compile", "_cell-sage-attn-${arch}"]
  dockerfile = "sage-attn.Dockerfile"
  target     = "wheels"
  contexts = {
    base  = "target:base-${arch}"
    torch = "target:torch-${arch}"
  }
  args = merge(ARCH_ARGS[arch], {
    SAGE_ATTN_REPO    = SAGE_ATTN_REPO
    SAGE_ATTN_COMMIT  = SAGE_ATTN_COMMIT
    SAGE_ATTN_REF     = SAGE_ATTN_REF
    SAGE_ATTN_BACKEND = arch == "gfx950" ? "ck" : "triton"
  })
  labels = {
    "org.opencontainers.image.source"   = SAGE_ATTN_REPO
    "org.opencontainers.image.revision" = SAGE_ATTN_COMMIT
  }
}

"""),
    Edit("wheels-context", BAKE, "    lmcache = contains(ARCHS[\"lmcache\"], arch)", """\
    "sage-attn" = (contains(ARCHS["sage-attn"], arch) ? "target:sage-attn-${arch}"
                    : "target:empty")
"""),
    Edit("all", BAKE, "    [for a in ARCHS[\"wheels\"] : \"wheels-${a}\"],", """\
    [for a in ARCHS["sage-attn"] : "sage-attn-${a}"],
"""),
    Edit("group", BAKE, 'group "wheels" {', """\
group "sage-attn" {
  description = "flash-attention wheel (CK backend on gfx950, Triton backend on gfx1201)"
  targets     = [for a in ARCHS["sage-attn"] : "sage-attn-${a}"]
}

"""),
    Edit("consumer-args", CONSUMER, "ARG LMCACHE_COMMIT", """\
ARG SAGE_ATTN_COMMIT
ARG SAGE_ATTN_REF
"""),
    Edit("consumer-mount", CONSUMER, "COPY --from=pins /out/ /", """\
COPY --from=sage-attn /wheels/ /
"""),
)

SAGE_ATTN_DOCKERFILE = """\
# sage-attn.Dockerfile - ROCm's flash-attention wheel for one cell (target sage-attn-<arch>).
# Named contexts: base, torch.  SAGE_ATTN_BACKEND: ck (Composable Kernel) or triton.
FROM base AS build

ARG SAGE_ATTN_REPO
ARG SAGE_ATTN_COMMIT
ARG SAGE_ATTN_REF
ARG SAGE_ATTN_BACKEND
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's constraints file (write-constraints.py): every later pip runs against it.  The
# cell's torch wheels by sha256 (--wheels), everything else from the component's lock
# (locks/sage-attn.txt: `inv regen` takes it from a lock of the very same inputs).
COPY locks/sage-attn.txt /opt/rocm-bake/locks/sage-attn.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \\
    write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt /deps/torch \\
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/sage-attn.txt \\
        -r /tmp/cell-wheels.txt
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

RUN fetch-source.sh "${SAGE_ATTN_REPO}" "${SAGE_ATTN_REF}" "${SAGE_ATTN_COMMIT}" /src/fa

WORKDIR /src/fa
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \\
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \\
    --mount=type=secret,id=sccache \\
    test -n "${PYTORCH_ROCM_ARCH}" \\
    && triton="$([ "${SAGE_ATTN_BACKEND}" = triton ] && echo TRUE || echo FALSE)" \\
    && FLASH_ATTENTION_TRITON_AMD_ENABLE="${triton}" \\
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \\
    && ls -l /wheels/sage_attn-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
"""


def apply(root: Path, leave_out: Collection[str] = ()) -> list[str]:
    """Write the component into the checkout at ``root``, all but the edits named in
    ``leave_out`` (names of ``EDITS``, or ``"dockerfile"``); the files touched, relative."""
    unknown = set(leave_out) - {e.name for e in EDITS} - {"dockerfile"}
    assert not unknown, f"no such edit: {sorted(unknown)}"
    touched: list[str] = []
    for edit in EDITS:
        path = root / edit.file
        text = path.read_text(encoding="utf-8")
        insert = "" if edit.name in leave_out else edit.text
        index = text.find("\n" + edit.before) + 1 if not text.startswith(edit.before) else 0
        assert index > 0 or text.startswith(edit.before), f"{edit.file}: no {edit.before!r}"
        if edit.before.startswith("@@"):      # a placeholder: replaced, not kept
            text = text[:index] + insert + text[index + len(edit.before) + 1:]
        else:
            text = text[:index] + insert + text[index:]
        path.write_text(text, encoding="utf-8")
        if edit.file not in touched:
            touched.append(edit.file)
    if "dockerfile" not in leave_out:
        (root / DOCKERFILE).write_text(SAGE_ATTN_DOCKERFILE, encoding="utf-8")
        touched.append(DOCKERFILE)
    return touched
