# wheels-export.Dockerfile - every wheel of one cell plus its pins, versions manifest and
# compiler-cache statistics (target wheels-<arch>, output type=local,dest=dist/<arch>).
# Named contexts: base, torch, triton, aiter, cupy, nixl, flash-attn, mori, vllm, lmcache; a skipped
# component is the `empty` target, whose /wheels is empty.
FROM base AS pins

ARG CELL_ARCH
ARG SKIPPED
ARG ROCM_BAKE_PINS
ARG ROCM_VERSION
ARG BASE_IMAGE
ARG PYTHON_VERSION
ARG SCCACHE_VERSION
ARG CMAKE_VERSION
ARG NINJA_VERSION
ARG RUST_VERSION
ARG PYTORCH_REPO
ARG PYTORCH_COMMIT
ARG PYTORCH_REF
ARG TORCHVISION_COMMIT
ARG TORCHVISION_REF
ARG TORCHAUDIO_COMMIT
ARG TORCHAUDIO_REF
ARG TRITON_REPO
ARG TRITON_COMMIT
ARG TRITON_REF
ARG TRITON_KERNELS_COMMIT
ARG TRITON_KERNELS_REF
ARG AITER_REPO
ARG AITER_REF
ARG AITER_COMMIT
ARG CUPY_REF
ARG CUPY_COMMIT
ARG UCX_COMMIT
ARG UCX_REF
ARG NIXL_COMMIT
ARG NIXL_REF
ARG FA_REPO
ARG FA_COMMIT
ARG FA_REF
ARG MORI_REPO
ARG MORI_REF
ARG MORI_COMMIT
ARG VLLM_COMMIT
ARG VLLM_REF
ARG LMCACHE_COMMIT
ARG LMCACHE_REF

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# rocm-bake-pins.txt: one KEY=value line per pin (like vLLM's /app/versions.txt);
# versions.json: every pin and every wheel's version and sha256 (write-manifest.py).
RUN --network=none --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \
    --mount=type=bind,from=nixl,source=/wheels,target=/deps/nixl \
    --mount=type=bind,from=flash-attn,source=/wheels,target=/deps/flash-attn \
    --mount=type=bind,from=mori,source=/wheels,target=/deps/mori \
    --mount=type=bind,from=vllm,source=/wheels,target=/deps/vllm \
    --mount=type=bind,from=lmcache,source=/wheels,target=/deps/lmcache \
    mkdir -p /out \
    && for name in CELL_ARCH SKIPPED ROCM_VERSION BASE_IMAGE PYTHON_VERSION SCCACHE_VERSION \
            CMAKE_VERSION NINJA_VERSION RUST_VERSION \
            PYTORCH_REPO PYTORCH_COMMIT PYTORCH_REF TORCHVISION_COMMIT TORCHVISION_REF \
            TORCHAUDIO_COMMIT TORCHAUDIO_REF TRITON_REPO TRITON_COMMIT TRITON_REF \
            TRITON_KERNELS_COMMIT TRITON_KERNELS_REF \
            AITER_REPO AITER_REF AITER_COMMIT CUPY_REF CUPY_COMMIT UCX_COMMIT UCX_REF \
            NIXL_COMMIT NIXL_REF FA_REPO FA_COMMIT FA_REF MORI_REPO MORI_REF MORI_COMMIT \
            VLLM_COMMIT VLLM_REF LMCACHE_COMMIT LMCACHE_REF; do \
        printf '%s=%s\n' "${name}" "${!name}"; \
    done > /out/rocm-bake-pins.txt \
    && write-manifest.py /out/versions.json /deps/torch /deps/triton /deps/aiter /deps/cupy \
        /deps/nixl /deps/flash-attn /deps/mori /deps/vllm /deps/lmcache

FROM scratch AS export
# torch ... lmcache (flash-attn and mori among them) are bake named contexts (target:<component>-<arch> or target:empty).
COPY --from=torch /wheels/ /
COPY --from=triton /wheels/ /
COPY --from=aiter /wheels/ /
COPY --from=cupy /wheels/ /
COPY --from=nixl /wheels/ /
COPY --from=flash-attn /wheels/ /
COPY --from=mori /wheels/ /
COPY --from=vllm /wheels/ /
COPY --from=lmcache /wheels/ /
COPY --from=pins /out/ /
# Compiler-cache statistics of the wheel-only stages (vllm and lmcache are runtime images:
# their statistics stay in the build log, so the images stay reproducible).
COPY --from=torch /compiler-cache/ /compiler-cache/
COPY --from=triton /compiler-cache/ /compiler-cache/
COPY --from=aiter /compiler-cache/ /compiler-cache/
COPY --from=cupy /compiler-cache/ /compiler-cache/
COPY --from=nixl /compiler-cache/ /compiler-cache/
COPY --from=flash-attn /compiler-cache/ /compiler-cache/
COPY --from=mori /compiler-cache/ /compiler-cache/
