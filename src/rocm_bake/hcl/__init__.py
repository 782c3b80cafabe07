"""An evaluator for the HCL that ``docker buildx bake`` reads, built on python-hcl2's typed tree."""
