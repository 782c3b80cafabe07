# wheels-export.Dockerfile - every wheel of one cell plus its pins, versions manifest and
# compiler-cache statistics (target wheels-<arch>, output type=local,dest=dist/<arch>).
# Named contexts: base, torch, triton, aiter, cupy, nixl, vllm, lmcache; a skipped
# component is the `empty` target, whose /wheels is empty.
FROM base AS pins

ARG CELL_ARCH
ARG SKIPPED
ARG ROCM_BAKE_PINS

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# rocm-bake-pins.txt: one KEY=value line per pin (like vLLM's /app/versions.txt), the cell's
# arch and skips first, then every pin of the bake file's PINS (ROCM_BAKE_PINS, by name), so a
# new component's pins need no line here; versions.json: every pin and every wheel's version
# and sha256 (write-manifest.py).
RUN --network=none --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \
    --mount=type=bind,from=nixl,source=/wheels,target=/deps/nixl \
    --mount=type=bind,from=vllm,source=/wheels,target=/deps/vllm \
    --mount=type=bind,from=lmcache,source=/wheels,target=/deps/lmcache \
    mkdir -p /out \
    && { printf 'CELL_ARCH=%s\nSKIPPED=%s\n' "${CELL_ARCH}" "${SKIPPED}"; \
         python -P -c 'import json, os; pins = json.loads(os.environ["ROCM_BAKE_PINS"]); print("".join(f"{k}={pins[k]}\n" for k in sorted(pins)), end="")'; \
       } > /out/rocm-bake-pins.txt \
    && write-manifest.py /out/versions.json /deps/torch /deps/triton /deps/aiter /deps/cupy \
        /deps/nixl /deps/vllm /deps/lmcache

FROM scratch AS export
# torch ... lmcache are bake named contexts (target:<component>-<arch> or target:empty).
COPY --from=torch /wheels/ /
COPY --from=triton /wheels/ /
COPY --from=aiter /wheels/ /
COPY --from=cupy /wheels/ /
COPY --from=nixl /wheels/ /
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
