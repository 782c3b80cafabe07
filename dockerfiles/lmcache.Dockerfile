# lmcache.Dockerfile - LMCache built for HIP (BUILD_WITH_HIP=1) for one cell
# (target lmcache-<arch>, stage runtime).  Named contexts: base, torch, triton, aiter, cupy,
# vllm (the cell's vLLM runtime image); aiter and cupy may be the `empty` target for cells
# that skip them.
#   build    builds the lmcache wheel in an environment that already holds the cell's vLLM
#   wheels   just that wheel (FROM scratch)
#   runtime  the vLLM runtime image + CuPy + LMCache, its versions manifest extended with
#            them; /wheels holds the vLLM and LMCache wheels
FROM base AS build

ARG LMCACHE_REPO
ARG LMCACHE_COMMIT
ARG LMCACHE_REF
ARG ROCM_VERSION
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's wheels by sha256 (--wheels), everything else from the lmcache lock
# (locks/lmcache.txt, `inv lock`: the vllm lock's inputs with LMCache's requirements/common.txt,
# resolved together and constrained to the vllm lock's pins, so the runtime stage below
# installs it over the vLLM image without moving anything vLLM installed; the vllm lock in turn
# honours LMCache's caps, e.g. opentelemetry-api<=1.40.0, prometheus_client<=0.24.1).
# The vLLM wheel requires each wheel its build pinned (vllm.Dockerfile's build stage, upstream's
# tools/vllm-rocm/pin_rocm_dependencies.py): torch, torchvision, torchaudio, triton, amd-aiter,
# amdsmi and flash-attn at the cell's versions, none of them on PyPI at those versions.  So this
# stage installs every one of them from the cell: the vllm context's /wheels carries vllm,
# amdsmi and flash-attn (vllm.Dockerfile's wheels stage), torch and triton come from their
# contexts, amd-aiter from the aiter context, as vllm-project/vllm docker/Dockerfile.rocm
# (commit 2cf0a6915ce544dc493a0990f2ea38d81601128a, VLLM_COMMIT) installs its release wheel
# only where the base wheels are installed (final stage, line 860: `uv pip install --system -r
# requirements/rocm.txt` of export_vllm, whose pins name them, over Dockerfile.rocm_base's
# wheels; its debs_wheel_release, line 279, carries build_aiter's wheel among them).
COPY locks/lmcache.txt /opt/rocm-bake/locks/lmcache.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \
    --mount=type=bind,from=vllm,source=/wheels,target=/deps/vllm \
    shopt -s nullglob \
    && write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/torch /deps/triton /deps/aiter /deps/cupy /deps/vllm \
    && PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt \
       pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/lmcache.txt \
        -r /tmp/cell-wheels.txt
# The cell's constraints file (write-constraints.py): every later pip runs against it.
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

RUN fetch-source.sh "${LMCACHE_REPO}" "${LMCACHE_REF}" "${LMCACHE_COMMIT}" /src/lmcache

# With BUILD_WITH_HIP=1, LMCache's setup.py adds requirements/rocm_core.txt to the wheel's
# install_requires: `cupy-rocm-7-0`, which writes the same site-packages/cupy/ as the cell's own
# `cupy` wheel and would silently replace it at install time.  The line is dropped before the
# build, the way vllm-project/vllm use_existing_torch.py drops the requirements the image's
# own builds satisfy (LMCache's docker/Dockerfile.rocm has no cupy build of its own, so it
# takes PyPI's).  The wheel's metadata is checked to hold no cupy-rocm requirement.
# Its version: the release tag with the local version +rocm<ROCm major.minor>, 0.5.3+rocm7.2,
# the version of upstream's ROCm release (GitHub release v0.5.3-rocm, lmcache-0.5.3+rocm7.2-*),
# set through SETUPTOOLS_SCM_PRETEND_VERSION as LMCache's own ROCm build does at
# LMCACHE_COMMIT (.github/workflows/build_rocm_artifacts.yml: "The ROCm wheel carries a
# +rocm7.2 local version", passed to .github/scripts/build_rocm_wheel.sh as
# SETUPTOOLS_SCM_PRETEND_VERSION; a pretended version is taken as written, past pyproject's
# local_scheme = "no-local-version").
# LMCache's NVIDIA-only requirements go and its numpy cap is relaxed, as upstream's later ROCm
# recipe does at this very LMCache commit: vllm-project/vllm v0.33.0 docker/Dockerfile.rocm_72,
# stage lmcache_source (lines 493-505: "Remove NVIDIA-only dependencies and accept the release
# image's NumPy version": cufile-python and nvtx deleted from requirements/common.txt,
# numpy<=2.2.6 rewritten to numpy<=2.3.5).
WORKDIR /src/lmcache
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${PYTORCH_ROCM_ARCH}" \
    && drop-requirement.py requirements/rocm_core.txt cupy-rocm-7-0 \
    && drop-requirement.py requirements/common.txt cufile-python nvtx \
    && set-requirement.py requirements/common.txt 'numpy<=2.2.6' 'numpy<=2.3.5' \
    && BUILD_WITH_HIP=1 CXX=hipcc TORCH_DONT_CHECK_COMPILER_ABI=1 \
       SETUPTOOLS_SCM_PRETEND_VERSION="${LMCACHE_REF#v}+rocm${ROCM_VERSION%.*}" \
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && python -c "import zipfile, glob; w = glob.glob('/wheels/lmcache-${LMCACHE_REF#v}+rocm${ROCM_VERSION%.*}-*.whl')[0]; \
z = zipfile.ZipFile(w); assert any(n.endswith('.so') for n in z.namelist()), 'LMCache wheel has no compiled HIP extension'; \
meta = [n for n in z.namelist() if n.endswith('.dist-info/METADATA')][0]; \
assert 'Requires-Dist: cupy-rocm' not in z.read(meta).decode(), 'LMCache wheel requires PyPI cupy-rocm'; print(w)"

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/

FROM vllm AS runtime

ARG ROCM_BAKE_PINS
# In the environment of the RUN below: pip then writes hash-based .pyc files.
ARG SOURCE_DATE_EPOCH

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

COPY locks/lmcache.txt /opt/rocm-bake/locks/lmcache.txt
RUN --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \
    --mount=type=bind,from=wheels,source=/wheels,target=/deps/lmcache \
    shopt -s nullglob \
    && write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/cupy /deps/lmcache \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/lmcache.txt \
        -r /tmp/cell-wheels.txt \
    && rm /tmp/cell-wheels.txt \
    && pip check \
    && write-manifest.py /opt/rocm-bake/versions.json /deps/cupy /deps/lmcache \
    && check-runtime.py --expect lmcache vllm cupy amdsmi \
    && python -P -c "import lmcache, vllm; print('lmcache on vllm', vllm.__version__)"

COPY --from=wheels /wheels/ /wheels/
