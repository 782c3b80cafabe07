# vllm.Dockerfile - the vLLM runtime image of one cell (target vllm-<arch>, stage runtime).
# Named contexts: base, torch, triton, aiter, nixl, flash-attn, mori, rocm-runtime.  aiter, nixl,
# flash-attn, mori and rocm-runtime may be the `empty` target for cells that skip them; their
# /wheels (/staging) is then empty and the installs below simply find nothing there.
#   amdsmi   the amdsmi wheel of the base image's ROCm (/opt/rocm/share/amd_smi)
#   deps     the build's Python environment (the vllm lock + the cell's wheels) and the sources
#   rust     builds vLLM's Rust frontend (vllm-rs, vllm._rust_tool_parser) with a pinned Rust
#   build    builds the vllm wheel into /wheels, shipping the Rust frontend
#   wheels   just that wheel (FROM scratch)
#   mori_base  base + MoRI's RDMA NIC provider libraries (NIC_BACKEND, NIC_DEBS), as upstream's
#            mori_base
#   runtime  mori_base + every wheel of the cell installed + /opt/rocm-bake/versions.json
#            (every pin, every wheel's version and sha256); keeps its own wheel in /wheels,
#            the contract every consumer (lmcache, wheels-<arch>) bind-mounts
# amdsmi: vLLM detects ROCm with `import amdsmi` / amdsmi.amdsmi_init(); without it
# `vllm serve` finds no platform.  Built from the ROCm release of the base image, as
# vllm-project/vllm docker/Dockerfile.rocm_72_base does (build_amdsmi: pip wheel in
# /opt/rocm/share/amd_smi), never PyPI's amdsmi (a different ROCm release).
# (Pure Python over libamd_smi.so; with-compiler-cache.sh only keeps the cache rule uniform.)
FROM base AS amdsmi
ARG CACHE_TYPE
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
WORKDIR /opt/rocm/share/amd_smi
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    with-compiler-cache.sh pip wheel --no-cache-dir --no-build-isolation --no-deps -w /wheels/amdsmi . \
    && ls -l /wheels/amdsmi/amdsmi-*.whl

FROM base AS deps

ARG VLLM_COMMIT
ARG VLLM_REF
ARG VLLM_SDIST_URL
ARG VLLM_SDIST_SHA256
ARG TRITON_REPO
ARG TRITON_KERNELS_COMMIT
ARG TRITON_KERNELS_REF

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's own torch/triton/aiter/nixl/amdsmi, installed together by sha256 (--wheels) with
# everything else from the vllm lock -- vLLM's requirements/build/rocm.txt (less what
# use_existing_torch.py and drop-requirement.py take out below), requirements/rocm.txt and
# requirements/vllm-build.txt -- by version and sha256 (locks/vllm.txt, `inv lock`); then the
# cell's constraints file (write-constraints.py): every later pip runs against it, so no
# requirements file can swap in a PyPI (CUDA) torch or triton.
COPY locks/vllm.txt /opt/rocm-bake/locks/vllm.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=nixl,source=/wheels,target=/deps/nixl \
    --mount=type=bind,from=amdsmi,source=/wheels/amdsmi,target=/deps/amdsmi \
    shopt -s nullglob \
    && write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/torch /deps/triton /deps/aiter /deps/nixl /deps/amdsmi \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/vllm.txt \
        -r /tmp/cell-wheels.txt \
    && pip check
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

# vLLM's source: the release's sdist on PyPI (vllm-X.Y.Z.tar.gz, the source upstream released,
# with setup.py, CMakeLists.txt, csrc/, rust/, requirements/, docker/ and tools/vllm-rocm/), by
# its sha256; unpack-sdist.sh checks its version (VLLM_REF) and that the commit it records is
# VLLM_COMMIT's. A URL, verified by --checksum (hadolint takes an ADD of a variable for a file).
# hadolint ignore=DL3020
ADD --checksum=sha256:${VLLM_SDIST_SHA256} ${VLLM_SDIST_URL} /tmp/vllm-sdist.tar.gz
RUN unpack-sdist.sh /tmp/vllm-sdist.tar.gz /src/vllm "${VLLM_REF#v}" "${VLLM_COMMIT}"

# ROCm's triton_kernels for vLLM's CMake (TRITON_KERNELS_SRC_DIR), from the ROCm/triton
# commit vLLM pins; unset, vLLM's CMake fetches upstream triton-lang/triton's by git tag with
# no hash.  Follows vllm-project/vllm docker/Dockerfile.rocm_72 (stage rocm-triton-kernels,
# ENV TRITON_KERNELS_SRC_DIR=/opt/rocm-triton-kernels, and its check that
# cmake/external_projects/triton_kernels.cmake names the same commit).
RUN fetch-source.sh "${TRITON_REPO}" "${TRITON_KERNELS_REF}" "${TRITON_KERNELS_COMMIT}" \
        /src/rocm-triton \
    && mkdir -p /opt/rocm-triton-kernels \
    && cp -a /src/rocm-triton/python/triton_kernels/triton_kernels/. /opt/rocm-triton-kernels/ \
    && test -f /opt/rocm-triton-kernels/__init__.py \
    && grep -Fq "set(TRITON_KERNELS_TAG \"${TRITON_KERNELS_COMMIT}\")" \
        /src/vllm/cmake/external_projects/triton_kernels.cmake \
    && rm -rf /src/rocm-triton
ENV TRITON_KERNELS_SRC_DIR=/opt/rocm-triton-kernels

WORKDIR /src/vllm

# vLLM's Rust frontend, the way vllm-project/vllm docker/Dockerfile.rocm_72 (v0.33.0 sdist)
# builds it: its stages rust-toolchain (the rust-toolchain.toml toolchain, lines 198-218; no
# protoc since v0.33.0 compiles its protos with protox) and rust-build (`bash
# tools/build_rust.sh`, i.e. tools/build_rust.py --release, then `test -x vllm/vllm-rs`, lines
# 223-268), whose vllm/vllm-rs and vllm/_rust_*.so its build_vllm stage copies into the source
# tree for setup.py to ship (lines 349-351).  Every download is pinned by content:
# - the toolchain: RUST_URL by ADD --checksum (RUST_SHA256), where upstream runs
#   sh.rustup.rs and `rustup toolchain install 1.95`; its release must be the one
#   rust-toolchain.toml names;
# - the crates: rust/Cargo.lock, `cargo fetch --locked` (crates.io by the lock's checksums, git
#   dependencies by the lock's commits); the build itself runs offline (CARGO_NET_OFFLINE) and
#   must leave Cargo.lock as it was.
FROM deps AS rust

ARG RUST_VERSION
ARG RUST_URL
ARG RUST_SHA256
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
ENV CARGO_HOME=/opt/cargo \
    PATH=/opt/rust/bin:${PATH}

# A URL, verified by --checksum (hadolint takes an ADD of a variable for a local file).
# hadolint ignore=DL3020
ADD --checksum=sha256:${RUST_SHA256} ${RUST_URL} /tmp/rust.tar.xz
RUN --network=none channel="$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)" \
    && case "${RUST_VERSION}" in "${channel}" | "${channel}".*) ;; \
        *) echo "rust-toolchain.toml asks Rust ${channel}, RUST_VERSION is ${RUST_VERSION}" >&2; exit 1 ;; \
       esac \
    && mkdir /tmp/rust && tar -xJf /tmp/rust.tar.xz -C /tmp/rust --strip-components=1 \
    && /tmp/rust/install.sh --prefix=/opt/rust --disable-ldconfig \
        --components=rustc,cargo,rust-std-x86_64-unknown-linux-gnu \
    && rm -rf /tmp/rust /tmp/rust.tar.xz \
    && rustc --version && test "$(rustc --version | cut -d' ' -f2)" = "${RUST_VERSION}" \
    && cargo --version

RUN sha256sum rust/Cargo.lock > /tmp/cargo-lock.sha256 \
    && cargo fetch --locked --manifest-path rust/Cargo.toml

# sccache caches rustc through RUSTC_WRAPPER (as upstream's rust-build does with USE_SCCACHE=1);
# ccache cannot wrap rustc, so with CACHE_TYPE=ccache only the crates' C code is cached.
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    if [ "${CACHE_TYPE}" = sccache ]; then export RUSTC_WRAPPER=sccache; fi \
    && CARGO_NET_OFFLINE=true CARGO_BUILD_JOBS="${MAX_JOBS}" COMPILER_CACHE_STATS_NAME=vllm-rs \
       with-compiler-cache.sh python tools/build_rust.py --release \
    && sha256sum --check --strict /tmp/cargo-lock.sha256 \
    && test -x vllm/vllm-rs \
    && ls -l vllm/vllm-rs vllm/_rust_*.so

# tools/use_existing_torch.py (at the source's top in v0.28.0) drops vLLM's torch pins so the
# torch above is kept; drop-requirement.py does the same for the other wheels the cell built
# (requirements/build/rocm.txt also pins PyPI's triton and amdsmi).  What is left of requirements/build/rocm.txt, and setuptools-rust,
# were installed from the vllm lock above.
# The Rust frontend comes built from the rust stage (vllm-project/vllm docker/Dockerfile.rocm_72
# build_vllm: "setup.py detects them and ships them as-is"); VLLM_REQUIRE_RUST_FRONTEND=1
# (read by setup.py's should_require_rust_frontend) makes its extensions non-optional, so a
# missing artifact fails the build instead of setuptools-rust skipping it, and the wheel is
# checked to carry both.
# The wheel requires exactly the cell's own torch, torchvision, torchaudio, triton, amdsmi,
# amd-aiter and flash-attn, as vllm-project/vllm docker/Dockerfile.rocm_72 (v0.33.0 sdist;
# build_vllm_wheel_release, lines 727-729) makes its release wheel: upstream's own tools/vllm-rocm/pin_rocm_dependencies.py,
# run from the source tree, writes `name==version` of each wheel in one directory at the top of
# requirements/rocm.txt (setup.py's install_requires on ROCm); check-requires.py then fails the
# build unless the wheel's Requires-Dist names every one of them at that version.  That
# directory is upstream's /install, the base wheels of Dockerfile.rocm_72_base's debs_wheel_release
# (build_fa's flash_attn wheel among them; pin_rocm_dependencies.py maps `flash_attn-` to
# flash-attn), so the flash-attn context goes in too (`empty` where the cell skips it: no pin).
FROM deps AS build

ARG VLLM_REF
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

COPY --from=rust /src/vllm/vllm/vllm-rs /src/vllm/vllm/vllm-rs
COPY --from=rust /src/vllm/vllm/_rust_*.so /src/vllm/vllm/
COPY --from=rust /var/log/rocm-bake/compiler-cache/ /var/log/rocm-bake/compiler-cache/
COPY checks/check-requires.py /opt/rocm-bake/bin/check-requires.py
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=amdsmi,source=/wheels/amdsmi,target=/deps/amdsmi \
    --mount=type=bind,from=flash-attn,source=/wheels,target=/deps/flash-attn \
    shopt -s nullglob \
    && python tools/use_existing_torch.py \
    && drop-requirement.py requirements/build/rocm.txt triton amdsmi \
    && mkdir /tmp/rocm-wheels \
    && ln -s /deps/torch/*.whl /deps/triton/*.whl /deps/aiter/*.whl /deps/amdsmi/*.whl \
        /deps/flash-attn/*.whl /tmp/rocm-wheels/ \
    && python tools/vllm-rocm/pin_rocm_dependencies.py /tmp/rocm-wheels requirements/rocm.txt \
    && test -n "${PYTORCH_ROCM_ARCH}" \
    && VLLM_TARGET_DEVICE=rocm VLLM_REQUIRE_RUST_FRONTEND=1 \
       SETUPTOOLS_SCM_PRETEND_VERSION="${VLLM_REF#v}" \
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && python -c "import glob, zipfile; w = glob.glob('/wheels/vllm-*.whl')[0]; \
names = zipfile.ZipFile(w).namelist(); \
assert 'vllm/vllm-rs' in names and any(n.startswith('vllm/_rust_tool_parser') and n.endswith('.so') for n in names), \
'vLLM wheel lacks its Rust frontend (vllm/vllm-rs, vllm/_rust_tool_parser*.so)'; print(w)" \
    && check-requires.py /wheels/vllm-*.whl /tmp/rocm-wheels

# The component's wheels: vllm and the amdsmi wheel it needs, so the wheels export
# (dist/<arch>) carries amdsmi too and `pip install dist/<arch>/*.whl` gives a vLLM that
# detects ROCm.  Follows vllm-project/vllm docker/Dockerfile.rocm_72_base (v0.33.0 sdist): its
# debs_wheel_release (line 284) collects
# build_amdsmi's wheel with torch, triton and aiter.
FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=amdsmi /wheels/amdsmi/ /wheels/
# flash_attn and amd_mori (`empty` where the cell skips them), as vllm-project/vllm
# docker/Dockerfile.rocm_72_base's debs stage carries build_fa's and build_mori's wheels into the
# image: the runtime stage installs them with vllm, the wheels export takes them from here.
COPY --from=flash-attn /wheels/ /wheels/
COPY --from=mori /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/

# MoRI's runtime dependencies, as vllm-project/vllm docker/Dockerfile.rocm_72 (v0.33.0 sdist)
# installs them in its stage mori_base (lines 596-649), the stage its final image is built FROM
# (final_common, line 924); the runtime stage below is built FROM this one.  Its
# Python packages (msgpack, quart, blinker: lines 634-635) come from the vllm lock with the rest
# (the runtime stage).  Its NIC provider libraries, per NIC_BACKEND (upstream's ARG, line 17;
# none, ainic, bnxt or all: lines 640-645): upstream adds the vendors' apt repositories (signing
# keys fetched unverified) and installs libionic-dev and ionic-common (install_ainic, lines
# 602-614) and bnxt-rocelib=235.2.86.0 (install_bnxt, lines 618-631).  Here each vendor .deb of
# NIC_DEBS ("<nic> <sha256> <url>", rocm-bake.hcl) whose NIC is selected is downloaded and
# checked by its sha256, apt installs them from their files (what they need from Ubuntu, from
# the base image's archive, as upstream's), and every package upstream names for the NIC must
# then be installed; then upstream's copy of libbnxt_re* into /usr/local/lib and ldconfig
# (lines 550-551).  (Upstream's ca-certificates, curl, gnupg and apt-transport-https serve its
# repository set-up; the base image has curl and ca-certificates.)  NIC_BACKEND=none, the
# default until NIC_DEBS is recorded, installs nothing.
# `;`, not `&&`: errexit (SHELL) then holds inside the loops too.
FROM base AS mori_base

ARG NIC_BACKEND
ARG NIC_DEBS

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

RUN case "${NIC_BACKEND}" in \
        none) nics="" ;; \
        all) nics="ainic bnxt" ;; \
        ainic | bnxt) nics="${NIC_BACKEND}" ;; \
        *) echo "unknown NIC_BACKEND=${NIC_BACKEND}: one of none, ainic, bnxt, all" >&2; exit 2 ;; \
    esac; \
    mkdir -p /tmp/nic-debs; \
    IFS=';' read -ra debs <<< "${NIC_DEBS}"; \
    for deb in "${debs[@]}"; do \
        read -r nic sha256 url <<< "${deb}"; \
        case " ${nics} " in *" ${nic} "*) ;; *) continue ;; esac; \
        curl -fsSL --retry 3 -o "/tmp/nic-debs/${url##*/}" "${url}"; \
        echo "${sha256}  /tmp/nic-debs/${url##*/}" | sha256sum --check --strict; \
    done; \
    if [ -n "${nics}" ]; then \
        apt-get update; \
        apt-get install -y --no-install-recommends /tmp/nic-debs/*.deb; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    for nic in ${nics}; do \
        case "${nic}" in \
            ainic) packages=(libionic-dev ionic-common) ;; \
            bnxt) packages=(bnxt-rocelib) ;; \
        esac; \
        dpkg -s "${packages[@]}" > /dev/null; \
        dpkg-query -W "${packages[@]}"; \
    done; \
    if [[ " ${nics} " == *" bnxt "* ]]; then \
        cp -a /usr/local/lib/x86_64-linux-gnu/libbnxt_re* /usr/local/lib/; \
    fi; \
    ldconfig; \
    rm -rf /tmp/nic-debs; \
    echo "NIC_BACKEND=${NIC_BACKEND}: ${nics:-no NIC provider}"

FROM mori_base AS runtime

ARG ROCM_BAKE_PINS
# In the environment of the RUN below: pip then writes hash-based .pyc files.
ARG SOURCE_DATE_EPOCH
# Set (rocm-bake.hcl TRITON_ONLY) where the cell's AITER / FlashAttention is its build without
# GPU kernels (gfx1201): the image runs them as those builds are run, each switch read again
# at import.  ROCm/aiter aiter/__init__.py at AITER_REF (lines 64-75): AITER_TRITON_ONLY=1
# imports only its Triton ops (its CI's "Triton-only Smoke" installs and imports with it,
# .github/workflows/flash_attention_integration.yaml lines 436-445);
# Dao-AILab/flash-attention flash_attn/flash_attn_interface.py at FA_COMMIT (lines 11-15):
# FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE imports the Triton backend, else the CK extension
# flash_attn_2_cuda, which that build has not; vLLM v0.28.0 uses it on RDNA only so
# (vllm/platforms/rocm.py flash_attn_triton_available).  upstream's per-arch image sets it the
# same way, in its base (docker/Dockerfile.rocm_base_gfx1250 line 37).  Elsewhere: each
# library's own default (aiter/__init__.py line 65: "0"; flash_attn_interface.py line 11:
# "FALSE").
ARG AITER_TRITON_ONLY=0
ARG FLASH_ATTENTION_TRITON_AMD_ENABLE=FALSE
ENV AITER_TRITON_ONLY=${AITER_TRITON_ONLY} \
    FLASH_ATTENTION_TRITON_AMD_ENABLE=${FLASH_ATTENTION_TRITON_AMD_ENABLE}

# ROCm's runtime libraries rebuilt over the base image's (the rocm-runtime cell's /staging:
# rocprofiler-sdk, then ROCr + CLR over it), as vllm-project/vllm docker/Dockerfile.rocm_72_base
# (v0.33.0 sdist) installs them in its final stage (lines 425-442), the image its
# Dockerfile.rocm_72 final_common is built FROM: rocprofiler-sdk with its queue interposition
# off, then each rebuilt library hard-linked onto every stock file name of it (the SONAME
# lookup and the paths ROCm's other libraries hard-code both reach it), then ldconfig.
COPY --from=rocm-runtime /staging/ /opt/rocm/
ENV ROCPROFILER_QUEUE_INTERPOSITION=0
WORKDIR /opt/rocm/lib
RUN ours_hsa="$(readlink -f libhsa-runtime64.so.1)" \
    && ours_hip="$(readlink -f libamdhip64.so.7)" \
    && for f in libhsa-runtime64.so.1.*; do \
        [ "$f" = "${ours_hsa##*/}" ] || ln -f "$ours_hsa" "$f"; \
    done \
    && for f in libamdhip64.so.7.*; do \
        [ "$f" = "${ours_hip##*/}" ] || ln -f "$ours_hip" "$f"; \
    done
RUN ldconfig
WORKDIR /

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's wheels by sha256 (--wheels; /deps/vllm holds vllm and amdsmi, and flash_attn and
# amd_mori where the cell builds them), everything else from the vllm lock (locks/vllm.txt), uv
# among them (requirements/vllm-runtime.txt: upstream's final image has uv from its base
# stage), and MoRI's proxy dependencies msgpack, quart and blinker (requirements/vllm-runtime.txt),
# which vllm-project/vllm docker/Dockerfile.rocm_72 (v0.33.0 sdist) installs in its stage
# mori_base (lines 596-649: pip install at 634-635), the stage its final image is built FROM
# (final_common, line 924).  The runtime check imports what the image must run: those
# three (vLLM's MoRIIO connector imports msgpack at module level), and for a build without
# kernels (AITER_TRITON_ONLY, FLASH_ATTENTION_TRITON_AMD_ENABLE above) the modules vLLM takes
# from it (aiter.ops.triton; flash_attn.flash_attn_triton_amd).
COPY locks/vllm.txt /opt/rocm-bake/locks/vllm.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=nixl,source=/wheels,target=/deps/nixl \
    --mount=type=bind,from=wheels,source=/wheels,target=/deps/vllm \
    shopt -s nullglob \
    && write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/torch /deps/triton /deps/aiter /deps/nixl /deps/vllm \
    && PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt \
       pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/vllm.txt \
        -r /tmp/cell-wheels.txt \
    && rm /tmp/cell-wheels.txt \
    && pip check \
    && write-manifest.py /opt/rocm-bake/versions.json \
        /deps/torch /deps/triton /deps/aiter /deps/nixl /deps/vllm \
    && without_kernels=() \
    && if [ "${AITER_TRITON_ONLY}" = 1 ]; then without_kernels+=(aiter aiter.ops.triton); fi \
    && if [ "${FLASH_ATTENTION_TRITON_AMD_ENABLE}" = TRUE ]; then \
           without_kernels+=(flash_attn flash_attn.flash_attn_triton_amd); fi \
    && check-runtime.py --expect torch vllm amdsmi vllm._rust_tool_parser msgpack quart blinker \
        "${without_kernels[@]}" \
    && python -P -c "import torch, vllm; assert torch.version.hip; print('vllm', vllm.__version__)" \
    && test -x "$(python -P -c 'import os, vllm; print(os.path.dirname(vllm.__file__))')/vllm-rs" \
    && uv --version
# Images built FROM this one (lmcache) keep installing against the cell's wheels.
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

# The runtime environment of vllm-project/vllm's ROCm 7.2 image at VLLM_REF v0.33.0 (its sdist,
# VLLM_SDIST_SHA256): docker/Dockerfile.rocm_72_base's base sets HSA_NO_SCRATCH_RECLAIM=1 (line
# 41: needed by RCCL on ROCm 7.1 and later), docker/Dockerfile.rocm_72's final_common stage the
# rest (lines 976-997; v0.33.0 drops v0.28.0's UCX_RMA_PPLN_ENABLE=y and adds
# UCX_ROCM_IPC_SIGPOOL_MAX_ELEMS=inf), with KINETO_CONFIG naming a file that raises the ROCm
# profiler's ROCTRACER_MAX_EVENTS limit (upstream writes it to /app/libkineto.conf, line 996).
RUN --network=none printf 'ROCTRACER_MAX_EVENTS=10000000\n' > /opt/rocm-bake/libkineto.conf
# No secret here: hadolint's DL3064 reads "TOKEN" in TOKENIZERS_PARALLELISM.
# hadolint ignore=DL3064
ENV HSA_NO_SCRATCH_RECLAIM=1 \
    HSA_ENABLE_IPC_MODE_LEGACY=1 \
    UCX_ROCM_COPY_SIGPOOL_MAX_ELEMS=inf \
    UCX_ROCM_IPC_SIGPOOL_MAX_ELEMS=inf \
    TOKENIZERS_PARALLELISM=false \
    SAFETENSORS_FAST_GPU=1 \
    HIP_FORCE_DEV_KERNARG=1 \
    PYTORCH_NVML_BASED_CUDA_CHECK=1 \
    KINETO_CONFIG=/opt/rocm-bake/libkineto.conf

# vLLM's benchmark scripts and examples from the release's source, where vllm-project/vllm
# docker/Dockerfile.rocm_72 (v0.33.0 sdist) puts them in its final image (lines 973-975: "Copy
# over the benchmark scripts as well",
# ${COMMON_WORKDIR}/vllm/{benchmarks,examples}, COMMON_WORKDIR=/app).
COPY --from=deps /src/vllm/benchmarks /app/vllm/benchmarks
COPY --from=deps /src/vllm/examples /app/vllm/examples
COPY --from=wheels /wheels/ /wheels/
WORKDIR /
ENTRYPOINT ["vllm", "serve"]
