# Real compiles for the fleet benchmark (benchmarks/fleet.py): ggml's HIP backend and host C/C++
# units, the full set of the cache test stack (tests/e2e/cachestack, GGML_TUS_FULL), split into
# eight independent cells per arch by the real HIP compiler (rocm-bake/hip:test), through
# with-compiler-cache.sh (sccache on the WebDAV store, settings from the BuildKit secret):
#
#   base-<arch>  the cache stack's base image (HIP toolchain + hipBLAS headers + sccache)
#   ggml1..8-<arch>  each unpacks ggml from the llama-cpp-python sdist and compiles its units,
#                one at a time (make -j1: one core per cell, a node builds one cell at a time)
#   lib-<arch>   the eight cells' objects in one archive (libggml-hip.a)
#
# Paths are relative to the checkout: fleet.build runs its bakes from there.
variable "GPU_ARCHS" {
  type    = list(string)
  default = ["gfx950"]
}
variable "BASE_IMAGE" {
  description = "the HIP toolchain image (scripts/hip-toolchain.sh image)"
  default     = "rocm-bake/hip:test"
}
variable "DOWNLOADS" {
  description = "the cache stack's downloads (scripts/cachestack.sh): the sdist, the .debs, sccache"
  default     = "/var/cache/rocm-bake/cachestack"
}
variable "LLAMA_CPP_PYTHON_VERSION" {
  description = "the llama-cpp-python sdist whose vendored ggml is compiled"
  default     = "0.3.36"
}
variable "CACHE_TYPE" {
  description = "compiler cache of the compile steps: sccache, ccache or none"
  default     = "sccache"
}
variable "CACHE_SECRET_FILE" {
  description = "sccache settings (KEY=VALUE), passed only as the BuildKit secret 'sccache'"
  default     = ""
}
variable "UNITS_PER_CELL" {
  type        = number
  description = "compile only the first N units of each cell (0: all; the benchmark's set-up build compiles 1)"
  default     = 0
}
variable "SALT" {
  description = "a new value re-runs the compile steps (their layers are new; the compiler cache decides cold or warm)"
  default     = "0"
}

# The units of each compile cell: GGML_TUS_FULL of tests/e2e/cachestack/docker-bake.hcl dealt
# round-robin (tests/fleet/test_plan.py checks that every unit is compiled exactly once).
UNITS = {
  "1" = ["ggml-cuda/acc.cu", "ggml-cuda/conv-transpose-1d.cu", "ggml-cuda/fill.cu", "ggml-cuda/pad.cu", "ggml-cuda/set.cu", "ggml-quants.c"]
  "2" = ["ggml-cuda/add-id.cu", "ggml-cuda/conv2d-dw.cu", "ggml-cuda/gla.cu", "ggml-cuda/pad_reflect_1d.cu", "ggml-cuda/softcap.cu", "ggml-backend.cpp"]
  "3" = ["ggml-cuda/arange.cu", "ggml-cuda/conv2d-transpose.cu", "ggml-cuda/im2col.cu", "ggml-cuda/pool1d.cu", "ggml-cuda/softmax.cu", "ggml-opt.cpp"]
  "4" = ["ggml-cuda/argmax.cu", "ggml-cuda/count-equal.cu", "ggml-cuda/mean.cu", "ggml-cuda/pool2d.cu", "ggml-cuda/sum.cu", "ggml-threading.cpp"]
  "5" = ["ggml-cuda/argsort.cu", "ggml-cuda/cross-entropy-loss.cu", "ggml-cuda/norm.cu", "ggml-cuda/roll.cu", "ggml-cuda/sumrows.cu", "ggml.cpp"]
  "6" = ["ggml-cuda/clamp.cu", "ggml-cuda/cumsum.cu", "ggml-cuda/opt-step-adamw.cu", "ggml-cuda/rope.cu", "ggml-cuda/tri.cu", "gguf.cpp"]
  "7" = ["ggml-cuda/col2im-1d.cu", "ggml-cuda/diag.cu", "ggml-cuda/opt-step-sgd.cu", "ggml-cuda/scale.cu", "ggml-cuda/tsembd.cu"]
  "8" = ["ggml-cuda/concat.cu", "ggml-cuda/diagmask.cu", "ggml-cuda/out-prod.cu", "ggml-cuda/set-rows.cu", "ggml-alloc.c"]
}

CELL_UNITS = { for part, units in UNITS : part => (
  UNITS_PER_CELL == 0 ? units : slice(units, 0, min(UNITS_PER_CELL, length(units)))) }

ALL_ARCHS = ["gfx950", "gfx1201", "gfx1250"]
ARCHS = merge({ base = GPU_ARCHS, lib = GPU_ARCHS },
              { for part in keys(UNITS) : "ggml${part}" => GPU_ARCHS })
SKIP = {}

target "base" {
  matrix     = { arch = ARCHS["base"] }
  name       = "base-${arch}"
  context    = "tests/e2e/cachestack"
  dockerfile = "base.Dockerfile"
  target     = "base"
  contexts = {
    scripts   = "dockerfiles/scripts"
    downloads = DOWNLOADS
  }
  args = { BASE_IMAGE = BASE_IMAGE }
  labels = { "rocm-bake.no-gpu-code" = "the HIP toolchain image, the stack's .debs and sccache: nothing compiled yet" }
}

target "ggml" {
  matrix     = { part = keys(UNITS), arch = GPU_ARCHS }
  name       = "ggml${part}-${arch}"
  context    = "tests/fleet/compile"
  dockerfile = "ggml.Dockerfile"
  network    = "host"           # sccache reaches the WebDAV store on loopback
  contexts = {
    base      = "target:base-${arch}"
    downloads = DOWNLOADS
    stack     = "tests/e2e/cachestack/src"
  }
  args = {
    LLAMA_CPP_PYTHON_VERSION = LLAMA_CPP_PYTHON_VERSION
    CACHE_TYPE               = CACHE_TYPE
    GPU_ARCHS                = arch
    GGML_TUS                 = join(" ", CELL_UNITS[part])
    PART                     = part
    SALT                     = SALT
  }
  secret = CACHE_SECRET_FILE == "" ? [] : ["id=sccache,src=${CACHE_SECRET_FILE}"]
}

target "lib" {
  matrix     = { arch = ARCHS["lib"] }
  name       = "lib-${arch}"
  context    = "tests/fleet/compile"
  dockerfile = "lib.Dockerfile"
  args       = { OBJECTS = length(flatten(values(CELL_UNITS))) }
  labels     = { "rocm-bake.no-gpu-code" = "an ar archive of the compile cells' objects, which the arch audit does not open" }
  contexts = merge({ base = "target:base-${arch}" },
                   { for part in keys(UNITS) : "ggml${part}" => "target:ggml${part}-${arch}" })
}

group "default" {
  targets = ["lib"]
}
