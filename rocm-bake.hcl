# rocm-bake.hcl - the single source of every pin and every target of rocm-bake.
#
#   docker buildx bake -f rocm-bake.hcl                 # vllm for every arch in GPU_ARCHS (default gfx950)
#   docker buildx bake -f rocm-bake.hcl all             # every component, every arch
#   docker buildx bake -f rocm-bake.hcl wheels          # export every wheel of each cell to dist/<arch>
#   GPU_ARCHS=gfx950,gfx1201 docker buildx bake -f rocm-bake.hcl --print all
#
# One build cell = one GPU arch.  Every per-arch target is a matrix over the arch
# list (filtered by SKIP below) and is named <component>-<arch>.  The graph:
#
#   base -> torch -> triton -> aiter --+
#      \        \-> (torch) -----------+-> vllm -> lmcache
#       \-> cupy (HIP, no torch) ------------------^
#        \-> nixl (+UCX, no torch) --+-> vllm      |
#                                    +-------------+
#   wheels-<arch> collects every wheel of the cell (type=local,dest=dist/<arch>).
#
# Pins: the set vLLM v0.33.0 builds from source for ROCm 7.2 (docker/Dockerfile.rocm_72_base +
# docker/Dockerfile.rocm_72 of its release sdist vllm-0.33.0.tar.gz: torch 2.13.0 at 733fca1,
# triton 3.8.0 at 669b31ac, torchvision 0.28.0, torchaudio 2.11.0, amd-aiter 0.1.26, MoRI
# 1.2.3.post1).  Commits are full 40-hex, except upstream's own abbreviations where no full
# commit could be had (declared in ABBREVIATED); a tag is accepted only where upstream pins a tag.
#
# Only plain HCL is used here (variables, top-level attributes, targets, groups,
# for-expressions and a small set of functions) so that a re-implementation of
# buildx's evaluator can read it.  buildx 0.29.1 has no alltrue(): list checks use
# setsubtract().

# ---------------------------------------------------------------------------
# Registry, tags, build knobs
# ---------------------------------------------------------------------------

variable "REGISTRY" {
  type        = string
  default     = "localhost:5000"
  description = "Registry host[:port] images and registry caches are named under (no scheme, no trailing slash)."
  validation {
    condition     = can(regex("^[A-Za-z0-9.-]+(:[0-9]+)?$", REGISTRY))
    error_message = "REGISTRY must be host[:port], e.g. localhost:5000 (no scheme, no path)."
  }
}

variable "IMAGE_PREFIX" {
  type        = string
  default     = "rocm-bake"
  description = "Repository path under REGISTRY; images are REGISTRY/IMAGE_PREFIX/<component>:<version>-rocm<ROCM_VERSION>-<arch>."
  validation {
    condition     = can(regex("^[a-z0-9]+([._/-][a-z0-9]+)*$", IMAGE_PREFIX))
    error_message = "IMAGE_PREFIX must be a lowercase repository path without leading/trailing separators."
  }
}

variable "GPU_ARCHS" {
  type        = list(string)
  default     = ["gfx950"]
  description = "The GPU architectures to build, one build cell each (env: comma-separated, e.g. GPU_ARCHS=gfx950,gfx1201). Supported: gfx950, gfx1201, gfx1250. Every spelling (PYTORCH_ROCM_ARCH, GPU_ARCHS, HCC_AMDGPU_TARGET) is derived from the cell's arch, so no knob falls back to 'the build host's GPU'."
  validation {
    condition     = length(GPU_ARCHS) > 0
    error_message = "GPU_ARCHS must name at least one architecture (gfx950, gfx1201, gfx1250)."
  }
  validation {
    condition     = length(setsubtract(GPU_ARCHS, ["gfx950", "gfx1201", "gfx1250"])) == 0
    error_message = "GPU_ARCHS has unsupported arch(s) ${join(", ", setsubtract(GPU_ARCHS, ["gfx950", "gfx1201", "gfx1250"]))}: supported are gfx950, gfx1201, gfx1250 (e.g. GPU_ARCHS=gfx950,gfx1201)."
  }
}

variable "MAX_JOBS" {
  type        = number
  default     = 16
  description = "Parallel compile jobs inside each build step (MAX_JOBS / CMAKE_BUILD_PARALLEL_LEVEL / make -j). Lower it on small builders: a torch or AITER translation unit can take 3-4 GB of RAM."
  validation {
    condition     = MAX_JOBS >= 1
    error_message = "MAX_JOBS must be a positive number."
  }
}

variable "CACHE_TYPE" {
  type        = string
  default     = "ccache"
  description = "Compiler cache of every compile of every component (CMake launchers, the HIP launcher/wrapper dir, CC/CXX host wrappers, a PATH without the other tool): ccache (the default: its direct mode finds a hit without running the preprocessor, also from the shared WebDAV store; see docs/architecture.md), sccache, or none. The tool must already be in the base image: a missing tool fails the build instead of silently compiling uncached."
  validation {
    condition     = contains(["sccache", "ccache", "none"], CACHE_TYPE)
    error_message = "CACHE_TYPE must be one of: sccache, ccache, none."
  }
}

variable "CACHE_FALLBACK" {
  type        = bool
  default     = true
  description = "The cache-from chain: after the ref keyed by the cell's exact pins, each cell also reads <cell>-rocm<ROCM_VERSION>-env-<CACHE_ENV>, the layers of the newest exporting build of that environment (written alongside the exact ref when CACHE_EXPORT=true), so a pin bump still reuses every stage it does not touch. false = exact refs only."
}

variable "CACHE_EXPORT" {
  type        = bool
  default     = false
  description = "Write BuildKit layer caches to REGISTRY/IMAGE_PREFIX/buildcache (mode=max for compile stages, mode=min for the base image). Off by default: only trusted builds (CACHE_TIER=trusted: push and schedule, where it defaults to true) write the shared cache; true with CACHE_TIER pr, fork-pr or release is refused."
}

# ---------------------------------------------------------------------------
# ROCm base image and Python
# ---------------------------------------------------------------------------

variable "ROCM_VERSION" {
  type        = string
  default     = "7.2.3"
  description = "ROCm release of the base image (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 1 builds on rocm/dev-ubuntu-22.04:7.2.3-complete; its wheels are tagged +rocm723)."
  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+$", ROCM_VERSION))
    error_message = "ROCM_VERSION must be X.Y.Z, e.g. 7.2.3."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
ROCM_VERSION_SOURCE = {
  git  = "https://github.com/ROCm/ROCm.git"
  tags = "^rocm-(?P<version>[0-9]+\\.[0-9]+(\\.[0-9]+)?)$"
}

variable "ROCM_BASE_IMAGE" {
  type        = string
  default     = "rocm/dev-ubuntu-22.04"
  description = "ROCm development image repository (rocm/dev-ubuntu-22.04 or rocm/dev-ubuntu-24.04)."
  validation {
    condition     = contains(["rocm/dev-ubuntu-22.04", "rocm/dev-ubuntu-24.04"], ROCM_BASE_IMAGE)
    error_message = "ROCM_BASE_IMAGE must be rocm/dev-ubuntu-22.04 or rocm/dev-ubuntu-24.04."
  }
}

variable "ROCM_BASE_TAG" {
  type        = string
  default     = "7.2.3-complete"
  description = "Tag of ROCM_BASE_IMAGE: <ROCM_VERSION>-complete."
  validation {
    condition     = ROCM_BASE_TAG == "${ROCM_VERSION}-complete"
    error_message = "ROCM_BASE_TAG must be <ROCM_VERSION>-complete (keep ROCM_VERSION and the tag in step)."
  }
}

variable "ROCM_BASE_DIGEST" {
  type        = string
  default     = "sha256:b64aecbed6cc2d8227407899831d5c53fa8450d4db08f6a2400c29587ce15be9"
  description = "Digest pinning ROCM_BASE_IMAGE:ROCM_BASE_TAG (sha256:<64 hex>), so a re-pushed tag cannot change the build. Empty string = tag only (the pin lint rejects that). Taken from a public workflow pin of rocm/dev-ubuntu-22.04:7.2.3-complete; re-check with: docker buildx imagetools inspect rocm/dev-ubuntu-22.04:7.2.3-complete."
  validation {
    condition     = ROCM_BASE_DIGEST == "" || can(regex("^sha256:[0-9a-f]{64}$", ROCM_BASE_DIGEST))
    error_message = "ROCM_BASE_DIGEST must be empty or sha256:<64 lowercase hex>."
  }
}

variable "PYTHON_VERSION" {
  type        = string
  default     = "3.12"
  description = "CPython minor version every wheel is built for (vLLM's ROCm wheels are cp312 only)."
  validation {
    condition     = can(regex("^3\\.[0-9]+$", PYTHON_VERSION))
    error_message = "PYTHON_VERSION must be 3.N, e.g. 3.12."
  }
}

# ---------------------------------------------------------------------------
# Compiler cache tool (installed in the base image, verified by sha256)
# ---------------------------------------------------------------------------

variable "SCCACHE_VERSION" {
  type        = string
  default     = "0.14.0"
  description = "sccache release installed in the base image (x86_64-unknown-linux-musl tarball from mozilla/sccache releases). 0.14.0 is the version ROCm/TheRock's dockerfiles/install_sccache.sh allow-lists."
  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+$", SCCACHE_VERSION))
    error_message = "SCCACHE_VERSION must be X.Y.Z without a leading v."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
SCCACHE_VERSION_SOURCE = {
  github = "mozilla/sccache"
  tags   = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
}

variable "SCCACHE_SHA256" {
  type        = string
  default     = "8424b38cda4ecce616a1557d81328f3d7c96503a171eab79942fad618b42af44"
  description = "sha256 of sccache-v<SCCACHE_VERSION>-x86_64-unknown-linux-musl.tar.gz (from ROCm/TheRock dockerfiles/install_sccache.sh's version->sha256 allow-list). Change it together with SCCACHE_VERSION."
  validation {
    condition     = can(regex("^[0-9a-f]{64}$", SCCACHE_SHA256))
    error_message = "SCCACHE_SHA256 must be 64 lowercase hex characters."
  }
}

# The compiler cache's shared store, for ccache and sccache alike (CACHE_TYPE picks the tool).
# None of these is a build arg (a changed endpoint must not invalidate a layer): inv build turns
# them into the secret below and checks the store before the build.
variable "CACHE_STORE" {
  type        = string
  default     = SCCACHE_BACKEND != "" ? SCCACHE_BACKEND : "none"
  description = "Shared level of the compiler cache (ccache or sccache, CACHE_TYPE): none (the BuildKit cache mount only), webdav (CACHE_STORE_URL: ccache's HTTP remote storage under <prefix>/ccache, or sccache's WebDAV backend) or s3 (SCCACHE_S3_BUCKET; sccache only). Objects go under the key prefix <os>/<arch>/ of the environment's store (CACHE_ENV). An unreachable store fails inv build before the build, in one line."
  validation {
    condition     = contains(["none", "webdav", "s3"], CACHE_STORE)
    error_message = "CACHE_STORE must be one of: none, webdav, s3."
  }
}

variable "CACHE_STORE_URL" {
  type        = string
  default     = SCCACHE_WEBDAV_URL
  description = "The WebDAV store of the fleet (fleet.toml's webdav service), e.g. http://cache.example:8080, for CACHE_STORE=webdav (ccache and sccache). Environments are kept apart by key prefix: <CACHE_ENV>/<os>/<arch>/. Username/password/token only from the environment (CACHE_STORE_USER, CACHE_STORE_PASSWORD, CACHE_STORE_TOKEN, for either tool; their deprecated names SCCACHE_WEBDAV_USERNAME, SCCACHE_WEBDAV_PASSWORD, SCCACHE_WEBDAV_TOKEN still read, for one release) or user:password@ in the URL, into the secret."
}

variable "CACHE_SECRET_FILE" {
  type        = string
  default     = SCCACHE_SECRET_FILE
  description = "Optional file with the compiler cache's remote settings and credentials (KEY=VALUE lines: SCCACHE_*, AWS_*, CCACHE_*), passed to compile steps only as the BuildKit secret 'sccache' (never a build arg, never in a layer). Empty = inv build writes it from CACHE_STORE and the variables beside it (credentials from the environment), or, with CACHE_STORE=none, local cache mounts only."
}

# Deprecated aliases, read for one more release: each one set is a warning of inv build and
# inv lint naming its new name (the new name takes the old one's value).
variable "SCCACHE_BACKEND" {
  type        = string
  default     = ""
  description = "Deprecated: use CACHE_STORE (this old name still sets it, for one release)."
  validation {
    condition     = contains(["", "none", "webdav", "s3"], SCCACHE_BACKEND)
    error_message = "SCCACHE_BACKEND (deprecated: use CACHE_STORE) must be one of: none, webdav, s3."
  }
}

variable "SCCACHE_WEBDAV_URL" {
  type        = string
  default     = ""
  description = "Deprecated: use CACHE_STORE_URL (this old name still sets it, for one release)."
}

variable "SCCACHE_SECRET_FILE" {
  type        = string
  default     = ""
  description = "Deprecated: use CACHE_SECRET_FILE (this old name still sets it, for one release)."
}

# S3 is sccache's only (ccache has no S3 storage): its names stay sccache's.
variable "SCCACHE_S3_BUCKET" {
  type        = string
  default     = ""
  description = "S3 bucket base for sccache (CI): the bucket used is <SCCACHE_S3_BUCKET>-<CACHE_ENV>, objects under <os>/<arch>/. Credentials only from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), into the secret."
}

variable "SCCACHE_S3_REGION" {
  type        = string
  default     = ""
  description = "Region of the sccache S3 bucket (empty = sccache's default)."
}

variable "SCCACHE_S3_ENDPOINT" {
  type        = string
  default     = ""
  description = "S3 endpoint for a non-AWS store (http:// turns TLS off); empty = AWS."
}

variable "CACHE_ENV" {
  type        = string
  default     = "dev"
  description = "Which environment's shared caches a build uses: ci, dev, nightly or prerelease (one sccache store each), so a pull request can never poison what a release build reads."
  validation {
    condition     = contains(["ci", "dev", "nightly", "prerelease"], CACHE_ENV)
    error_message = "CACHE_ENV must be one of: ci, dev, nightly, prerelease."
  }
}

variable "CACHE_READ_ONLY" {
  type        = bool
  default     = false
  description = "The compiler cache's shared store read-only, for either tool (ccache |read-only, sccache READ_ONLY: hits served, nothing written; misses count as write errors, expected). CACHE_TIER=pr sets it; false with CACHE_TIER=pr is refused."
}

variable "CACHE_TIER" {
  type        = string
  default     = "dev"
  description = "The trust tier of the build (inv build --tier): what it may do with the shared caches. dev (a build no lane runs: every cache as its variables say), pr (reads both, writes neither: the store read-only, no cache-to), fork-pr (no shared cache: no credentials exist there), trusted (push and nightly: reads and writes both; CACHE_EXPORT defaults to true) or release (no shared cache read or written, every step run anew: --no-cache; what inv verify-repro builds). A setting beyond the tier is refused in one line. Read by inv, not by a plain docker buildx bake; see docs/lanes.md."
  validation {
    condition     = contains(["dev", "pr", "fork-pr", "trusted", "release"], CACHE_TIER)
    error_message = "CACHE_TIER must be one of: dev, pr, fork-pr, trusted, release."
  }
}

variable "CMAKE_VERSION" {
  type        = string
  default     = "3.31.10"
  description = "CMake installed in the base image (PyPI cmake wheel), and kept by every build: torch's own requirements may pin another (ROCm/pytorch's requirements-build.txt pins cmake==4.0.0 on some branches), so the torch build drops their cmake line and checks this version. Kept below 4.0: CMake 4 drops compatibility with cmake_minimum_required < 3.5, which several pinned sources still declare."
  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+(\\.[0-9]+)?$", CMAKE_VERSION))
    error_message = "CMAKE_VERSION must be an exact version X.Y.Z."
  }
}

variable "NINJA_VERSION" {
  type        = string
  default     = "1.11.1.4"
  description = "Ninja installed in the base image (PyPI ninja wheel)."
  validation {
    condition     = can(regex("^[0-9]+(\\.[0-9]+)+$", NINJA_VERSION))
    error_message = "NINJA_VERSION must be an exact version, e.g. 1.11.1.4."
  }
}

variable "SOURCE_DATE_EPOCH" {
  type        = string
  default     = "1793577600"
  description = "Unix time every build stamps on files and images (reproducible builds, `inv verify-repro`): 2026-11-02T00:00:00Z, the date of the newest pin recorded in this file (VLLM_SDIST_URL: vLLM v0.33.0's sdist, uploaded to PyPI 2026-11-02). Move it forward with the pins."
  validation {
    condition     = can(regex("^[0-9]+$", SOURCE_DATE_EPOCH))
    error_message = "SOURCE_DATE_EPOCH must be a Unix time in seconds."
  }
}

# ---------------------------------------------------------------------------
# PyTorch, torchvision, torchaudio
# ---------------------------------------------------------------------------

# Commit pins kept in upstream's abbreviated form, where no full commit could be had (docs/upstream.md
# "Abbreviated pins"): PYTORCH_COMMIT is vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 4's "733fca1"
# (ROCm/pytorch unreachable and too large to bring where it was pinned); VLLM_COMMIT is the
# sdist's g4ba787ec9 (the source itself is pinned by VLLM_SDIST_SHA256).
variable "ABBREVIATED" {
  type    = list(string)
  default = ["PYTORCH_COMMIT", "VLLM_COMMIT"]
}

variable "PYTORCH_REPO" {
  type        = string
  default     = "https://github.com/ROCm/pytorch.git"
  description = "PyTorch source repository (AMD's fork, as vLLM's Dockerfile.rocm_72_base uses)."
}

variable "PYTORCH_COMMIT" {
  type        = string
  default     = "733fca1"
  description = "PyTorch commit built: vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 4 PYTORCH_BRANCH \"733fca1\" (# release/2.13 as of 09/17), kept in upstream's abbreviated form and declared in ABBREVIATED (ROCm/pytorch is unreachable where it was pinned; the build resolves it on PYTORCH_REF and records the full commit); wheels report 2.13.0+git733fca1."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", PYTORCH_COMMIT)) || (contains(ABBREVIATED, "PYTORCH_COMMIT") && can(regex("^[0-9a-f]{7,39}$", PYTORCH_COMMIT)))
    error_message = "PYTORCH_COMMIT must be a full 40-hex commit (or upstream's abbreviation, declared in ABBREVIATED)."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
PYTORCH_COMMIT_SOURCE = {
  git    = PYTORCH_REPO
  tags   = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
  branch = PYTORCH_REF
  pin    = "commit" # abbreviated (ABBREVIATED): a commit all the same
}

variable "PYTORCH_REF" {
  type        = string
  default     = "release/2.13"
  description = "The branch PYTORCH_COMMIT is on (ROCm/pytorch release/2.13 as of 09/17, vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 4's comment); an abbreviated PYTORCH_COMMIT is resolved on it."
}

variable "PYTORCH_VERSION" {
  type        = string
  default     = "2.13.0"
  description = "torch version PYTORCH_COMMIT builds: its version.txt; the wheel is <PYTORCH_VERSION>+git<7 hex of PYTORCH_COMMIT>, 2.13.0+git733fca1, as vLLM's published ROCm 7.2 images carry (no PYTORCH_BUILD_VERSION, as vLLM's Dockerfile.rocm_base builds it; the build checks it). Used in tags and labels."
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
PYTORCH_VERSION_SOURCE = {
  pypi = "torch"
  wheels = {
    index    = ["https://download.pytorch.org/whl/rocm7.2"]
    package  = "torch"
    variant  = "rocm7.2"
    python   = "cp${replace(PYTHON_VERSION, ".", "")}"
    platform = "manylinux_2_28_x86_64"
  }
}

variable "TORCHVISION_REPO" {
  type        = string
  default     = "https://github.com/pytorch/vision.git"
  description = "torchvision source repository."
}

variable "TORCHVISION_COMMIT" {
  type        = string
  default     = "8fb87713a24951e639c494b0f2a8a81b5f8e33a6"
  description = "torchvision commit of tag v0.28.0 (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 6 PYTORCH_VISION_BRANCH; the commit is torchvision/version.py git_version of PyPI's torchvision-0.28.0 wheels)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", TORCHVISION_COMMIT))
    error_message = "TORCHVISION_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
TORCHVISION_COMMIT_SOURCE = {
  git  = TORCHVISION_REPO
  tags = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
}

variable "TORCHVISION_REF" {
  type        = string
  default     = "v0.28.0"
  description = "Human ref of TORCHVISION_COMMIT."
}

variable "TORCHAUDIO_REPO" {
  type        = string
  default     = "https://github.com/pytorch/audio.git"
  description = "torchaudio source repository."
}

variable "TORCHAUDIO_COMMIT" {
  type        = string
  default     = "34c52a67e8941bbd8e6adaca0eb0b9eabec11d78"
  description = "torchaudio commit (tag v2.11.0: vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 8 PYTORCH_AUDIO_BRANCH; vLLM's ROCm wheels ship torchaudio 2.11.0+34c52a6)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", TORCHAUDIO_COMMIT))
    error_message = "TORCHAUDIO_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
TORCHAUDIO_COMMIT_SOURCE = {
  git  = TORCHAUDIO_REPO
  tags = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
}

variable "TORCHAUDIO_REF" {
  type        = string
  default     = "v2.11.0"
  description = "Human ref of TORCHAUDIO_COMMIT."
}

# ---------------------------------------------------------------------------
# Triton
# ---------------------------------------------------------------------------

variable "TRITON_REPO" {
  type        = string
  default     = "https://github.com/ROCm/triton.git"
  description = "Triton source repository (AMD's fork; ROCm > 7.0 ships it as the 'triton' wheel)."
}

variable "TRITON_COMMIT" {
  type        = string
  default     = "669b31acc1dd1b3fd93286afd5db67f65d9f7557"
  description = "Triton commit: vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 2 TRITON_BRANCH \"669b31a\", in full as the same release pins it (docker/Dockerfile.rocm_72 line 8 ROCM_TRITON_KERNELS_COMMIT, cmake/external_projects/triton_kernels.cmake line 16); wheel triton 3.8.0+git669b31ac."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", TRITON_COMMIT))
    error_message = "TRITON_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
TRITON_COMMIT_SOURCE = {
  git    = TRITON_REPO
  tags   = "^v(?P<version>[3-9]\\.[0-9]+\\.[0-9]+)$"
  branch = TRITON_REF
}

variable "TRITON_REF" {
  type        = string
  default     = "release/internal/3.8.x"
  description = "Human ref TRITON_COMMIT was taken from (ROCm/triton release/internal/3.8.x as of 09/17, vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 2's comment)."
}

variable "TRITON_VERSION" {
  type        = string
  default     = "3.8.0"
  description = "Triton version TRITON_COMMIT builds (vLLM v0.33.0 docker/Dockerfile.rocm_base line 7 TRITON_VERSION=3.8.0+git669b31ac, the same commit); used in tags and labels."
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
TRITON_VERSION_SOURCE = {
  pypi = "triton"
}

variable "TRITON_KERNELS_COMMIT" {
  type        = string
  default     = "669b31acc1dd1b3fd93286afd5db67f65d9f7557"
  description = "ROCm/triton commit whose python/triton_kernels vLLM's CMake builds against (TRITON_KERNELS_SRC_DIR); vLLM v0.33.0 docker/Dockerfile.rocm_72 line 8 ROCM_TRITON_KERNELS_COMMIT, which its cmake/external_projects/triton_kernels.cmake names too (the build checks that)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", TRITON_KERNELS_COMMIT))
    error_message = "TRITON_KERNELS_COMMIT must be a full 40-hex commit."
  }
}

variable "TRITON_KERNELS_REF" {
  type        = string
  default     = "vllm-v0.33.0"
  description = "Human label for TRITON_KERNELS_COMMIT: the ROCm/triton revision vLLM v0.33.0's docker/Dockerfile.rocm_72 pins (ROCM_TRITON_KERNELS_COMMIT). Informational only."
}

# ---------------------------------------------------------------------------
# AITER
# ---------------------------------------------------------------------------

variable "AITER_REPO" {
  type        = string
  default     = "https://github.com/ROCm/aiter.git"
  description = "AITER source repository (amd-aiter wheel; not on PyPI)."
}

variable "AITER_REF" {
  type        = string
  default     = "v0.1.26"
  description = "AITER release tag (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 12 AITER_BRANCH). The clone keeps tags: setuptools_scm derives the wheel version from them."
  validation {
    condition     = can(regex("^v[0-9]+\\.[0-9]+\\.[0-9]+(\\.post[0-9]+)?$", AITER_REF))
    error_message = "AITER_REF must be a release tag vX.Y.Z[.postN] (no branches, no -rc/-longctx tags)."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
AITER_REF_SOURCE = {
  git  = AITER_REPO
  tags = "^v(?P<version>[0-9].*)$"
}

variable "AITER_COMMIT" {
  type        = string
  default     = ""
  description = "Optional 40-hex commit AITER_REF must resolve to; when set the build checks out this commit and fails if the tag points elsewhere. Empty = trust the tag (vLLM pins the tag)."
  validation {
    condition     = AITER_COMMIT == "" || can(regex("^[0-9a-f]{40}$", AITER_COMMIT))
    error_message = "AITER_COMMIT must be empty or a full 40-hex commit."
  }
}

# ---------------------------------------------------------------------------
# CuPy
# ---------------------------------------------------------------------------

variable "CUPY_REPO" {
  type        = string
  default     = "https://github.com/cupy/cupy.git"
  description = "CuPy source repository (cupy/cupy; ROCm/cupy is deprecated)."
}

variable "CUPY_REF" {
  type        = string
  default     = "v14.2.0"
  description = "CuPy release tag built with CUPY_INSTALL_USE_HIP=1 (14.2.0 is also the newest cupy-rocm-7-0 on PyPI)."
  validation {
    condition     = can(regex("^v[0-9]+\\.[0-9]+\\.[0-9]+$", CUPY_REF))
    error_message = "CUPY_REF must be a release tag vX.Y.Z."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
CUPY_REF_SOURCE = {
  git  = CUPY_REPO
  tags = "^v(?P<version>[0-9].*)$"
}

variable "CUPY_COMMIT" {
  type        = string
  default     = ""
  description = "Optional 40-hex commit CUPY_REF must resolve to (empty = trust the tag)."
  validation {
    condition     = CUPY_COMMIT == "" || can(regex("^[0-9a-f]{40}$", CUPY_COMMIT))
    error_message = "CUPY_COMMIT must be empty or a full 40-hex commit."
  }
}

# ---------------------------------------------------------------------------
# UCX + NIXL
# ---------------------------------------------------------------------------

variable "UCX_REPO" {
  type        = string
  default     = "https://github.com/openucx/ucx.git"
  description = "UCX source repository (built --with-rocm for NIXL's UCX backend)."
}

variable "UCX_COMMIT" {
  type        = string
  default     = "2ff0b47ce7626584cb9b56c647d08f712c6c3edf"
  description = "UCX commit (vLLM v0.33.0 docker/Dockerfile.rocm_72 line 387 UCX_BRANCH, a full commit there). Never a branch: NIXL's own default v1.21.x moves."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", UCX_COMMIT))
    error_message = "UCX_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
UCX_COMMIT_SOURCE = {
  git  = UCX_REPO
  tags = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
}

variable "UCX_REF" {
  type        = string
  default     = "vllm-v0.33.0"
  description = "Human label for UCX_COMMIT: no release tag is known for it; it is the revision vLLM v0.33.0's docker/Dockerfile.rocm_72 pins. Informational only."
}

variable "NIXL_REPO" {
  type        = string
  default     = "https://github.com/ai-dynamo/nixl.git"
  description = "NIXL source repository (upstream ai-dynamo/nixl, built as the nixl-rocm wheel with -Dwheel_variant=rocm)."
}

variable "NIXL_COMMIT" {
  type        = string
  default     = "1683cf3b7f3d11674c03c5e861cea22339876c96"
  description = "NIXL commit (vLLM v0.33.0 docker/Dockerfile.rocm_72 line 385 NIXL_BRANCH, a full commit there)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", NIXL_COMMIT))
    error_message = "NIXL_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
NIXL_COMMIT_SOURCE = {
  git  = NIXL_REPO
  tags = "^v?(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+.*)$"
}

variable "NIXL_REF" {
  type        = string
  default     = "vllm-v0.33.0"
  description = "Human label for NIXL_COMMIT: the release tag containing it is not verified; it is the revision vLLM v0.33.0's docker/Dockerfile.rocm_72 pins. Informational only."
}

# ---------------------------------------------------------------------------
# vLLM and LMCache
# ---------------------------------------------------------------------------

variable "VLLM_REPO" {
  type        = string
  default     = "https://github.com/vllm-project/vllm.git"
  description = "vLLM source repository."
}

variable "VLLM_COMMIT" {
  type        = string
  default     = "4ba787ec9"
  description = "vLLM commit of tag v0.33.0, in the abbreviated form upstream records it (the sdist's vllm/_version.py commit_id g4ba787ec9; declared in ABBREVIATED): the source built is VLLM_SDIST_URL, pinned by its sha256."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", VLLM_COMMIT)) || (contains(ABBREVIATED, "VLLM_COMMIT") && can(regex("^[0-9a-f]{7,39}$", VLLM_COMMIT)))
    error_message = "VLLM_COMMIT must be a full 40-hex commit (or upstream's abbreviation, declared in ABBREVIATED)."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
VLLM_COMMIT_SOURCE = {
  git  = VLLM_REPO
  tags = "^v(?P<version>[0-9].*)$"
  pin  = "commit" # abbreviated (ABBREVIATED): a commit all the same
}

variable "VLLM_REF" {
  type        = string
  default     = "v0.33.0"
  description = "vLLM release tag of VLLM_COMMIT; the build fails if the tag does not point at VLLM_COMMIT."
  validation {
    condition     = can(regex("^v[0-9]+\\.[0-9]+\\.[0-9]+(\\.post[0-9]+)?$", VLLM_REF))
    error_message = "VLLM_REF must be a release tag vX.Y.Z[.postN]."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
VLLM_REF_SOURCE = {
  pypi = "vllm"
  tags = "^v(?P<version>[0-9].*)$"
  wheels = {
    index    = ["https://wheels.vllm.ai/rocm/${trimprefix(VLLM_REF, "v")}/rocm723"]
    package  = "vllm"
    variant  = "rocm723"
    python   = "cp${replace(PYTHON_VERSION, ".", "")}"
    platform = "manylinux_2_28_x86_64"
  }
}

# vLLM's source: the release's sdist on PyPI, a content pin stronger than a commit (a sha256
# over exactly the source upstream released); the build checks that it is VLLM_REF's version
# and records VLLM_COMMIT's abbreviation (dockerfiles/scripts/unpack-sdist.sh).
variable "VLLM_SDIST_URL" {
  type        = string
  default     = "https://files.pythonhosted.org/packages/f7/25/aa5684e9c59d6fc75f78926b7f15e8d9adc7de2d9e6e7575b80776ad8169/vllm-0.33.0.tar.gz"
  description = "vLLM's release sdist of VLLM_REF on PyPI (https://pypi.org/simple/vllm/), downloaded by ADD --checksum=sha256:VLLM_SDIST_SHA256: the source the vllm stage builds."
  validation {
    condition     = can(regex("^https://files\\.pythonhosted\\.org/packages/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/vllm-${trimprefix(VLLM_REF, "v")}\\.tar\\.gz$", VLLM_SDIST_URL))
    error_message = "VLLM_SDIST_URL must be PyPI's file https://files.pythonhosted.org/packages/../../<60 hex>/vllm-<VLLM_REF less v>.tar.gz (keep VLLM_REF and the sdist in step)."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py):
# PyPI's simple index lists this address for VLLM_REF's sdist.
VLLM_SDIST_URL_SOURCE = {
  sdist   = "https://pypi.org/simple"
  package = "vllm"
  version = trimprefix(VLLM_REF, "v")
  pin     = "url"
}

variable "VLLM_SDIST_SHA256" {
  type        = string
  default     = "f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c74112"
  description = "sha256 of VLLM_SDIST_URL, as PyPI lists it (https://pypi.org/simple/vllm/); the build's ADD --checksum verifies it."
  validation {
    condition     = can(regex("^[0-9a-f]{64}$", VLLM_SDIST_SHA256))
    error_message = "VLLM_SDIST_SHA256 must be 64 lowercase hex characters."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py):
# PyPI's simple index lists this sha256 for VLLM_REF's sdist.
VLLM_SDIST_SHA256_SOURCE = {
  sdist   = "https://pypi.org/simple"
  package = "vllm"
  version = trimprefix(VLLM_REF, "v")
  pin     = "sha256"
}

# vLLM's Rust frontend (vllm-rs, vllm._rust_tool_parser): a standalone Rust toolchain by URL +
# sha256, as vLLM v0.33.0 docker/Dockerfile.rocm_72's rust-toolchain/rust-build stages install
# through rustup (rust-toolchain.toml channel "1.95").
variable "RUST_VERSION" {
  type        = string
  default     = "1.95.0"
  description = "Rust release that builds vLLM's Rust frontend (vllm-rs, vllm._rust_tool_parser): vLLM v0.33.0's rust-toolchain.toml names channel \"1.95\", whose only release is 1.95.0 (2026-04-16); the build checks that the two agree."
  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+$", RUST_VERSION))
    error_message = "RUST_VERSION must be an exact Rust release X.Y.Z, e.g. 1.95.0."
  }
}

variable "RUST_URL" {
  type        = string
  default     = "https://static.rust-lang.org/dist/2026-04-16/rust-1.95.0-x86_64-unknown-linux-gnu.tar.xz"
  description = "The standalone Rust installer of RUST_VERSION for x86_64-unknown-linux-gnu (the URL the release's channel manifest channel-rust-1.95.0.toml lists as pkg.rust xz_url), downloaded by ADD --checksum=sha256:RUST_SHA256."
  validation {
    condition     = can(regex("^https://static\\.rust-lang\\.org/dist/([0-9]{4}-[0-9]{2}-[0-9]{2}/)?rust-${RUST_VERSION}-x86_64-unknown-linux-gnu\\.tar\\.xz$", RUST_URL))
    error_message = "RUST_URL must be https://static.rust-lang.org/dist/[DATE/]rust-<RUST_VERSION>-x86_64-unknown-linux-gnu.tar.xz (keep RUST_VERSION and the URL in step)."
  }
}

variable "RUST_SHA256" {
  type        = string
  default     = "2e0338f18ecbaa4a0f631b9e80e8b8e26bb6fe77dd5454fba8a70cf96c1e84a1"
  description = "sha256 of RUST_URL: the xz_hash of pkg.rust, target x86_64-unknown-linux-gnu, in Rust 1.95.0's channel manifest (transcribed in oxalica/rust-overlay manifests/stable/1.95.0.nix, target _24; the same value pinned for this URL elsewhere in public build scripts). Not downloaded where it was recorded (static.rust-lang.org unreachable there): the build's ADD --checksum verifies it. Change it together with RUST_VERSION and RUST_URL."
  validation {
    condition     = can(regex("^[0-9a-f]{64}$", RUST_SHA256))
    error_message = "RUST_SHA256 must be 64 lowercase hex characters."
  }
}

variable "LMCACHE_REPO" {
  type        = string
  default     = "https://github.com/LMCache/LMCache.git"
  description = "LMCache source repository (built with BUILD_WITH_HIP=1, CXX=hipcc)."
}

variable "LMCACHE_COMMIT" {
  type        = string
  default     = "140819c9d57a975dbc5678a6459a218e544cb58b"
  description = "LMCache commit (the commit of tag v0.5.3, the release vLLM's ROCm image installs via its v0.5.3-rocm wheel)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", LMCACHE_COMMIT))
    error_message = "LMCACHE_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
LMCACHE_COMMIT_SOURCE = {
  git  = LMCACHE_REPO
  tags = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
}

variable "LMCACHE_REF" {
  type        = string
  default     = "v0.5.3"
  description = "LMCache release tag of LMCACHE_COMMIT; the build fails if the tag does not point at LMCACHE_COMMIT."
  validation {
    condition     = can(regex("^v[0-9]+\\.[0-9]+\\.[0-9]+(\\.post[0-9]+)?$", LMCACHE_REF))
    error_message = "LMCACHE_REF must be a release tag vX.Y.Z[.postN]."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
LMCACHE_REF_SOURCE = {
  github = "LMCache/LMCache"
  tags   = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)$"
  wheels = {
    github   = "LMCache/LMCache"
    package  = "lmcache"
    variant  = "rocm7.2"
    python   = "cp${replace(PYTHON_VERSION, ".", "")}"
    platform = "manylinux_2_28_x86_64"
  }
}

# ---------------------------------------------------------------------------
# FlashAttention and MoRI (vLLM v0.33.0 docker/Dockerfile.rocm_72_base build_fa, build_mori)
# ---------------------------------------------------------------------------

variable "FA_REPO" {
  type        = string
  default     = "https://github.com/Dao-AILab/flash-attention.git"
  description = "FlashAttention source repository (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 11 FA_REPO; its ROCm build is the composable_kernel backend)."
}

variable "FA_COMMIT" {
  type        = string
  default     = "0e60e39473e8df549a20fb5353760f7a65b30e2d"
  description = "FlashAttention commit: vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 10 FA_BRANCH \"0e60e394\" (as v0.28.0 pinned it), resolved in Dao-AILab/flash-attention (on main, 6 commits after tag v2.8.3; flash_attn __version__ 2.8.3)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", FA_COMMIT))
    error_message = "FA_COMMIT must be a full 40-hex commit."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
FA_COMMIT_SOURCE = {
  git    = FA_REPO
  tags   = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+(\\.post[0-9]+)?)$"
  branch = "main"
}

variable "FA_REF" {
  type        = string
  default     = "vllm-v0.33.0"
  description = "Human label for FA_COMMIT: the revision vLLM v0.33.0's docker/Dockerfile.rocm_72_base pins (FA_BRANCH is a commit, no tag). Informational only."
}

variable "FA_VERSION" {
  type        = string
  default     = "2.8.3"
  description = "flash_attn version FA_COMMIT builds (flash_attn/__init__.py __version__ at FA_COMMIT); used in tags and labels."
}

variable "MORI_REPO" {
  type        = string
  default     = "https://github.com/ROCm/mori.git"
  description = "MoRI source repository (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 15 MORI_REPO; builds the amd_mori wheel)."
}

variable "MORI_REF" {
  type        = string
  default     = "v1.2.3.post1"
  description = "MoRI release tag (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 14 MORI_BRANCH)."
  validation {
    condition     = can(regex("^v[0-9]+\\.[0-9]+\\.[0-9]+(\\.post[0-9]+)?$", MORI_REF))
    error_message = "MORI_REF must be a release tag vX.Y.Z[.postN]."
  }
}

# Where this pin comes from (read by `inv version-check`; see src/rocm_bake_checks/drift/declarations.py).
MORI_REF_SOURCE = {
  git  = MORI_REPO
  tags = "^v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+(\\.post[0-9]+)?)$"
}

variable "MORI_COMMIT" {
  type        = string
  default     = ""
  description = "Optional 40-hex commit MORI_REF must resolve to (empty = trust the tag, as vLLM pins the tag)."
  validation {
    condition     = MORI_COMMIT == "" || can(regex("^[0-9a-f]{40}$", MORI_COMMIT))
    error_message = "MORI_COMMIT must be empty or a full 40-hex commit."
  }
}

# MoRI's RDMA NIC provider libraries in the vLLM runtime image, as vllm-project/vllm
# docker/Dockerfile.rocm_72 (v0.33.0 sdist) installs them in its stage
# mori_base (lines 596-649), the stage its final image is built FROM, per NIC_BACKEND (line 17,
# default all): AMD AINIC's libionic-dev and ionic-common from
# https://repo.radeon.com/amdainic/pensando/ubuntu/<AINIC_VERSION> jammy (AINIC_VERSION
# 1.117.5-a-77, line 22; install_ainic, lines 602-614) and Broadcom Thor-2's
# bnxt-rocelib=235.2.86.0 from https://packages.broadcom.com/artifactory/ethernet-nic-debian-public
# jammy (install_bnxt, lines 618-631).  Upstream adds the vendors' apt repositories with signing
# keys fetched unverified; here every vendor .deb is pinned by URL and sha256 (NIC_DEBS) and
# installed from its file (vllm.Dockerfile, stage mori_base).  Neither host could be reached
# where these pins are recorded, so no vendor .deb (its file name, version or sha256) is
# recorded yet: NIC_DEBS is empty and NIC_BACKEND is none until someone who reaches them records
# them (docs/manual/recipes.md).  `inv rehearse` runs the install with NIC_BACKEND=all and
# stand-in .debs of the real package names.
variable "NIC_BACKEND" {
  type        = string
  default     = "none"
  description = "The RDMA NICs whose provider libraries the vLLM runtime image carries for MoRI (vLLM v0.33.0 docker/Dockerfile.rocm_72 NIC_BACKEND): none, ainic (AMD AINIC: libionic-dev, ionic-common), bnxt (Broadcom Thor-2: bnxt-rocelib) or all. Upstream's default is all; here none until NIC_DEBS pins the vendors' .debs, which could not be recorded where the pins are kept (repo.radeon.com and packages.broadcom.com unreachable there)."
  validation {
    condition     = contains(["none", "ainic", "bnxt", "all"], NIC_BACKEND)
    error_message = "NIC_BACKEND must be one of none, ainic, bnxt, all (vLLM's docker/Dockerfile.rocm_72 NIC_BACKEND)."
  }
}

variable "NIC_DEBS" {
  type        = list(string)
  default     = []
  description = "The vendors' .debs NIC_BACKEND installs, each \"<backend> <sha256> <url>\" (backend ainic or bnxt; env: comma-separated): for ainic libionic-dev, ionic-common and the libionic1 they need from https://repo.radeon.com/amdainic/pensando/ubuntu/1.117.5-a-77/ (vLLM v0.33.0's AINIC_VERSION), for bnxt bnxt-rocelib 235.2.86.0 from https://packages.broadcom.com/artifactory/ethernet-nic-debian-public/. Each is downloaded, checked by its sha256 and installed from its file; the build checks that upstream's packages are then installed. Empty: none recorded yet (see NIC_BACKEND)."
  validation {
    condition     = length([for d in NIC_DEBS : d if !can(regex("^(ainic [0-9a-f]{64} https://repo\\.radeon\\.com/amdainic/pensando/ubuntu/[^/ ]+/|bnxt [0-9a-f]{64} https://packages\\.broadcom\\.com/artifactory/ethernet-nic-debian-public/)[^ ;]+\\.deb$", d))]) == 0
    error_message = "NIC_DEBS entries must be \"ainic <sha256> https://repo.radeon.com/amdainic/pensando/ubuntu/<bundle>/....deb\" or \"bnxt <sha256> https://packages.broadcom.com/artifactory/ethernet-nic-debian-public/....deb\"."
  }
  validation {
    # an unknown NIC_BACKEND is the validation above's error alone
    condition     = !contains(["ainic", "bnxt", "all"], NIC_BACKEND) || length([for b in (NIC_BACKEND == "all" ? ["ainic", "bnxt"] : [NIC_BACKEND]) : b if length([for d in NIC_DEBS : d if split(" ", d)[0] == b]) == 0]) == 0
    error_message = "NIC_BACKEND=${NIC_BACKEND} needs NIC_DEBS entries for each NIC it names (the vendors' .debs by URL and sha256); none are recorded yet: NIC_BACKEND=none."
  }
}

variable "ROCM_RUNTIME_REPO" {
  type        = string
  default     = "https://github.com/ROCm/rocm-systems.git"
  description = "ROCm's systems monorepo (ROCr, CLR, HIP, rocprofiler-sdk): upstream's ROCM_SYSTEMS_REPO (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 16). One clone holds every rocm-runtime commit below."
}

variable "ROCM_RUNTIME_COMMIT" {
  type        = string
  default     = "af70edc91f1dc5d228fd4c076df99e65e49c4521"
  description = "rocm-systems commit of ROCr and CLR (libhsa-runtime64, libamdhip64) built over the base image's ROCm: upstream's ROCM_RUNTIME_COMMIT (Dockerfile.rocm_72_base line 18: updates to ROCr + clr from ROCm 7.2.4 and beyond)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", ROCM_RUNTIME_COMMIT))
    error_message = "ROCM_RUNTIME_COMMIT must be a full 40-hex commit."
  }
}

variable "ROCM_RUNTIME_REF" {
  type        = string
  default     = "vllm-v0.33.0"
  description = "Human label for ROCM_RUNTIME_COMMIT: upstream names only the commit (vLLM v0.33.0's docker/Dockerfile.rocm_72_base pins it). Informational only."
}

# Where this pin comes from (read by `inv version-check`).
ROCM_RUNTIME_COMMIT_SOURCE = {
  git    = ROCM_RUNTIME_REPO
  branch = "develop"
}

variable "ROCPROFILER_SDK_COMMIT" {
  type        = string
  default     = "2b22ab0195cc1461cd9abf3b969e9dd7c10af350"
  description = "rocm-systems commit of rocprofiler-sdk (1.3.2, upstream's comment) built over the base image's ROCm: upstream's ROCPROFILER_SDK_COMMIT (Dockerfile.rocm_72_base line 17)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", ROCPROFILER_SDK_COMMIT))
    error_message = "ROCPROFILER_SDK_COMMIT must be a full 40-hex commit."
  }
}

variable "ROCPROFILER_SDK_REF" {
  type        = string
  default     = "vllm-v0.33.0"
  description = "Human label for ROCPROFILER_SDK_COMMIT: upstream names only the commit. Informational only."
}

# Where this pin comes from (read by `inv version-check`).
ROCPROFILER_SDK_COMMIT_SOURCE = {
  git    = ROCM_RUNTIME_REPO
  branch = "develop"
}

variable "ROCPROFILER_SDK_PR_7796_COMMIT" {
  type        = string
  default     = "fae7fd57ffb8a76e811d6410b8a0cee1e94d710a"
  description = "rocm-systems commit whose rocprofiler-sdk hsa/ changes (queue-interposition fixes, PR 7796) are applied over ROCPROFILER_SDK_COMMIT: upstream's ROCPROFILER_SDK_PR_7796 (Dockerfile.rocm_72_base line 398)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", ROCPROFILER_SDK_PR_7796_COMMIT))
    error_message = "ROCPROFILER_SDK_PR_7796_COMMIT must be a full 40-hex commit."
  }
}

variable "ROCPROFILER_SDK_PR_7796_REF" {
  type        = string
  default     = "ROCm/rocm-systems#7796"
  description = "Human label for ROCPROFILER_SDK_PR_7796_COMMIT (the pull request it comes from). Informational only."
}

variable "ROCPROFILER_SDK_PR_7924_COMMIT" {
  type        = string
  default     = "f8db22adbe17686a9b05ae03367dd1ec73011653"
  description = "rocm-systems commit whose rocprofiler-sdk hsa/ changes (queue-interposition fixes, PR 7924) are applied after ROCPROFILER_SDK_PR_7796_COMMIT's: upstream's ROCPROFILER_SDK_PR_7924 (Dockerfile.rocm_72_base line 399)."
  validation {
    condition     = can(regex("^[0-9a-f]{40}$", ROCPROFILER_SDK_PR_7924_COMMIT))
    error_message = "ROCPROFILER_SDK_PR_7924_COMMIT must be a full 40-hex commit."
  }
}

variable "ROCPROFILER_SDK_PR_7924_REF" {
  type        = string
  default     = "ROCm/rocm-systems#7924"
  description = "Human label for ROCPROFILER_SDK_PR_7924_COMMIT (the pull request it comes from). Informational only."
}

# ---------------------------------------------------------------------------
# Per-arch reality: what each cell skips, and why (flat "<arch>/<component>" map)
# ---------------------------------------------------------------------------
# gfx1250 is an honest skip, not a real cell: upstream builds nothing for it on a ROCm 7.2.3
# base.  vLLM v0.33.0's docker/Dockerfile.rocm_72_base (PYTORCH_ROCM_ARCH gfx90a ... gfx1201,
# gfx1150, gfx1151) has no gfx1250; its docker/Dockerfile.rocm_base_gfx1250 installs prebuilt
# torch 2.11.0+rocm10.1.0a20260822 wheels on a TheRock ROCm SDK 10.1.0a20260822 base and builds
# AITER JIT-only there (AITER_BRANCH f85b24b, ENABLE_CK=0, PREBUILD_KERNELS=0).  On this base every
# component that generates GPU code or needs the cell's torch is skipped, each with its reason.
# What remains for gfx1250 is what has no GPU code: the base image and UCX + NIXL (host code
# over the HIP runtime API).  A per-arch TheRock base is the way to make it a real cell.
#
# A cell is built as upstream ships it (`inv lint`, rule supported-archs, from upstream's own
# files: src/rocm_bake_checks/lint/upstream.toml [supported-archs]).  "Upstream ships it on the
# arch" and "it has GPU kernels for the arch" are two questions: vLLM v0.33.0's release image
# (docker/Dockerfile.rocm_72_base, one image for PYTORCH_ROCM_ARCH=gfx90a;...;gfx1201;... at line
# 35) carries AITER and FlashAttention on every one of its archs, though it compiles AITER's
# kernels for gfx942;gfx950 only (AITER_ROCM_ARCH, line 37; GPU_ARCHS=${AITER_ROCM_ARCH}, line
# 272) and FlashAttention's for its gfx9 archs only (line 249: GPU_ARCHS=$(echo
# ${PYTORCH_ROCM_ARCH} | sed -e 's/;gfx1[0-9]\{3\}//g')).  On gfx1201 they are there for their
# Triton kernels, which vLLM uses on RDNA4 (vllm/_aiter_ops.py is_rdna_aiter_enabled: "Only
# aiter's Triton kernels exist on gfx12"; vllm/platforms/rocm.py flash_attn_triton_available:
# flash_attn.flash_attn_triton_amd with FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE).  So:
#   - a cell upstream ships without kernels for its arch is built without them, where the wheel
#     has such a build: listed in TRITON_ONLY below;
#   - a cell upstream does not ship, or ships without kernels and with no build without them
#     (MoRI on gfx1201), is skipped: listed in SKIP, with its reason.

SKIP = {
  "gfx1201/mori"       = "MoRI's setup.py _supported_arch_list is gfx942, gfx950; vLLM imports mori only for its MoRI all2all backend"
  "gfx1250/aiter"   = "needs the cell's torch (AITER's build and its JIT kernels compile against it), which gfx1250 has no build of here; AITER's GFX_MAP does list gfx1250, but upstream's only gfx1250 AITER is JIT-only (ENABLE_CK=0, PREBUILD_KERNELS=0, AITER_BRANCH f85b24b) over prebuilt TheRock torch on a ROCm SDK 10.1 base (vLLM v0.33.0 docker/Dockerfile.rocm_base_gfx1250)"
  "gfx1250/flash-attn" = "needs the cell's torch, which gfx1250 has no build of on ROCm 7.2.3; flash-attention's setup.py at FA_COMMIT allows gfx90a, gfx942, gfx950 only (allowed_archs)"
  "gfx1250/mori"       = "MoRI's setup.py _supported_arch_list is gfx942, gfx950; vLLM imports mori only for its MoRI all2all backend"
  "gfx1250/torch"   = "upstream builds no PyTorch for gfx1250 on ROCm 7.2.3: vLLM v0.33.0's Dockerfile.rocm_72_base arch list has no gfx1250, and its docker/Dockerfile.rocm_base_gfx1250 installs prebuilt torch 2.11.0+rocm10.1.0a20260822 wheels on a TheRock ROCm SDK 10.1 base instead"
  "gfx1250/triton"  = "needs the cell's torch, which gfx1250 has no build of on ROCm 7.2.3 (see gfx1250/torch)"
  "gfx1250/cupy"    = "no upstream CuPy build for gfx1250 on ROCm 7.2.3 (cupy-rocm wheels stop at the 7.x arch lists; upstream's gfx1250 stack is on a TheRock ROCm SDK 10.1 base, vLLM v0.33.0 docker/Dockerfile.rocm_base_gfx1250)"
  "gfx1250/vllm"    = "vLLM's ROCm 7.2.3 arch list (docker/Dockerfile.rocm_72_base) has no gfx1250; it builds gfx1250 only on a TheRock ROCm SDK 10.1 base (docker/Dockerfile.rocm_base_gfx1250)"
  "gfx1250/rocm-runtime" = "its one consumer, vLLM, is skipped on gfx1250; upstream rebuilds ROCr, CLR and rocprofiler-sdk only over its ROCm 7.2.3 base (vLLM v0.33.0 docker/Dockerfile.rocm_72_base), which has no gfx1250"
  "gfx1250/lmcache" = "needs the cell's vLLM and torch, which gfx1250 has no build of on ROCm 7.2.3"
}

# Cells built without GPU kernels of their own ("<arch>/<component>" = why): upstream ships the
# component on the arch with no kernels for it, and the wheel's own build without them is the
# one that fits it (no code objects of other archs).  Each such build is its setup.py's switch,
# passed by the component's target (AITER_TRITON_ONLY=1, FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE),
# and the vLLM image of the arch sets the same variables where it runs (the runtime imports them
# so); the cell's label rocm-bake.no-gpu-code gives the reason to the arch audit.
TRITON_ONLY = {
  "gfx1201/aiter"      = "AITER's Triton-only build (AITER_TRITON_ONLY=1): upstream's release image ships amd-aiter on gfx1201 with kernels for gfx942;gfx950 only (vLLM v0.33.0 docker/Dockerfile.rocm_72_base AITER_ROCM_ARCH, line 37); vLLM uses AITER's Triton kernels on gfx12"
  "gfx1201/flash-attn" = "FlashAttention's Triton backend (FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE): upstream's release image ships flash_attn on gfx1201 with composable_kernel kernels for its gfx9 archs only (vLLM v0.33.0 docker/Dockerfile.rocm_72_base line 249 drops every gfx1xxx arch; flash-attention's setup.py allowed_archs is gfx90a, gfx942, gfx950); vLLM uses its Triton backend on RDNA"
}

ALL_ARCHS  = ["gfx950", "gfx1201", "gfx1250"]
CELL_ARCHS = distinct(GPU_ARCHS)

# Cells of each component: the requested arches minus the SKIP entries.
ARCHS = {
  base    = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/base")]
  torch   = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/torch")]
  triton  = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/triton")]
  aiter   = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/aiter")]
  cupy    = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/cupy")]
  nixl    = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/nixl")]
  "flash-attn" = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/flash-attn")]
  mori    = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/mori")]
  vllm    = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/vllm")]
  lmcache = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/lmcache")]
  "rocm-runtime" = [for a in CELL_ARCHS : a if !contains(keys(SKIP), "${a}/rocm-runtime")]
  wheels  = CELL_ARCHS
}

# The arch spellings, all derived from the cell's one arch.
ARCH_ARGS = { for a in ALL_ARCHS : a => {
  PYTORCH_ROCM_ARCH = join(";", [a])
  GPU_ARCHS         = join(";", [a])
  HCC_AMDGPU_TARGET = join(",", [a])
} }

BASE_IMAGE_REF = ROCM_BASE_DIGEST == "" ? "${ROCM_BASE_IMAGE}:${ROCM_BASE_TAG}" : "${ROCM_BASE_IMAGE}:${ROCM_BASE_TAG}@${ROCM_BASE_DIGEST}"

# Tag scheme: REGISTRY/IMAGE_PREFIX/<component>:<component version>-rocm<ROCM_VERSION>-<arch>
IMAGE_REPO = "${REGISTRY}/${IMAGE_PREFIX}"
VERSION_TAG = {
  base    = "py${PYTHON_VERSION}"
  torch   = "${PYTORCH_VERSION}-git${substr(PYTORCH_COMMIT, 0, 7)}"
  triton  = "${TRITON_VERSION}-git${substr(TRITON_COMMIT, 0, 8)}"
  aiter   = AITER_COMMIT == "" ? trimprefix(AITER_REF, "v") : "${trimprefix(AITER_REF, "v")}-git${substr(AITER_COMMIT, 0, 8)}"
  cupy    = CUPY_COMMIT == "" ? trimprefix(CUPY_REF, "v") : "${trimprefix(CUPY_REF, "v")}-git${substr(CUPY_COMMIT, 0, 8)}"
  nixl    = "git${substr(NIXL_COMMIT, 0, 8)}-ucx${substr(UCX_COMMIT, 0, 8)}"
  "flash-attn" = "${FA_VERSION}-git${substr(FA_COMMIT, 0, 8)}"
  mori    = MORI_COMMIT == "" ? trimprefix(MORI_REF, "v") : "${trimprefix(MORI_REF, "v")}-git${substr(MORI_COMMIT, 0, 8)}"
  vllm    = "${trimprefix(VLLM_REF, "v")}-git${substr(VLLM_COMMIT, 0, 9)}"
  "rocm-runtime" = "git${substr(ROCM_RUNTIME_COMMIT, 0, 8)}-rocprofiler${substr(ROCPROFILER_SDK_COMMIT, 0, 8)}"
  lmcache = "${trimprefix(LMCACHE_REF, "v")}-git${substr(LMCACHE_COMMIT, 0, 8)}"
}

# The components whose cells carry no GPU code of their own, and why: the arch audit after a
# build (archaudit/cells.py) fails any other cell whose artifacts hold no GPU code for its arch.
# Each reason becomes the cell's label rocm-bake.no-gpu-code.
NO_GPU_CODE = {
  base   = "the ROCm base image, Python and build tools: ROCm's own libraries (/opt/rocm*) are left out of the audit"
  triton = "Triton compiles its kernels at run time: its wheel holds the compiler, no .hip_fatbin (vLLM docker/Dockerfile.rocm_72_base build_triton)"
  "rocm-runtime" = "ROCr, CLR and rocprofiler-sdk are host code: upstream's build_rocm_runtime and build_rocprofiler_sdk pass no GPU arch (vLLM v0.33.0 docker/Dockerfile.rocm_72_base)"
  nixl   = "UCX and NIXL are host code over the HIP runtime API (no HIP kernels)"
}

# What a component needs beyond its own Dockerfile and the tables above, declared here once
# (rocm_bake.model.components reads them; `inv lint` names each entry a component lacks):
#   WHEELS          the distributions its cells build, where that is not the one wheel named
#                   after the component (the conformance and locks families, the lock inputs)
#   UPSTREAM_STAGE  the stages of upstream's Dockerfiles ("<file>:<stage>", the files of
#                   src/rocm_bake_checks/lint/upstream-dockerfiles.toml) it answers, where that
#                   is not upstream's build_<name>; [] when upstream builds no such stage
#   CONSUMERS       the images that install its wheels (or its libraries): each such target takes
#                   it as a context and its image stage pip-installs it from that context (or is
#                   built FROM it; a library: copies its /staging and runs ldconfig); the wheels
#                   export takes every wheel component anyway
#   LIBRARIES       a library component (no wheel; the table is written with its first entry):
#                   the shared libraries its cells build, which its target stage exports as a
#                   prefix under /staging (/staging/lib/<lib>.so*) and each image of its
#                   CONSUMERS copies into its own prefix and registers with ldconfig (vLLM
#                   v0.33.0 docker/Dockerfile.rocm_72_base: build_rocm_runtime writes
#                   /staging/lib, its final stage COPY --from=... /staging/ /opt/rocm/, then
#                   RUN ldconfig)
#   STATIC_SECONDS  a cold cell's build time, for fleet estimates before the perf history has it
WHEELS = {
  base   = []
  torch  = ["torch", "torchvision", "torchaudio"]
  aiter  = ["amd-aiter"]
  nixl   = ["nixl-rocm"]
  mori   = ["amd-mori"]
  vllm   = ["vllm", "amdsmi"]
}
LIBRARIES = {
  "rocm-runtime" = ["libhsa-runtime64", "libamdhip64", "librocprofiler-sdk"]
}
UPSTREAM_STAGE = {
  base    = []
  torch   = ["rocm_base:build_pytorch", "rocm_base:build_torchvision", "rocm_base:build_torchaudio"]
  cupy    = []
  "flash-attn" = ["rocm_base:build_fa"]
  vllm    = ["rocm:build_vllm_wheel_release"]
  "rocm-runtime" = ["rocm_base:build_rocm_runtime", "rocm_base:build_rocprofiler_sdk"]
  lmcache = []
}
CONSUMERS = {
  torch  = ["vllm"]
  triton = ["vllm"]
  aiter  = ["vllm"]
  cupy   = ["lmcache"]
  nixl   = ["vllm"]
  "flash-attn" = ["vllm"]
  mori   = ["vllm"]
  "rocm-runtime" = ["vllm"]
  vllm   = ["lmcache"]
}
STATIC_SECONDS = {
  base    = 300
  torch   = 3600
  triton  = 1200
  aiter   = 1800
  cupy    = 900
  nixl    = 600
  "flash-attn" = 1800
  mori    = 900
  vllm    = 1800
  lmcache = 600
  "rocm-runtime" = 1200
  wheels  = 60
}

# Registry layer cache, keyed by the pins each stage depends on.
CACHE_REPO = "${IMAGE_REPO}/buildcache"
CACHE_KEY = {
  base    = VERSION_TAG["base"]
  torch   = VERSION_TAG["torch"]
  triton  = VERSION_TAG["triton"]
  aiter   = VERSION_TAG["aiter"]
  cupy    = VERSION_TAG["cupy"]
  nixl    = "${NIXL_COMMIT}-ucx-${UCX_COMMIT}"
  "flash-attn" = VERSION_TAG["flash-attn"]
  mori    = VERSION_TAG["mori"]
  vllm    = VLLM_COMMIT
  lmcache = LMCACHE_COMMIT
  "rocm-runtime" = "${ROCM_RUNTIME_COMMIT}-rocprofiler-${ROCPROFILER_SDK_COMMIT}"
}
# The base image keeps only its final layers in the registry cache; compile stages keep all.
CACHE_MODE = { base = "min" }

# Every pin, for labels and the pins file written next to the exported wheels.
PINS = {
  ROCM_VERSION       = ROCM_VERSION
  BASE_IMAGE         = BASE_IMAGE_REF
  PYTHON_VERSION     = PYTHON_VERSION
  SCCACHE_VERSION    = SCCACHE_VERSION
  CMAKE_VERSION      = CMAKE_VERSION
  NINJA_VERSION      = NINJA_VERSION
  PYTORCH_REPO       = PYTORCH_REPO
  PYTORCH_COMMIT     = PYTORCH_COMMIT
  PYTORCH_REF        = PYTORCH_REF
  TORCHVISION_COMMIT = TORCHVISION_COMMIT
  TORCHVISION_REF    = TORCHVISION_REF
  TORCHAUDIO_COMMIT  = TORCHAUDIO_COMMIT
  TORCHAUDIO_REF     = TORCHAUDIO_REF
  TRITON_REPO        = TRITON_REPO
  TRITON_COMMIT      = TRITON_COMMIT
  TRITON_REF         = TRITON_REF
  TRITON_KERNELS_COMMIT = TRITON_KERNELS_COMMIT
  TRITON_KERNELS_REF = TRITON_KERNELS_REF
  AITER_REPO         = AITER_REPO
  AITER_REF          = AITER_REF
  AITER_COMMIT       = AITER_COMMIT
  CUPY_REF           = CUPY_REF
  CUPY_COMMIT        = CUPY_COMMIT
  UCX_COMMIT         = UCX_COMMIT
  UCX_REF            = UCX_REF
  NIXL_COMMIT        = NIXL_COMMIT
  NIXL_REF           = NIXL_REF
  FA_REPO            = FA_REPO
  FA_COMMIT          = FA_COMMIT
  FA_REF             = FA_REF
  MORI_REPO          = MORI_REPO
  MORI_REF           = MORI_REF
  MORI_COMMIT        = MORI_COMMIT
  VLLM_COMMIT        = VLLM_COMMIT
  VLLM_REF           = VLLM_REF
  RUST_VERSION       = RUST_VERSION
  NIC_BACKEND        = NIC_BACKEND
  NIC_DEBS           = join(";", NIC_DEBS)
  LMCACHE_COMMIT     = LMCACHE_COMMIT
  ROCM_RUNTIME_REPO  = ROCM_RUNTIME_REPO
  ROCM_RUNTIME_COMMIT = ROCM_RUNTIME_COMMIT
  ROCM_RUNTIME_REF   = ROCM_RUNTIME_REF
  ROCPROFILER_SDK_COMMIT = ROCPROFILER_SDK_COMMIT
  ROCPROFILER_SDK_REF = ROCPROFILER_SDK_REF
  ROCPROFILER_SDK_PR_7796_COMMIT = ROCPROFILER_SDK_PR_7796_COMMIT
  ROCPROFILER_SDK_PR_7796_REF = ROCPROFILER_SDK_PR_7796_REF
  ROCPROFILER_SDK_PR_7924_COMMIT = ROCPROFILER_SDK_PR_7924_COMMIT
  ROCPROFILER_SDK_PR_7924_REF = ROCPROFILER_SDK_PR_7924_REF
  LMCACHE_REF        = LMCACHE_REF
}

# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------

target "_common" {
  context   = "dockerfiles"
  platforms = ["linux/amd64"]
  args = {
    SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH
  }
  labels = {
    "org.opencontainers.image.vendor" = "rocm-bake"
    "rocm-bake.rocm-version"          = ROCM_VERSION
    "rocm-bake.base-image"            = BASE_IMAGE_REF
  }
}

# Knobs every compile step reads.
target "_compile" {
  inherits = ["_common"]
  args = {
    MAX_JOBS   = "${MAX_JOBS}"
    CACHE_TYPE = CACHE_TYPE
  }
  # Remote compiler-cache credentials: a BuildKit secret, mounted only by compile steps. Its id
  # (and the compile steps' cache-mount ids) keep the name "sccache" for ccache too: the id is
  # part of every compile step's instruction, so renaming it would rebuild every compile layer.
  secret = CACHE_SECRET_FILE == "" ? [] : ["id=sccache,src=${CACHE_SECRET_FILE}"]
}

# Empty stand-in for an optional component a cell skips: an image holding an empty
# /wheels, so `RUN --mount=type=bind,from=<component>,source=/wheels` always resolves.
target "empty" {
  inherits   = ["_common"]
  dockerfile = "empty.Dockerfile"
  target     = "empty"
}

# The shape every component cell shares (one per component and arch, inherited as
# "_cell-<component>-<arch>"): its labels, image tag and registry layer cache refs. A
# component's own block says only what is its own: dockerfile, stage, contexts, args, labels.
target "_cell" {
  matrix = { component = keys(CACHE_KEY), arch = CELL_ARCHS }
  name   = "_cell-${component}-${arch}"
  labels = merge({
    "rocm-bake.component" = component
    "rocm-bake.arch"      = arch
  }, { for k, v in { "rocm-bake.no-gpu-code" = lookup(NO_GPU_CODE, component, lookup(TRITON_ONLY, "${arch}/${component}", "")) } : k => v if v != "" })
  # The cell's name on its builds in the buildx history (inv why-rebuilt finds them by it);
  # no Dockerfile declares it, so no step's cache key sees it.
  args = {
    BUILDKIT_BUILD_NAME = "${component}-${arch}"
  }
  tags       = ["${IMAGE_REPO}/${component}:${VERSION_TAG[component]}-rocm${ROCM_VERSION}-${arch}"]
  cache-from = concat(["type=registry,ref=${CACHE_REPO}:${component}-${arch}-rocm${ROCM_VERSION}-${CACHE_KEY[component]}"], CACHE_FALLBACK ? ["type=registry,ref=${CACHE_REPO}:${component}-${arch}-rocm${ROCM_VERSION}-env-${CACHE_ENV}"] : [])
  cache-to   = CACHE_EXPORT ? concat(["type=registry,ref=${CACHE_REPO}:${component}-${arch}-rocm${ROCM_VERSION}-${CACHE_KEY[component]},mode=${lookup(CACHE_MODE, component, "max")}"], CACHE_FALLBACK ? ["type=registry,ref=${CACHE_REPO}:${component}-${arch}-rocm${ROCM_VERSION}-env-${CACHE_ENV},mode=${lookup(CACHE_MODE, component, "max")}"] : []) : []
}

target "base" {
  matrix     = { arch = ARCHS["base"] }
  name       = "base-${arch}"
  inherits   = ["_common", "_cell-base-${arch}"]
  dockerfile = "base.Dockerfile"
  target     = "base"
  args = merge(ARCH_ARGS[arch], {
    BASE_IMAGE      = BASE_IMAGE_REF
    ROCM_VERSION    = ROCM_VERSION
    PYTHON_VERSION  = PYTHON_VERSION
    SCCACHE_VERSION = SCCACHE_VERSION
    SCCACHE_SHA256  = SCCACHE_SHA256
    CMAKE_VERSION   = CMAKE_VERSION
    NINJA_VERSION   = NINJA_VERSION
  })
}

target "torch" {
  matrix     = { arch = ARCHS["torch"] }
  name       = "torch-${arch}"
  inherits   = ["_compile", "_cell-torch-${arch}"]
  dockerfile = "torch.Dockerfile"
  target     = "wheels"
  contexts = {
    base = "target:base-${arch}"
  }
  args = merge(ARCH_ARGS[arch], {
    PYTORCH_REPO       = PYTORCH_REPO
    PYTORCH_COMMIT     = PYTORCH_COMMIT
    PYTORCH_REF        = PYTORCH_REF
    PYTORCH_VERSION    = PYTORCH_VERSION
    CMAKE_VERSION      = CMAKE_VERSION
    NINJA_VERSION      = NINJA_VERSION
    TORCHVISION_REPO   = TORCHVISION_REPO
    TORCHVISION_COMMIT = TORCHVISION_COMMIT
    TORCHVISION_REF    = TORCHVISION_REF
    TORCHAUDIO_REPO    = TORCHAUDIO_REPO
    TORCHAUDIO_COMMIT  = TORCHAUDIO_COMMIT
    TORCHAUDIO_REF     = TORCHAUDIO_REF
  })
  labels = {
    "org.opencontainers.image.source"   = PYTORCH_REPO
    "org.opencontainers.image.revision" = PYTORCH_COMMIT
    "org.opencontainers.image.version"  = PYTORCH_VERSION
  }
}

target "triton" {
  matrix     = { arch = ARCHS["triton"] }
  name       = "triton-${arch}"
  inherits   = ["_compile", "_cell-triton-${arch}"]
  dockerfile = "triton.Dockerfile"
  target     = "wheels"
  contexts = {
    base  = "target:base-${arch}"
    torch = "target:torch-${arch}"
  }
  args = {
    TRITON_REPO   = TRITON_REPO
    TRITON_COMMIT = TRITON_COMMIT
    TRITON_REF    = TRITON_REF
  }
  labels = {
    "org.opencontainers.image.source"   = TRITON_REPO
    "org.opencontainers.image.revision" = TRITON_COMMIT
    "org.opencontainers.image.version"  = TRITON_VERSION
  }
}

target "aiter" {
  matrix     = { arch = ARCHS["aiter"] }
  name       = "aiter-${arch}"
  inherits   = ["_compile", "_cell-aiter-${arch}"]
  dockerfile = "aiter.Dockerfile"
  target     = "wheels"
  contexts = {
    base   = "target:base-${arch}"
    torch  = "target:torch-${arch}"
    triton = "target:triton-${arch}"
  }
  # A TRITON_ONLY cell: AITER's own switch to its Triton-only build (ROCm/aiter setup.py at
  # AITER_REF, lines 24-27: AITER_TRITON_ONLY == "1" turns off CK and PREBUILD_KERNELS).
  args = merge(ARCH_ARGS[arch], {
    AITER_REPO   = AITER_REPO
    AITER_REF    = AITER_REF
    AITER_COMMIT = AITER_COMMIT
  }, { for k, v in { AITER_TRITON_ONLY = "1" } : k => v if contains(keys(TRITON_ONLY), "${arch}/aiter") })
  labels = {
    "org.opencontainers.image.source"  = AITER_REPO
    "org.opencontainers.image.version" = AITER_REF
  }
}

# CuPy links only the HIP runtime: it builds straight from base, so a torch bump
# does not rebuild it.
target "cupy" {
  matrix     = { arch = ARCHS["cupy"] }
  name       = "cupy-${arch}"
  inherits   = ["_compile", "_cell-cupy-${arch}"]
  dockerfile = "cupy.Dockerfile"
  target     = "wheels"
  contexts = {
    base = "target:base-${arch}"
  }
  args = merge(ARCH_ARGS[arch], {
    CUPY_REPO   = CUPY_REPO
    CUPY_REF    = CUPY_REF
    CUPY_COMMIT = CUPY_COMMIT
  })
  labels = {
    "org.opencontainers.image.source"  = CUPY_REPO
    "org.opencontainers.image.version" = CUPY_REF
  }
}

# UCX (--with-rocm) + NIXL (nixl-rocm wheel).  No torch inside: builds from base.
target "nixl" {
  matrix     = { arch = ARCHS["nixl"] }
  name       = "nixl-${arch}"
  inherits   = ["_compile", "_cell-nixl-${arch}"]
  dockerfile = "ucx-nixl.Dockerfile"
  target     = "wheels"
  contexts = {
    base = "target:base-${arch}"
  }
  args = {
    UCX_REPO    = UCX_REPO
    UCX_COMMIT  = UCX_COMMIT
    UCX_REF     = UCX_REF
    NIXL_REPO   = NIXL_REPO
    NIXL_COMMIT = NIXL_COMMIT
    NIXL_REF    = NIXL_REF
  }
  labels = {
    "org.opencontainers.image.source"   = NIXL_REPO
    "org.opencontainers.image.revision" = NIXL_COMMIT
    "rocm-bake.ucx-commit"              = UCX_COMMIT
  }
}

# FlashAttention (composable_kernel backend; its Triton backend for a TRITON_ONLY cell) over the
# cell's torch (vLLM v0.33.0 docker/Dockerfile.rocm_72_base build_fa).
target "flash-attn" {
  matrix     = { arch = ARCHS["flash-attn"] }
  name       = "flash-attn-${arch}"
  inherits   = ["_compile", "_cell-flash-attn-${arch}"]
  dockerfile = "flash-attn.Dockerfile"
  target     = "wheels"
  contexts = {
    base  = "target:base-${arch}"
    torch = "target:torch-${arch}"
  }
  # A TRITON_ONLY cell: FlashAttention's own switch to its Triton backend (its setup.py at
  # FA_COMMIT, lines 65-66: FLASH_ATTENTION_TRITON_AMD_ENABLE == "TRUE" skips the CK build).
  args = merge(ARCH_ARGS[arch], {
    FA_REPO    = FA_REPO
    FA_COMMIT  = FA_COMMIT
    FA_REF     = FA_REF
    FA_VERSION = FA_VERSION
  }, { for k, v in { FLASH_ATTENTION_TRITON_AMD_ENABLE = "TRUE" } : k => v if contains(keys(TRITON_ONLY), "${arch}/flash-attn") })
  labels = {
    "org.opencontainers.image.source"   = FA_REPO
    "org.opencontainers.image.revision" = FA_COMMIT
    "org.opencontainers.image.version"  = FA_VERSION
  }
}

# MoRI (the amd_mori wheel) over the cell's torch (vLLM v0.33.0 docker/Dockerfile.rocm_72_base
# build_mori).
target "mori" {
  matrix     = { arch = ARCHS["mori"] }
  name       = "mori-${arch}"
  inherits   = ["_compile", "_cell-mori-${arch}"]
  dockerfile = "mori.Dockerfile"
  target     = "wheels"
  contexts = {
    base  = "target:base-${arch}"
    torch = "target:torch-${arch}"
  }
  args = merge(ARCH_ARGS[arch], {
    # MoRI's own arch knob, from the cell's one arch (its setup.py: MORI_GPU_ARCHS first, else
    # the build host's GPU).
    MORI_GPU_ARCHS = join(";", [arch])
    MORI_REPO      = MORI_REPO
    MORI_REF       = MORI_REF
    MORI_COMMIT    = MORI_COMMIT
  })
  labels = {
    "org.opencontainers.image.source"  = MORI_REPO
    "org.opencontainers.image.version" = MORI_REF
  }
}

target "vllm" {
  matrix     = { arch = ARCHS["vllm"] }
  name       = "vllm-${arch}"
  inherits   = ["_compile", "_cell-vllm-${arch}"]
  dockerfile = "vllm.Dockerfile"
  target     = "runtime"
  contexts = {
    base   = "target:base-${arch}"
    torch  = "target:torch-${arch}"
    triton = "target:triton-${arch}"
    aiter  = contains(ARCHS["aiter"], arch) ? "target:aiter-${arch}" : "target:empty"
    "flash-attn" = contains(ARCHS["flash-attn"], arch) ? "target:flash-attn-${arch}" : "target:empty"
    mori   = contains(ARCHS["mori"], arch) ? "target:mori-${arch}" : "target:empty"
    nixl   = contains(ARCHS["nixl"], arch) ? "target:nixl-${arch}" : "target:empty"
    "rocm-runtime" = contains(ARCHS["rocm-runtime"], arch) ? "target:rocm-runtime-${arch}" : "target:empty"
  }
  args = merge(ARCH_ARGS[arch], {
    VLLM_COMMIT       = VLLM_COMMIT
    VLLM_REF          = VLLM_REF
    VLLM_SDIST_URL    = VLLM_SDIST_URL
    VLLM_SDIST_SHA256 = VLLM_SDIST_SHA256
    TRITON_REPO           = TRITON_REPO
    TRITON_KERNELS_COMMIT = TRITON_KERNELS_COMMIT
    TRITON_KERNELS_REF    = TRITON_KERNELS_REF
    RUST_VERSION          = RUST_VERSION
    RUST_URL              = RUST_URL
    RUST_SHA256           = RUST_SHA256
    NIC_BACKEND           = NIC_BACKEND
    NIC_DEBS              = join(";", NIC_DEBS)
    # Every pin, for the runtime image's /opt/rocm-bake/versions.json.
    ROCM_BAKE_PINS = jsonencode(PINS)
  },
    # Where the cell's AITER / FlashAttention is its build without kernels (TRITON_ONLY), the
    # image runs it so: the same switches, read again at import (AITER's aiter/__init__.py,
    # FlashAttention's flash_attn_interface.py), set in its environment.
    { for k, v in { AITER_TRITON_ONLY = "1" } : k => v if contains(keys(TRITON_ONLY), "${arch}/aiter") },
    { for k, v in { FLASH_ATTENTION_TRITON_AMD_ENABLE = "TRUE" } : k => v if contains(keys(TRITON_ONLY), "${arch}/flash-attn") })
  labels = {
    "org.opencontainers.image.source"   = VLLM_REPO
    "org.opencontainers.image.revision" = VLLM_COMMIT
    "org.opencontainers.image.version"  = VLLM_REF
    "rocm-bake.skipped"                 = join("; ", [for k in keys(SKIP) : "${k}: ${SKIP[k]}" if split("/", k)[0] == arch])
  }
}

target "lmcache" {
  matrix     = { arch = ARCHS["lmcache"] }
  name       = "lmcache-${arch}"
  inherits   = ["_compile", "_cell-lmcache-${arch}"]
  dockerfile = "lmcache.Dockerfile"
  target     = "runtime"
  contexts = {
    base   = "target:base-${arch}"
    torch  = "target:torch-${arch}"
    triton = "target:triton-${arch}"
    aiter  = contains(ARCHS["aiter"], arch) ? "target:aiter-${arch}" : "target:empty"
    cupy   = contains(ARCHS["cupy"], arch) ? "target:cupy-${arch}" : "target:empty"
    vllm   = "target:vllm-${arch}"
  }
  args = merge(ARCH_ARGS[arch], {
    LMCACHE_REPO   = LMCACHE_REPO
    LMCACHE_COMMIT = LMCACHE_COMMIT
    LMCACHE_REF    = LMCACHE_REF
    ROCM_VERSION   = ROCM_VERSION
    ROCM_BAKE_PINS = jsonencode(PINS)
  })
  labels = {
    "org.opencontainers.image.source"   = LMCACHE_REPO
    "org.opencontainers.image.revision" = LMCACHE_COMMIT
    "org.opencontainers.image.version"  = LMCACHE_REF
  }
}

# ROCr + CLR and rocprofiler-sdk rebuilt over the base image's ROCm 7.2.3, a library prefix the
# vLLM image installs into /opt/rocm (vLLM v0.33.0 docker/Dockerfile.rocm_72_base stages
# build_rocm_runtime and build_rocprofiler_sdk, and its final stage).
target "rocm-runtime" {
  matrix     = { arch = ARCHS["rocm-runtime"] }
  name       = "rocm-runtime-${arch}"
  inherits   = ["_compile", "_cell-rocm-runtime-${arch}"]
  dockerfile = "rocm-runtime.Dockerfile"
  target     = "staging"
  contexts = {
    base = "target:base-${arch}"
  }
  args = {
    ROCM_RUNTIME_REPO              = ROCM_RUNTIME_REPO
    ROCM_RUNTIME_COMMIT            = ROCM_RUNTIME_COMMIT
    ROCM_RUNTIME_REF               = ROCM_RUNTIME_REF
    ROCPROFILER_SDK_COMMIT         = ROCPROFILER_SDK_COMMIT
    ROCPROFILER_SDK_PR_7796_COMMIT = ROCPROFILER_SDK_PR_7796_COMMIT
    ROCPROFILER_SDK_PR_7924_COMMIT = ROCPROFILER_SDK_PR_7924_COMMIT
  }
  labels = {
    "org.opencontainers.image.source"   = ROCM_RUNTIME_REPO
    "org.opencontainers.image.revision" = ROCM_RUNTIME_COMMIT
  }
}

# Every wheel of one cell, plus rocm-bake-pins.txt, into dist/<arch>/.
target "wheels" {
  matrix     = { arch = ARCHS["wheels"] }
  name       = "wheels-${arch}"
  inherits   = ["_common"]
  dockerfile = "wheels-export.Dockerfile"
  target     = "export"
  contexts = {
    base    = "target:base-${arch}"
    torch   = contains(ARCHS["torch"], arch) ? "target:torch-${arch}" : "target:empty"
    triton  = contains(ARCHS["triton"], arch) ? "target:triton-${arch}" : "target:empty"
    aiter   = contains(ARCHS["aiter"], arch) ? "target:aiter-${arch}" : "target:empty"
    cupy    = contains(ARCHS["cupy"], arch) ? "target:cupy-${arch}" : "target:empty"
    nixl    = contains(ARCHS["nixl"], arch) ? "target:nixl-${arch}" : "target:empty"
    vllm    = contains(ARCHS["vllm"], arch) ? "target:vllm-${arch}" : "target:empty"
    lmcache = contains(ARCHS["lmcache"], arch) ? "target:lmcache-${arch}" : "target:empty"
  }
  args = {
    CELL_ARCH      = arch
    ROCM_BAKE_PINS = jsonencode(PINS)
    SKIPPED        = join("; ", [for k in keys(SKIP) : "${k}: ${SKIP[k]}" if split("/", k)[0] == arch])
  }
  # An arch every component with GPU code skips exports wheels without GPU code.
  labels = { for k, v in { "rocm-bake.no-gpu-code" = "every component with GPU code skips ${arch} (SKIP) or builds it without kernels (TRITON_ONLY)" } : k => v if length([for c in keys(CACHE_KEY) : c if lookup(NO_GPU_CODE, c, "") == "" && !contains(keys(TRITON_ONLY), "${arch}/${c}") && contains(ARCHS[c], arch)]) == 0 }
  output = ["type=local,dest=dist/${arch}"]
}

# ---------------------------------------------------------------------------
# Groups (one per component, so `bake <component>` works even when every cell of
# it is skipped; the description says what is skipped)
# ---------------------------------------------------------------------------

# A cell that skips vLLM (gfx1250 on ROCm 7.2.3) builds its wheels export instead: buildx
# refuses a group that names an empty group ("failed to find target vllm").
group "default" {
  description = "vLLM for every arch in GPU_ARCHS (default gfx950); a cell that skips vLLM builds its wheels export"
  targets     = concat([for a in ARCHS["vllm"] : "vllm-${a}"], [for a in CELL_ARCHS : "wheels-${a}" if !contains(ARCHS["vllm"], a)])
}

group "all" {
  description = "Every component for every arch in GPU_ARCHS, plus the wheels export"
  targets = concat(
    [for a in ARCHS["base"] : "base-${a}"],
    [for a in ARCHS["torch"] : "torch-${a}"],
    [for a in ARCHS["triton"] : "triton-${a}"],
    [for a in ARCHS["aiter"] : "aiter-${a}"],
    [for a in ARCHS["cupy"] : "cupy-${a}"],
    [for a in ARCHS["nixl"] : "nixl-${a}"],
    [for a in ARCHS["flash-attn"] : "flash-attn-${a}"],
    [for a in ARCHS["mori"] : "mori-${a}"],
    [for a in ARCHS["vllm"] : "vllm-${a}"],
    [for a in ARCHS["lmcache"] : "lmcache-${a}"],
    [for a in ARCHS["rocm-runtime"] : "rocm-runtime-${a}"],
    [for a in ARCHS["wheels"] : "wheels-${a}"],
  )
}

group "base" {
  description = "ROCm base image with Python, build tools, sccache and ccache"
  targets     = [for a in ARCHS["base"] : "base-${a}"]
}

group "torch" {
  description = "torch, torchvision, torchaudio wheels"
  targets     = [for a in ARCHS["torch"] : "torch-${a}"]
}

group "triton" {
  description = "triton wheel"
  targets     = [for a in ARCHS["triton"] : "triton-${a}"]
}

group "aiter" {
  description = join("", ["amd-aiter wheel", join("", [for a in CELL_ARCHS : "; skipped ${a}: ${SKIP["${a}/aiter"]}" if contains(keys(SKIP), "${a}/aiter")]), join("", [for a in CELL_ARCHS : "; ${a} without kernels: ${TRITON_ONLY["${a}/aiter"]}" if contains(keys(TRITON_ONLY), "${a}/aiter")])])
  targets     = [for a in ARCHS["aiter"] : "aiter-${a}"]
}

group "cupy" {
  description = "CuPy (HIP) wheel"
  targets     = [for a in ARCHS["cupy"] : "cupy-${a}"]
}

group "nixl" {
  description = "UCX (--with-rocm) and the nixl-rocm wheel"
  targets     = [for a in ARCHS["nixl"] : "nixl-${a}"]
}

group "flash-attn" {
  description = join("", ["flash_attn wheel (FlashAttention, composable_kernel backend)", join("", [for a in CELL_ARCHS : "; skipped ${a}: ${SKIP["${a}/flash-attn"]}" if contains(keys(SKIP), "${a}/flash-attn")]), join("", [for a in CELL_ARCHS : "; ${a} without kernels: ${TRITON_ONLY["${a}/flash-attn"]}" if contains(keys(TRITON_ONLY), "${a}/flash-attn")])])
  targets     = [for a in ARCHS["flash-attn"] : "flash-attn-${a}"]
}

group "mori" {
  description = join("", ["amd_mori wheel (MoRI)", join("", [for a in CELL_ARCHS : "; skipped ${a}: ${SKIP["${a}/mori"]}" if contains(keys(SKIP), "${a}/mori")])])
  targets     = [for a in ARCHS["mori"] : "mori-${a}"]
}

group "vllm" {
  description = "vLLM wheel"
  targets     = [for a in ARCHS["vllm"] : "vllm-${a}"]
}

group "lmcache" {
  description = "LMCache (HIP) wheel"
  targets     = [for a in ARCHS["lmcache"] : "lmcache-${a}"]
}

group "rocm-runtime" {
  description = "ROCr, CLR and rocprofiler-sdk (libhsa-runtime64, libamdhip64, librocprofiler-sdk) from ROCm/rocm-systems"
  targets     = [for a in ARCHS["rocm-runtime"] : "rocm-runtime-${a}"]
}

group "wheels" {
  description = "Every wheel of each cell into dist/<arch>/"
  targets     = [for a in ARCHS["wheels"] : "wheels-${a}"]
}
