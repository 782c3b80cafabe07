"""A throwaway component added the way ARCHITECTURE.md's "A component" says: ``hip-attn``,
ROCm's flash-attention (CK backend on gfx950, Triton backend on gfx1201, gfx1250 skipped) under
a name of its own, whose wheel is named unlike the component (``amd_hipattn``) and which the
vLLM image installs. It is written into a copy of the repository by hand-edits to three files
only -- the bake file, its own Dockerfile, and the consumer's Dockerfile (vllm.Dockerfile: its
``wheels`` stage carries the wheel, so the vLLM image installs it and the wheels export gets it
through the vLLM cell) -- then everything else regenerated.  Nothing builds it: its pins and
source are made up but read like a real one's (the drift check finds them in the fixture of
ROCm/flash-attention's tags).

Each hand-edit is a named ``Edit``; ``apply(root, leave_out=...)`` writes them all but the ones
named, so a test can forget exactly one thing and see the error that names it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

NAME = "hip-attn"
DOCKERFILE = f"dockerfiles/{NAME}.Dockerfile"
BAKE = "rocm-bake.hcl"
CONSUMER = "dockerfiles/vllm.Dockerfile"
WHEEL = "amd_hipattn"


@dataclass(frozen=True)
class Edit:
    """Insert ``text`` into ``file`` before the first line that starts with ``before``."""

    name: str
    file: str
    before: str
    text: str
    instead: str = ""        # what stands there when the edit is left out


COMMIT_DESCRIPTION = ('  description = "flash-attention commit (the commit of tag '
                      'v2.8.0-cktile)."\n')

EDITS = (
    Edit("pins", BAKE, "# Per-arch reality", """\
variable "HIP_ATTN_REPO" {
  type        = string
  default     = "https://github.com/ROCm/flash-attention.git"
  description = "flash-attention source repository (ROCm's fork: CK and Triton backends)."
}

variable "HIP_ATTN_COMMIT" {
  type        = string
  default     = "0123456789abcdef0123456789abcdef01234567"
@@DESCRIPTION@@
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", HIP_ATTN_COMMIT))
    error_message = "HIP_ATTN_COMMIT must be a full 40-hex commit."
  }
}

variable "HIP_ATTN_REF" {
  type        = string
  default     = "v2.8.0-cktile"
  description = "Human ref of HIP_ATTN_COMMIT."
}

"""),
    Edit("description", BAKE, "@@DESCRIPTION@@", COMMIT_DESCRIPTION),
    Edit("source", BAKE, "# Per-arch reality", """\
# Where this pin comes from (read by `inv version-check`).
HIP_ATTN_COMMIT_SOURCE = {
  git  = HIP_ATTN_REPO
  tags = "^v(?P<version>[0-9]+\\\\.[0-9]+\\\\.[0-9]+)-cktile$"
}

"""),
    Edit("skip", BAKE, '  "gfx1250/lmcache"', """\
  "gfx1250/hip-attn" = "needs the cell's torch, which gfx1250 has no build of on ROCm 7.2.3"
"""),
    Edit("archs", BAKE, "  wheels  = CELL_ARCHS", """\
  "hip-attn" = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/hip-attn")]
"""),
    Edit("version-tag", BAKE, "  lmcache = \"${trimprefix(LMCACHE_REF", """\
  "hip-attn" = "${trimprefix(HIP_ATTN_REF, "v")}-git${substr(HIP_ATTN_COMMIT, 0, 8)}"
"""),
    Edit("cache-key", BAKE, "  lmcache = LMCACHE_COMMIT", """\
  "hip-attn" = HIP_ATTN_COMMIT
"""),
    Edit("pins-map", BAKE, "  LMCACHE_COMMIT     = LMCACHE_COMMIT", """\
  HIP_ATTN_COMMIT  = HIP_ATTN_COMMIT
  HIP_ATTN_REF     = HIP_ATTN_REF
"""),
    Edit("target", BAKE, "# Every wheel of one cell, plus rocm-bake-pins.txt", """\
# flash-attention: the CK backend where Composable Kernel builds (gfx950), the Triton
# backend elsewhere.
target "hip-attn" {
  matrix     = { arch = ARCHS["hip-attn"] }
  name       = "hip-attn-${arch}"
  inherits   = ["_compile", "_cell-hip-attn-${arch}"]
  dockerfile = "hip-attn.Dockerfile"
  target     = "wheels"
  contexts = {
    base  = "target:base-${arch}"
    torch = "target:torch-${arch}"
  }
@@ARGS@@
    HIP_ATTN_REPO    = HIP_ATTN_REPO
    HIP_ATTN_COMMIT  = HIP_ATTN_COMMIT
    HIP_ATTN_REF     = HIP_ATTN_REF
    HIP_ATTN_BACKEND = arch == "gfx950" ? "ck" : "triton"
  })
  labels = {
    "org.opencontainers.image.source"   = HIP_ATTN_REPO
    "org.opencontainers.image.revision" = HIP_ATTN_COMMIT
  }
}

"""),
    Edit("consumer-context", BAKE, "    nixl   = contains(ARCHS[\"nixl\"], arch)", """\
    "hip-attn" = contains(ARCHS["hip-attn"], arch) ? "target:hip-attn-${arch}" : "target:empty"
"""),
    Edit("arch-args", BAKE, "@@ARGS@@", "  args = merge(ARCH_ARGS[arch], {\n",
         instead="  args = merge({\n"),
    Edit("all", BAKE, "    [for a in ARCHS[\"wheels\"] : \"wheels-${a}\"],", """\
    [for a in ARCHS["hip-attn"] : "hip-attn-${a}"],
"""),
    Edit("group", BAKE, 'group "wheels" {', """\
group "hip-attn" {
  description = "flash-attention wheel (CK backend on gfx950, Triton backend on gfx1201)"
  targets     = [for a in ARCHS["hip-attn"] : "hip-attn-${a}"]
}

"""),
    Edit("wheels", BAKE, "  vllm   = [\"vllm\", \"amdsmi\"]", """\
  "hip-attn" = ["amd-hipattn"]
"""),
    Edit("upstream-stage", BAKE, "  lmcache = []", """\
  "hip-attn" = []
"""),
    Edit("consumers", BAKE, "  vllm   = [\"lmcache\"]", """\
  "hip-attn" = ["vllm"]
"""),
    Edit("static-seconds", BAKE, "  wheels  = 60", """\
  "hip-attn" = 1800
"""),
    Edit("consumer-carries", CONSUMER, "COPY --from=amdsmi /wheels/amdsmi/ /wheels/", """\
COPY --from=hip-attn /wheels/ /wheels/
"""),
)


HIP_ATTN_DOCKERFILE = """\
# hip-attn.Dockerfile - the throwaway hip-attn: ROCm's flash-attention as the distribution
# amd-hipattn (wheel amd_hipattn-*.whl), for one cell (target hip-attn-<arch>).
# Named contexts: base, torch.  HIP_ATTN_BACKEND: ck (Composable Kernel) or triton.
FROM base AS build

ARG HIP_ATTN_REPO
ARG HIP_ATTN_COMMIT
ARG HIP_ATTN_REF
ARG HIP_ATTN_BACKEND
@@ARCH@@
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's constraints file (write-constraints.py): every later pip runs against it.  The
# cell's torch wheels by sha256 (--wheels), everything else from the component's lock
# (locks/hip-attn.txt: `inv regen` takes it from a lock of the very same inputs).
COPY locks/hip-attn.txt /opt/rocm-bake/locks/hip-attn.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \\
    write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt /deps/torch \\
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/hip-attn.txt \\
        -r /tmp/cell-wheels.txt
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

RUN fetch-source.sh "${HIP_ATTN_REPO}" "${HIP_ATTN_REF}" "${HIP_ATTN_COMMIT}" /src/fa

WORKDIR /src/fa
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \\
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \\
    --mount=type=secret,id=sccache \\
    test -n "${PYTORCH_ROCM_ARCH}" \\
    && triton="$([ "${HIP_ATTN_BACKEND}" = triton ] && echo TRUE || echo FALSE)" \\
    && FLASH_ATTENTION_TRITON_AMD_ENABLE="${triton}" \\
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \\
    && ls -l /wheels/amd_hipattn-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
"""


# The arch knobs its build stage reads (each passed by ARCH_ARGS in the bake file).
ARCH_ARGS = "ARG PYTORCH_ROCM_ARCH\nARG GPU_ARCHS\nARG HCC_AMDGPU_TARGET\n"


def insert(root: Path, edits: Sequence[Edit], leave_out: Collection[str]) -> list[str]:
    """Write ``edits`` into the checkout at ``root``, all but those named in ``leave_out``
    (an edit left out writes its ``instead``); the files touched, relative."""
    touched: list[str] = []
    for edit in edits:
        path = root / edit.file
        text = path.read_text(encoding="utf-8")
        insert = edit.instead if edit.name in leave_out else edit.text
        if edit.before.startswith("@@") and edit.before not in text:
            continue          # its placeholder is in an edit left out
        index = text.find("\n" + edit.before) + 1 if not text.startswith(edit.before) else 0
        assert index > 0 or text.startswith(edit.before), f"{edit.file}: no {edit.before!r}"
        if edit.before.startswith("@@"):      # a placeholder: replaced, not kept
            text = text[:index] + insert + text[index + len(edit.before) + 1:]
        else:
            text = text[:index] + insert + text[index:]
        path.write_text(text, encoding="utf-8")
        if edit.file not in touched:
            touched.append(edit.file)
    return touched


def apply(root: Path, leave_out: Collection[str] = ()) -> list[str]:
    """Write the component into the checkout at ``root``, all but the edits named in
    ``leave_out`` (names of ``EDITS``, or ``"dockerfile"``); the files touched, relative."""
    unknown = set(leave_out) - {e.name for e in EDITS} - {"dockerfile", "dockerfile-arch"}
    assert not unknown, f"no such edit: {sorted(unknown)}"
    touched = insert(root, EDITS, leave_out)
    if "dockerfile" not in leave_out:
        arch = "" if "dockerfile-arch" in leave_out else ARCH_ARGS
        (root / DOCKERFILE).write_text(HIP_ATTN_DOCKERFILE.replace("@@ARCH@@\n", arch),
                                       encoding="utf-8")
        touched.append(DOCKERFILE)
    return touched
