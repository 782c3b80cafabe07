# cupy.Dockerfile - CuPy built for HIP for one cell (target cupy-<arch>).
# Named context: base.  CuPy links only the HIP runtime/libraries, not torch.
FROM base AS build

ARG CUPY_REPO
ARG CUPY_REF
ARG CUPY_COMMIT
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

RUN fetch-source.sh "${CUPY_REPO}" "${CUPY_REF}" "${CUPY_COMMIT}" /src/cupy --submodules

# HCC_AMDGPU_TARGET (comma-separated) must be set: unset means the build host's GPU.
# CUPY_INSTALL_USE_HIP=1 selects the HIP build; the wheel is the distribution `cupy`.
# Build tools: cupy/cupy pyproject.toml at v14.2.0 ([build-system] requires "Cython>=3.2,<3.3",
# "numpy>=2.0", "setuptools>=77", "wheel"), installed by hand because of --no-build-isolation
# (install/cupy_builder/cupy_setup_build.py imports numpy; the freethreading_compatible
# Cython directive exists from Cython 3.1 on).  Pinned in requirements/cupy-build.txt;
# `inv lint` (conformance) checks them against that pyproject.toml.  Installed from the cupy
# lock made from it (locks/cupy.txt, `inv lock`), by version and sha256.
COPY locks/cupy.txt /opt/rocm-bake/locks/cupy.txt
WORKDIR /src/cupy
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${HCC_AMDGPU_TARGET}" && test -z "$(printf '%s' "${HCC_AMDGPU_TARGET}" | tr -dc ';')" \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/cupy.txt \
    && CUPY_INSTALL_USE_HIP=1 ROCM_HOME=/opt/rocm \
       CUPY_NUM_BUILD_JOBS="${MAX_JOBS}" \
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && ls -l /wheels/cupy*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
