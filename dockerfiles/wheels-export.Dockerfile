# wheels-export.Dockerfile - every wheel of one cell plus a pins file
# (target wheels-<arch>, output type=local,dest=dist/<arch>).
# Named contexts: base, torch, triton, aiter, cupy, nixl, vllm, lmcache; a skipped
# component is the `empty` target, whose /wheels is empty.
# hadolint ignore=DL3006
FROM base AS pins

ARG CELL_ARCH
ARG SKIPPED
ARG ROCM_VERSION
ARG BASE_IMAGE
ARG PYTHON_VERSION
ARG SCCACHE_VERSION
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
ARG AITER_REPO
ARG AITER_REF
ARG AITER_COMMIT
ARG CUPY_REF
ARG CUPY_COMMIT
ARG UCX_COMMIT
ARG UCX_REF
ARG NIXL_COMMIT
ARG NIXL_REF
ARG VLLM_COMMIT
ARG VLLM_REF
ARG LMCACHE_COMMIT
ARG LMCACHE_REF

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# One KEY=value line per pin (like vLLM's /app/versions.txt), for the release notes
# and for the drift checker.
RUN mkdir -p /out \
    && for name in CELL_ARCH SKIPPED ROCM_VERSION BASE_IMAGE PYTHON_VERSION SCCACHE_VERSION \
            PYTORCH_REPO PYTORCH_COMMIT PYTORCH_REF TORCHVISION_COMMIT TORCHVISION_REF \
            TORCHAUDIO_COMMIT TORCHAUDIO_REF TRITON_REPO TRITON_COMMIT TRITON_REF \
            AITER_REPO AITER_REF AITER_COMMIT CUPY_REF CUPY_COMMIT UCX_COMMIT UCX_REF \
            NIXL_COMMIT NIXL_REF VLLM_COMMIT VLLM_REF LMCACHE_COMMIT LMCACHE_REF; do \
        printf '%s=%s\n' "${name}" "${!name}"; \
    done > /out/rocm-bake-pins.txt

FROM scratch AS export
# torch ... lmcache are bake named contexts (target:<component>-<arch> or target:empty).
# hadolint ignore=DL3022
COPY --from=torch /wheels/ /
# hadolint ignore=DL3022
COPY --from=triton /wheels/ /
# hadolint ignore=DL3022
COPY --from=aiter /wheels/ /
# hadolint ignore=DL3022
COPY --from=cupy /wheels/ /
# hadolint ignore=DL3022
COPY --from=nixl /wheels/ /
# hadolint ignore=DL3022
COPY --from=vllm /wheels/ /
# hadolint ignore=DL3022
COPY --from=lmcache /wheels/ /
COPY --from=pins /out/rocm-bake-pins.txt /
