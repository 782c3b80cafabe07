# torch.Dockerfile - torch, torchvision, torchaudio wheels for one cell
# (target torch-<arch>).  Named context: base (target:base-<arch>).
# Output: /wheels/*.whl in the final `wheels` stage.
FROM base AS build

ARG PYTORCH_REPO
ARG PYTORCH_COMMIT
ARG PYTORCH_REF
ARG PYTORCH_VERSION
ARG CMAKE_VERSION
ARG NINJA_VERSION
ARG TORCHVISION_REPO
ARG TORCHVISION_COMMIT
ARG TORCHVISION_REF
ARG TORCHAUDIO_REPO
ARG TORCHAUDIO_COMMIT
ARG TORCHAUDIO_REF
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# torch, torchvision and torchaudio are built with gcc-13 (installed by base.Dockerfile from
# the ubuntu-toolchain-r/test PPA), as vllm-project/vllm docker/Dockerfile.rocm_72_base (v0.33.0
# sdist) switches to it in build_pytorch (line 147, after its comment "torch 2.12 emits
# float->__bf16 libcalls (__truncsfbf2) absent from gcc-11 libgcc") and in
# build_pytorch_runtime (line 168), which torchvision and torchaudio build on.
# The compiler caches see the switch: with-compiler-cache.sh keys ccache on the compiler that
# runs at each call and updates the host wrappers' identity (written in the base with gcc-11's)
# before each command, for sccache.
RUN --network=none update-alternatives --install /usr/bin/gcc gcc /usr/bin/gcc-13 130 \
        --slave /usr/bin/g++ g++ /usr/bin/g++-13 \
    && gcc --version | grep -q ' 13\.' && g++ --version | grep -q ' 13\.'

# Sources at their pinned commits (submodules follow the superproject's pins).
RUN fetch-source.sh "${PYTORCH_REPO}" "${PYTORCH_REF}" "${PYTORCH_COMMIT}" /src/pytorch --submodules \
    && fetch-source.sh "${TORCHVISION_REPO}" "${TORCHVISION_REF}" "${TORCHVISION_COMMIT}" /src/vision \
    && fetch-source.sh "${TORCHAUDIO_REPO}" "${TORCHAUDIO_REF}" "${TORCHAUDIO_COMMIT}" /src/audio --submodules

# torch: hipify, then build the wheel for exactly this cell's arch
# (PYTORCH_ROCM_ARCH and MAX_JOBS are in the environment as ARGs).
# The import check runs with `python -P`: plain `python -c` puts the working directory first
# on sys.path, and in /src/pytorch the source tree's torch/ would shadow the installed wheel
# (torch/__init__.py: "...loaded the torch/_C folder of the PyTorch repository...").  Follows
# vllm-project/vllm docker/Dockerfile.rocm_72_base, which imports torch only outside the source
# tree (its build_pytorch_runtime stage).
# The torch wheel is installed with its requirements from the torch lock (locks/torch.txt,
# `inv lock`), the wheel itself by its sha256 (write-constraints.py --wheels).
# USE_MPI=1 with the base's libopenmpi-dev: torch.distributed's MPI backend, as the torch of
# vllm-project/vllm docker/Dockerfile.rocm_72_base (v0.33.0 sdist) has it; the import check fails if CMake did not find MPI (it would otherwise drop it silently).
# torch's own requirements (requirements.txt, which may include requirements-build.txt) are
# installed first, as vllm-project/vllm docker/Dockerfile.rocm_72_base (v0.33.0, line 151) does
# after its `pip install -U 'cmake<4' ninja`; ROCm/pytorch's requirements-build.txt pins
# cmake==4.0.0 on some branches, which would replace the base's cmake.  Their cmake and ninja
# lines go first (drop-requirement.py), so torch builds with CMAKE_VERSION and NINJA_VERSION,
# checked after.  They come from the torch lock, never the index: the lock is installed by
# sha256, then requirements.txt with --no-index, which only checks it against what is
# installed; a requirement the lock lacks (or pins otherwise) fails this step with pip's
# "ERROR: No matching distribution found for <requirement>" (add it to the lock: `inv lock`).
# The wheel's version is version.txt + "+git<7 hex>" (no PYTORCH_BUILD_VERSION, as upstream
# builds it): checked to be PYTORCH_VERSION+git<PYTORCH_COMMIT>, what vLLM's published ROCm 7.2
# images carry (2.13.0+git733fca1).
COPY locks/torch.txt /opt/rocm-bake/locks/torch.txt
WORKDIR /src/pytorch
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    for file in requirements.txt requirements-build.txt; do \
        for tool in cmake ninja; do \
            if [ -f "${file}" ] && grep -qiE "^${tool}([^A-Za-z0-9._-]|$)" "${file}"; then \
                drop-requirement.py "${file}" "${tool}"; \
            fi; \
        done; \
    done \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/torch.txt \
    && pip install --no-cache-dir --no-index -r requirements.txt \
    && python -P -c "from importlib.metadata import version as v; \
assert (v('cmake'), v('ninja')) == ('${CMAKE_VERSION}', '${NINJA_VERSION}'), (v('cmake'), v('ninja'))" \
    && python tools/amd_build/build_amd.py \
    && test -n "${PYTORCH_ROCM_ARCH}" \
    && USE_ROCM=1 USE_CUDA=0 USE_MPI=1 BUILD_TEST=0 CMAKE_BUILD_PARALLEL_LEVEL="${MAX_JOBS}" \
       CMAKE_PREFIX_PATH="$(python -c 'import sys; print(sys.prefix)')" \
       with-compiler-cache.sh python -m build --wheel --no-isolation --outdir /wheels . \
    && write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt /wheels \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/torch.txt \
        -r /tmp/cell-wheels.txt \
    && python -P -c "import torch, torch.distributed as dist; assert torch.version.hip, 'torch was built without HIP'; \
assert dist.is_mpi_available(), 'torch was built without MPI'; \
assert torch.__version__ == '${PYTORCH_VERSION}+git${PYTORCH_COMMIT:0:7}', torch.__version__; \
print(torch.__version__, torch.version.hip)"

# Every later pip in this cell runs against the cell's own wheels (write-constraints.py).
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

# torchvision and torchaudio against that torch (FORCE_CUDA=1: there is no GPU
# at build time, and without it torchvision skips its HIP extension).
# Both built with PYTORCH_VERSION out of the environment (`env -u`): pytorch/vision setup.py
# (get_requirements) and pytorch/audio setup.py (_get_pytorch_version) turn it into their
# wheels' Requires-Dist torch==PYTORCH_VERSION, which no cell's torch (2.13.0+git<hex>) meets.
# vllm-project/vllm docker/Dockerfile.rocm_72_base (v0.33.0 sdist) builds them in
# build_torchvision (line 176) and build_torchaudio (line 196), stages on
# build_pytorch_runtime that declare no
# PYTORCH_VERSION, so its wheels require plain `torch`.
WORKDIR /src/vision
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    FORCE_CUDA=1 USE_ROCM=1 env -u PYTORCH_VERSION \
    with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels .
WORKDIR /src/audio
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    USE_ROCM=1 env -u PYTORCH_VERSION \
    with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && python -P -c "import glob, zipfile; \
pinned = [w for w in glob.glob('/wheels/torch[av]*.whl') for z in [zipfile.ZipFile(w)] for n in z.namelist() \
if n.endswith('.dist-info/METADATA') and 'Requires-Dist: torch==' in z.read(n).decode()]; \
assert not pinned, f'{pinned} require torch==PYTORCH_VERSION'" \
    && ls -l /wheels

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
