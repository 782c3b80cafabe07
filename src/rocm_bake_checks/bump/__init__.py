"""``inv bump``: follow vLLM's ROCm recipe at a release (``upstream.toml`` says which file and
how each of its ARGs maps to the bake file's pins), resolve every pin to an immutable commit,
version or digest, and rewrite only the default values of ``rocm-bake.hcl``."""
