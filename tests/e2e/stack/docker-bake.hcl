# A small bake file for the end-to-end tests: same shape as rocm-bake.hcl (variables, a
# target: link), built on the engine from scripts/engine.sh and pushed to its registry.
variable "REGISTRY" {
  default     = "127.0.0.1:5000"
  description = "Registry to push to"
}
variable "TAG" {
  default     = "e2e"
  description = "Image tag"
}
variable "GREETING" {
  default     = "hello"
  description = "Written into the image"
}

target "base" {
  dockerfile = "Dockerfile"
  target     = "base"
}

target "hello" {
  dockerfile = "Dockerfile"
  target     = "hello"
  contexts   = { base = "target:base" }
  args       = { GREETING = GREETING }
  tags       = ["${REGISTRY}/rocm-bake-test/hello:${TAG}"]
}
