# A tiny three-level graph for the fleet tests: base -> mid -> top, one cell per arch.
# Busybox stages with a short sleep, so that concurrency across nodes is observable, and an
# optional gate: with GATE set, each RUN step first polls GATE/CELL until the test opens it.
variable "GPU_ARCHS" {
  type    = list(string)
  default = ["a1", "a2"]
}
variable "SLEEP" {
  description = "seconds each RUN step works"
  default     = "2"
}
variable "GATE" {
  description = "a loopback URL each RUN step polls (GATE/CELL) until it answers 200; empty: none"
  default     = ""
}
variable "NO_GPU_CODE" {
  description = "the cells' label rocm-bake.no-gpu-code (why the arch audit finds no GPU code); empty: none, so the audit fails every cell"
  default     = "busybox stand-ins: no GPU code"
}
variable "SALT" {
  description = "changes every cache key: a fresh run of the tests builds everything once"
  default     = "0"
}

ALL_ARCHS = ["a1", "a2", "a3", "a4"]
ARCHS = {
  base = GPU_ARCHS
  mid  = GPU_ARCHS
  top  = GPU_ARCHS
}
SKIP = {}

target "_common" {
  context = "tests/fleet/bake"   # buildx resolves contexts from the working directory
  network = "host"               # the RUN steps reach the test's gate server on loopback
  labels  = { for k, v in { "rocm-bake.no-gpu-code" = NO_GPU_CODE } : k => v if v != "" }
  args = {
    SLEEP = SLEEP
    SALT  = SALT
    GATE  = GATE
  }
}

target "base" {
  matrix     = { arch = ARCHS["base"] }
  name       = "base-${arch}"
  inherits   = ["_common"]
  dockerfile = "base.Dockerfile"
  args       = { ARCH = arch, CELL = "base-${arch}" }
}

target "mid" {
  matrix     = { arch = ARCHS["mid"] }
  name       = "mid-${arch}"
  inherits   = ["_common"]
  dockerfile = "mid.Dockerfile"
  args       = { CELL = "mid-${arch}" }
  contexts   = { base = "target:base-${arch}" }
}

target "top" {
  matrix     = { arch = ARCHS["top"] }
  name       = "top-${arch}"
  inherits   = ["_common"]
  dockerfile = "top.Dockerfile"
  args       = { CELL = "top-${arch}" }
  contexts   = { mid = "target:mid-${arch}" }
}

group "default" {
  targets = ["top"]
}
