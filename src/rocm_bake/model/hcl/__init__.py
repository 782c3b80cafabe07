"""An evaluator for the HCL that ``docker buildx bake`` reads: python-hcl2 parses (``syntax``),
``tree`` holds what the evaluator reads of its typed tree and ``parsecache`` caches it;
``evaluate`` evaluates expressions with cty's semantics over the model's values (``values``),
types (``types``, ``typeexpr``) and numbers (``bigfloat``); ``functions`` is buildx's function
library."""
