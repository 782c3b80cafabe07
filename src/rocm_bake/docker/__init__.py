"""Talking to Docker, one module per job: how a command reaches an engine (``connection``),
the one bake command line (``bakecommand``), the preflight (``buildx``), a build's process and
watchdog (``process``), an image read back from the engine (``images``), how every build
exports its images (``exporters``), buildx's progress
output (``progress``) and build history (``history``), the project's loopback engine
(``engine``) and finding it with everything missing at once (``preflight``), pull hints
(``pullhint``) and skopeo (``skopeo``)."""
