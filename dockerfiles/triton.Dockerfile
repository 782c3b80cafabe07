# triton.Dockerfile - the triton wheel (AMD's fork) for one cell (target triton-<arch>).
# Named contexts: base, torch.  Triton compiles GPU code at run time (JIT), so
# there is no arch knob here; torch is installed so the wheel is checked against
# the torch it will run with.
FROM base AS build

ARG TRITON_REPO
ARG TRITON_COMMIT
ARG TRITON_REF
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's constraints file (write-constraints.py): every later pip runs against it.  The
# cell's torch wheels are installed by sha256 (--wheels), everything else from the triton lock
# (locks/triton.txt, `inv lock`).
COPY locks/triton.txt /opt/rocm-bake/locks/triton.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt /deps/torch \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/triton.txt \
        -r /tmp/cell-wheels.txt
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

RUN fetch-source.sh "${TRITON_REPO}" "${TRITON_REF}" "${TRITON_COMMIT}" /src/triton

# setup.py moved from python/ to the repository root in Triton 3.x; the older layout is
# built from ./python (a bare `python` is read by pip as a requirement's name, not a
# directory: `inv rehearse` found it, "No matching distribution found for python").
# Built with Triton's profiler (Proton), as vllm-project/vllm docker/Dockerfile.rocm_72_base
# (v0.33.0 sdist; stage build_triton, line 123)
# builds it: TRITON_BUILD_PROTON left at Triton's default (ON), so the wheel carries
# triton/profiler (checked below).
# Note: Triton's setup downloads its LLVM build at this step, with no sha256 check (lint
# build-download, waived in lint/policy.toml until that sha256 can be recorded; vLLM pins it
# with TRITON_LLVM_SHA256 and TRITON_OFFLINE_BUILD=1).
WORKDIR /src/triton
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    src=. && if [ ! -f setup.py ]; then src=./python; fi \
    && with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels "${src}" \
    && python -c "import glob, zipfile; w = glob.glob('/wheels/triton-*.whl')[0]; \
assert any(n.startswith('triton/profiler/') for n in zipfile.ZipFile(w).namelist()), \
w + ' lacks triton/profiler (Proton): upstream builds it'; print(w)" \
    && write-constraints.py --wheels /tmp/triton-wheel.txt /opt/rocm-bake/constraints.txt /wheels \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/triton.txt \
        -r /tmp/triton-wheel.txt \
    && python -P -c "import torch, triton; print('triton', triton.__version__, 'torch', torch.__version__)"

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
