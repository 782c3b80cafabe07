# The cache test stack: base -> ggml, with the cache plumbing of rocm-bake.hcl (registry layer
# cache refs keyed by the pins, mode=max for the compile stage, written only when CACHE_EXPORT;
# the compiler cache's settings only through the BuildKit secret `sccache`; cache mounts) around a real
# upstream HIP code base: ggml's HIP backend (and some of its host C/C++ code) from the released
# llama-cpp-python sdist, compiled by the real HIP compiler (scripts/hip-toolchain.sh) for
# GPU_ARCHS. tests/e2e/cachestack builds a small GGML_TUS set; `inv perf` the default full set.

variable "BASE_IMAGE" {
  type        = string
  default     = "rocm-bake/hip:test"
  description = "The real HIP toolchain image from scripts/hip-toolchain.sh image (a ROCm 7.x layout)."
}

variable "CACHE_TYPE" {
  type        = string
  default     = "ccache"
  description = "Compiler cache of the compile steps: ccache (rocm-bake.hcl's default), sccache or none."
}

variable "CACHE_SECRET_FILE" {
  type        = string
  default     = ""
  description = "Compiler-cache settings and credentials (KEY=VALUE: SCCACHE_*, or ccache's CCACHE_REMOTE_STORAGE), passed only as the BuildKit secret 'sccache'."
}

# The shared store by rocm-bake.hcl's names, from which `inv build` writes the secret when
# CACHE_SECRET_FILE is empty (tests/e2e/cachestack/test_tiers.py: the trust tiers on it).
variable "CACHE_STORE" {
  type        = string
  default     = "none"
  description = "Shared level of the compiler cache: none, webdav (CACHE_STORE_URL) or s3 (SCCACHE_S3_BUCKET; sccache only)."
}

variable "CACHE_STORE_URL" {
  type        = string
  default     = ""
  description = "The WebDAV store, for CACHE_STORE=webdav."
}

variable "CACHE_ENV" {
  type        = string
  default     = "ci"
  description = "Whose store: its key prefix on WebDAV, its bucket <SCCACHE_S3_BUCKET>-<CACHE_ENV> on S3."
}

variable "SCCACHE_S3_BUCKET" {
  type        = string
  default     = ""
  description = "The S3 bucket base, for CACHE_STORE=s3."
}

variable "SCCACHE_S3_ENDPOINT" {
  type        = string
  default     = ""
  description = "The S3 endpoint (http:// turns TLS off)."
}

variable "SCCACHE_S3_REGION" {
  type        = string
  default     = ""
  description = "The S3 bucket's region."
}

variable "CACHE_EXPORT" {
  type        = bool
  default     = false
  description = "Write the registry layer cache (push/schedule builds); pull requests only read it."
}

variable "CACHE_REPO" {
  type        = string
  default     = "127.0.0.1:5000/rocm-bake-cachestack/buildcache"
  description = "Registry repository of the layer cache."
}

variable "DOWNLOADS" {
  type        = string
  default     = "/var/cache/rocm-bake/cachestack"
  description = "Setup downloads (scripts/cachestack.sh): llama-cpp-python sdist, hipBLAS/rocBLAS .debs, sccache binary."
}

variable "DIST" {
  type        = string
  default     = "dist"
  description = "Where the ggml target exports its objects and compiler-cache stats."
}

variable "LLAMA_CPP_PYTHON_VERSION" {
  type        = string
  default     = "0.3.36"
  description = "The llama-cpp-python sdist whose vendored ggml is compiled."
}

variable "GPU_ARCHS" {
  type        = string
  default     = "gfx950"
  description = "The cell's GPU archs (';'-list): one --offload-arch each for every HIP TU (gfx950, gfx1201 or gfx1250)."
}

variable "GGML_TU_SET" {
  type        = string
  default     = "full"
  description = "Which translation units: full (the perf workload) or small (the CI tests)."
  validation {
    condition     = contains(["full", "small"], GGML_TU_SET)
    error_message = "GGML_TU_SET must be full or small."
  }
}

variable "GGML_TUS" {
  type        = string
  default     = GGML_TU_SET == "small" ? GGML_TUS_SMALL : GGML_TUS_FULL
  description = "The translation units compiled (paths under ggml/src); default: the GGML_TU_SET set."
}

variable "GGML_TUS_FULL" {
  type        = string
  description = "The perf workload: 39 of ggml's HIP TUs plus 7 host C/C++ TUs (not conv2d.cu: clang-22's backend cannot select its gfx1250 WMMA intrinsic) (2-6 min cold for one arch on 2 cores)."
  default     = join(" ", [
    "ggml-cuda/acc.cu", "ggml-cuda/add-id.cu", "ggml-cuda/arange.cu", "ggml-cuda/argmax.cu",
    "ggml-cuda/argsort.cu", "ggml-cuda/clamp.cu", "ggml-cuda/col2im-1d.cu", "ggml-cuda/concat.cu",
    "ggml-cuda/conv-transpose-1d.cu", "ggml-cuda/conv2d-dw.cu", "ggml-cuda/conv2d-transpose.cu",
    "ggml-cuda/count-equal.cu", "ggml-cuda/cross-entropy-loss.cu",
    "ggml-cuda/cumsum.cu", "ggml-cuda/diag.cu", "ggml-cuda/diagmask.cu", "ggml-cuda/fill.cu",
    "ggml-cuda/gla.cu", "ggml-cuda/im2col.cu", "ggml-cuda/mean.cu", "ggml-cuda/norm.cu",
    "ggml-cuda/opt-step-adamw.cu", "ggml-cuda/opt-step-sgd.cu", "ggml-cuda/out-prod.cu",
    "ggml-cuda/pad.cu", "ggml-cuda/pad_reflect_1d.cu", "ggml-cuda/pool1d.cu",
    "ggml-cuda/pool2d.cu", "ggml-cuda/roll.cu", "ggml-cuda/rope.cu", "ggml-cuda/scale.cu",
    "ggml-cuda/set-rows.cu", "ggml-cuda/set.cu", "ggml-cuda/softcap.cu", "ggml-cuda/softmax.cu",
    "ggml-cuda/sum.cu", "ggml-cuda/sumrows.cu", "ggml-cuda/tri.cu", "ggml-cuda/tsembd.cu",
    "ggml-alloc.c", "ggml-quants.c", "ggml-backend.cpp", "ggml-opt.cpp",
    "ggml-threading.cpp", "ggml.cpp", "gguf.cpp",
  ])
}

variable "GGML_TUS_SMALL" {
  type        = string
  default     = "ggml-cuda/arange.cu ggml-cuda/count-equal.cu ggml-cuda/diag.cu ggml-alloc.c ggml-threading.cpp"
  description = "A quick set (3 HIP + 2 host TUs, well under a minute cold) for the CI tests."
}

variable "GGML_PIN" {
  type        = string
  default     = "0.3.36"
  description = "The compile stage's pin: a new value re-runs the compile steps (warm)."
}

variable "PROBE_DEFINE" {
  type        = string
  default     = "1"
  description = "A define of the probe HIP TU (a new value is a new cache key)."
}

target "base" {
  context    = "."
  dockerfile = "base.Dockerfile"
  target     = "base"
  contexts = {
    scripts   = "../../../dockerfiles/scripts"
    downloads = DOWNLOADS
  }
  args = {
    BASE_IMAGE = BASE_IMAGE
  }
  # No cache-to (two targets exporting the same blobs to one repository at once race in the
  # registry) and no cache-from: ggml's import (mode=max) carries and serves these layers.
  # With a cache-from here a hot rebuild on BuildKit 0.25 (Docker 28.5.2) re-runs ggml's
  # steps (buildx#2144): this target's request and ggml's each open an importer of the ref
  # (solver/llbsolver/bridge.go keeps them per request), a shared step keeps the importer of
  # the request that loaded it first (solver/jobs.go loadUnlocked, one per ID), and keys one
  # importer matched do not map into another (solver/cachemanager.go getIDFromDeps) past a step
  # that read a client context (its key is per session: source/local/source.go CacheKey).
  # buildx 0.13's mitigation (buildx#2265) waits for ggml's LLB to be returned, not loaded.
}

target "ggml" {
  context    = "."
  dockerfile = "ggml.Dockerfile"
  target     = "wheels"
  network    = "host"
  contexts = {
    base      = "target:base"
    downloads = DOWNLOADS
  }
  args = {
    CACHE_TYPE               = CACHE_TYPE
    LLAMA_CPP_PYTHON_VERSION = LLAMA_CPP_PYTHON_VERSION
    GPU_ARCHS                = GPU_ARCHS
    GGML_TUS                 = GGML_TUS
    GGML_PIN                 = GGML_PIN
    PROBE_DEFINE             = PROBE_DEFINE
  }
  secret     = CACHE_SECRET_FILE == "" ? [] : ["id=sccache,src=${CACHE_SECRET_FILE}"]
  cache-from = ["type=registry,ref=${CACHE_REPO}:ggml-${replace(GPU_ARCHS, ";", "-")}-${GGML_PIN}"]
  cache-to   = CACHE_EXPORT ? ["type=registry,ref=${CACHE_REPO}:ggml-${replace(GPU_ARCHS, ";", "-")}-${GGML_PIN},mode=max"] : []
  output     = ["type=local,dest=${DIST}"]
}

group "default" {
  targets = ["ggml"]
}
