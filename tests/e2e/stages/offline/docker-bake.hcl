# A target whose offline step tries to download (verify-repro's and the offline rule's test).
variable "SOURCE_DATE_EPOCH" {
  type        = string
  default     = "1767225600"
  description = "Pins' commit date."
}

target "fetch" {
  dockerfile = "Dockerfile"
  args       = { SOURCE_DATE_EPOCH = SOURCE_DATE_EPOCH }
}
