"""An evaluator for the HCL that ``docker buildx bake`` reads: python-hcl2 parses, ``tree`` holds
what the evaluator reads of its typed tree."""
