"""Talking to Docker: how a command reaches an engine and the one bake command line
(``buildx``), its progress output (``progress``) and build history (``history``), the project's
loopback engine (``engine``) and finding it with everything missing at once (``preflight``),
pull hints (``pullhint``) and skopeo (``skopeo``)."""
