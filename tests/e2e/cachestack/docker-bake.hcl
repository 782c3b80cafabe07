# The cache test stack: base -> lightgbm, with the cache plumbing of rocm-bake.hcl (registry
# layer cache refs keyed by the pins, mode=max for the compile stage, written only when
# CACHE_EXPORT; sccache settings only through the BuildKit secret `sccache`;
# cache mounts) around a real C++ project (LightGBM), so tests/e2e/cachestack and `inv perf`
# measure the four caches on the real engine, registry and WebDAV store.

variable "BASE_IMAGE" {
  type        = string
  default     = "rocm-bake/debian:test"
  description = "The Debian rootfs image from scripts/engine.sh rootfs-image."
}

variable "ROCM_VERSION" {
  type        = string
  default     = "7.2.3"
  description = "Stand-in ROCm version: below 7.13, so HIP goes through the wrapper directory."
}

variable "CACHE_TYPE" {
  type        = string
  default     = "sccache"
  description = "Compiler cache of the compile steps: sccache, ccache or none."
}

variable "SCCACHE_SECRET_FILE" {
  type        = string
  default     = ""
  description = "sccache settings and credentials (KEY=VALUE), passed only as the BuildKit secret 'sccache'."
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
  description = "Setup downloads (scripts/cachestack.sh): LightGBM sdist, CMake wheel, sccache binary."
}

variable "DIST" {
  type        = string
  default     = "dist"
  description = "Where the lightgbm target exports its library and compiler-cache stats."
}

variable "LIGHTGBM_VERSION" {
  type        = string
  default     = "4.7.0"
  description = "LightGBM sdist version."
}

variable "LIGHTGBM_PIN" {
  type        = string
  default     = "4.7.0"
  description = "The compile stage's pin: a new value re-runs the compile steps (warm)."
}

variable "PROBE_DEFINE" {
  type        = string
  default     = "1"
  description = "A define of the HIP-path probe TU (a new value is a new cache key)."
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
    BASE_IMAGE   = BASE_IMAGE
    ROCM_VERSION = ROCM_VERSION
  }
  # Read only: the compile target's mode=max export already carries these layers, and two
  # targets exporting the same blobs to one repository at once race in the registry.
  cache-from = ["type=registry,ref=${CACHE_REPO}:lightgbm-rocm${ROCM_VERSION}-${LIGHTGBM_PIN}"]
}

target "lightgbm" {
  context    = "."
  dockerfile = "lightgbm.Dockerfile"
  target     = "wheels"
  network    = "host"
  contexts = {
    base      = "target:base"
    downloads = DOWNLOADS
  }
  args = {
    CACHE_TYPE       = CACHE_TYPE
    LIGHTGBM_VERSION = LIGHTGBM_VERSION
    LIGHTGBM_PIN     = LIGHTGBM_PIN
    PROBE_DEFINE     = PROBE_DEFINE
  }
  secret     = SCCACHE_SECRET_FILE == "" ? [] : ["id=sccache,src=${SCCACHE_SECRET_FILE}"]
  cache-from = ["type=registry,ref=${CACHE_REPO}:lightgbm-rocm${ROCM_VERSION}-${LIGHTGBM_PIN}"]
  cache-to   = CACHE_EXPORT ? ["type=registry,ref=${CACHE_REPO}:lightgbm-rocm${ROCM_VERSION}-${LIGHTGBM_PIN},mode=max"] : []
  output     = ["type=local,dest=${DIST}"]
}

group "default" {
  targets = ["lightgbm"]
}
