# A tiny three-level graph for the fleet tests: base -> mid -> top, one cell per arch.
# Busybox stages with a short sleep, so that concurrency across nodes is observable.
variable "GPU_ARCHS" {
  type    = list(string)
  default = ["a1", "a2"]
}
variable "SLEEP" {
  description = "seconds each RUN step works"
  default     = "2"
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
  args = {
    SLEEP = SLEEP
    SALT  = SALT
  }
}

target "base" {
  matrix     = { arch = ARCHS["base"] }
  name       = "base-${arch}"
  inherits   = ["_common"]
  dockerfile = "base.Dockerfile"
  args       = { ARCH = arch }
}

target "mid" {
  matrix     = { arch = ARCHS["mid"] }
  name       = "mid-${arch}"
  inherits   = ["_common"]
  dockerfile = "mid.Dockerfile"
  contexts   = { base = "target:base-${arch}" }
}

target "top" {
  matrix     = { arch = ARCHS["top"] }
  name       = "top-${arch}"
  inherits   = ["_common"]
  dockerfile = "top.Dockerfile"
  contexts   = { mid = "target:mid-${arch}" }
}

group "default" {
  targets = ["top"]
}
