"""The OCI registry: its HTTP API (``registry``) and what made a pushed image, read back from it
(``provenance``)."""
