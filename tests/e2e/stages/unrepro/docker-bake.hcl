# A target that is NOT reproducible (it writes a random value), for verify-repro's own test.
variable "SOURCE_DATE_EPOCH" {
  type        = string
  default     = "1767225600"
  description = "Pins' commit date (the build is still not reproducible: that is the point)."
}

target "stamp" {
  dockerfile = "Dockerfile"
  args       = { SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH }
}
