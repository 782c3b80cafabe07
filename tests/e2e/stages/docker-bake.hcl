# A test variant of rocm-bake.hcl's stage graph, small enough to build on the test engine in
# a minute, with the same patterns:
#
#   base -> core (~ torch) -> plugin (~ triton/aiter) -> app (~ vllm, a runtime image on
#   RUNTIME_IMAGE: Python and the C++ runtime, no toolchain)
#   wheels-<arch> collects every wheel + versions.json of a cell into DIST/<arch>/
#
# - every compile stage writes wheels to /wheels; later stages install earlier wheels with
#   RUN --mount=type=bind,from=<stage>; `target:` contexts link the cells;
# - the base is the real HIP toolchain image (scripts/hip-toolchain.sh: Debian trixie, clang-22,
#   the HIP headers, device libraries and hipcc of the newest ROCm 7.x Debian has, in /opt/rocm)
#   plus the project's own dockerfiles/scripts (named context `scripts`);
# - every GPU translation unit is compiled by that real compiler for the cell's arch, from the
#   same knobs as dockerfiles/: PYTORCH_ROCM_ARCH -> hipcc --offload-arch (core, ~ torch),
#   GPU_ARCHS -> CMAKE_HIP_ARCHITECTURES (plugin, ~ aiter); `inv audit-arch DIST/<arch>` proves it;
# - compile steps run under with-compiler-cache.sh (CACHE_TYPE): the HIP wrapper directory and
#   setuptools' host compiles through CC/CXX (core), CMAKE_*_COMPILER_LAUNCHER (plugin), a make
#   build that picks its launcher from PATH as vLLM's setup.py does (plugin-make) and
#   CC="$COMPILER_LAUNCHER gcc" (app); the base has both sccache and ccache;
# - the runtime image carries /opt/rocm-bake/versions.json (every pin, every wheel's version
#   and sha256);
# - SOURCE_DATE_EPOCH is the pins' commit date, passed to every target (reproducible builds).
# No step touches the network (every RUN has --network=none).

variable "GPU_ARCHS" {
  type        = list(string)
  default     = ["gfx950"]
  description = "Build cells: the GPU arch every HIP translation unit of the cell is compiled for."
}

variable "BASE_IMAGE" {
  type        = string
  default     = "rocm-bake/hip:test"
  description = "The real HIP toolchain image from scripts/hip-toolchain.sh image (a local image)."
}

variable "RUNTIME_IMAGE" {
  type        = string
  default     = "rocm-bake/hip-runtime:test"
  description = "The runtime image's base from scripts/hip-toolchain.sh image: Python and the C++ runtime from the HIP image's pinned .debs, no toolchain (a local image)."
}

variable "ROCM_VERSION" {
  type        = string
  default     = "7.2.4"
  description = "ROCm of the HIP image (/opt/rocm/.info/version; the tests set its org.rocm-bake.rocm-version label): below 7.13, HIP goes through the wrapper directory."
}

variable "CACHE_TYPE" {
  type        = string
  default     = "ccache"
  description = "Compiler cache of the compile steps: ccache, sccache or none."
  validation {
    condition     = contains(["sccache", "ccache", "none"], CACHE_TYPE)
    error_message = "CACHE_TYPE must be one of: sccache, ccache, none."
  }
}

variable "DOWNLOADS" {
  type        = string
  default     = "/var/cache/rocm-bake/cachestack"
  description = "Setup downloads (scripts/cachestack.sh): the sccache binary the base installs beside the image's ccache."
}

variable "DIST" {
  type        = string
  default     = "dist"
  description = "Where wheels-<arch> exports to (DIST/<arch>)."
}

variable "TAG" {
  type        = string
  default     = "e2e"
  description = "Tag of the app image."
}

variable "SOURCE_DATE_EPOCH" {
  type        = string
  default     = "1767225600"
  description = "Commit date of the pins (2026-01-01T00:00:00Z): file times and image dates of every build."
}

variable "CORE_VERSION" {
  type        = string
  default     = "1.2.3"
  description = "Version of the rb-core wheel."
}

variable "PLUGIN_VERSION" {
  type        = string
  default     = "0.4.0"
  description = "Version of the rb-plugin wheel."
}

variable "APP_VERSION" {
  type        = string
  default     = "2.0.1"
  description = "Version of the rb-app wheel."
}

ALL_ARCHS = ["gfx950", "gfx1201", "gfx1250"]

ARCH_ARGS = { for a in ALL_ARCHS : a => {
  PYTORCH_ROCM_ARCH = join(";", [a])
  GPU_ARCHS         = join(";", [a])
  HCC_AMDGPU_TARGET = join(",", [a])
} }

PINS = {
  BASE_IMAGE        = BASE_IMAGE
  RUNTIME_IMAGE     = RUNTIME_IMAGE
  ROCM_VERSION      = ROCM_VERSION
  CORE_VERSION      = CORE_VERSION
  PLUGIN_VERSION    = PLUGIN_VERSION
  APP_VERSION       = APP_VERSION
  SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH
}

target "_common" {
  context = "."
  args = {
    SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH
  }
}

target "_compile" {
  inherits = ["_common"]
  args = {
    CACHE_TYPE = CACHE_TYPE
  }
}

target "base" {
  matrix     = { arch = GPU_ARCHS }
  name       = "base-${arch}"
  inherits   = ["_common"]
  dockerfile = "base.Dockerfile"
  target     = "base"
  contexts = {
    scripts   = "../../../dockerfiles/scripts"
    downloads = DOWNLOADS
  }
  # The arch audit: a cell without GPU code says why (every other cell must carry some).
  labels = { "rocm-bake.no-gpu-code" = "the HIP toolchain image and the project's scripts" }
  args = merge(ARCH_ARGS[arch], {
    BASE_IMAGE   = BASE_IMAGE
    ROCM_VERSION = ROCM_VERSION
  })
}

target "core" {
  matrix     = { arch = GPU_ARCHS }
  name       = "core-${arch}"
  inherits   = ["_compile"]
  dockerfile = "core.Dockerfile"
  target     = "wheels"
  contexts   = { base = "target:base-${arch}" }
  args       = { CORE_VERSION = CORE_VERSION }
}

target "plugin" {
  matrix     = { arch = GPU_ARCHS }
  name       = "plugin-${arch}"
  inherits   = ["_compile"]
  dockerfile = "plugin.Dockerfile"
  target     = "wheels"
  contexts = {
    base = "target:base-${arch}"
    core = "target:core-${arch}"
  }
  args = { PLUGIN_VERSION = PLUGIN_VERSION }
}

target "app" {
  matrix     = { arch = GPU_ARCHS }
  name       = "app-${arch}"
  inherits   = ["_compile"]
  dockerfile = "app.Dockerfile"
  target     = "runtime"
  contexts = {
    base    = "target:base-${arch}"
    core    = "target:core-${arch}"
    plugin  = "target:plugin-${arch}"
    scripts = "../../../dockerfiles/scripts"
  }
  args = {
    APP_VERSION    = APP_VERSION
    RUNTIME_IMAGE  = RUNTIME_IMAGE
    ROCM_BAKE_PINS = jsonencode(PINS)
  }
  tags = ["rocm-bake-e2e/app:${TAG}-${arch}"]
}

target "wheels" {
  matrix     = { arch = GPU_ARCHS }
  name       = "wheels-${arch}"
  inherits   = ["_common"]
  dockerfile = "wheels-export.Dockerfile"
  target     = "export"
  contexts = {
    base   = "target:base-${arch}"
    core   = "target:core-${arch}"
    plugin = "target:plugin-${arch}"
    app    = "target:app-${arch}"
  }
  args   = { ROCM_BAKE_PINS = jsonencode(PINS) }
  output = ["type=local,dest=${DIST}/${arch}"]
}

group "all" {
  targets = concat([for a in GPU_ARCHS : "app-${a}"], [for a in GPU_ARCHS : "wheels-${a}"])
}

group "default" {
  targets = [for a in GPU_ARCHS : "app-${a}"]
}
