# The cell of the why-rebuilt tests (test_why_rebuilt.py): one target shaped like a cell of
# rocm-bake.hcl (context dockerfiles/, the named context `scripts`, a pin, a knob that is no
# pin, the cell's name in BUILDKIT_BUILD_NAME), on a local base image. RUN names the test's own
# cell (core-RUN), so no two tests share a cell's builds.

variable "RUN" {
  type        = string
  default     = "local"
  description = "The cell's suffix: each test's own cell, core-RUN."
}

variable "BASE_IMAGE" {
  type        = string
  default     = "rocm-bake/busybox:test"
  description = "The base image (a local image: scripts/engine.sh base-image)."
}

variable "PYTORCH_COMMIT" {
  type        = string
  default     = "6bbd2609a7e1c2f3b4d5e6f708192a3b4c5d6e7f"
  description = "A pin, as rocm-bake.hcl's: a full git commit."
}

variable "MAX_JOBS" {
  type        = number
  default     = 32
  description = "Parallel compile jobs: a knob, not a pin."
}

PINS = {
  BASE_IMAGE     = BASE_IMAGE
  PYTORCH_COMMIT = PYTORCH_COMMIT
}

target "core" {
  matrix     = { run = [RUN] }
  name       = "core-${run}"
  context    = "dockerfiles"
  dockerfile = "core.Dockerfile"
  contexts   = { scripts = "dockerfiles/scripts" }
  args = {
    BUILDKIT_BUILD_NAME = "core-${run}"
    RUN                 = run
    BASE_IMAGE          = BASE_IMAGE
    PYTORCH_COMMIT      = PYTORCH_COMMIT
    MAX_JOBS            = "${MAX_JOBS}"
  }
  tags = ["rocm-bake-e2e/rebuilt:${run}"]
}
