"""Generated pages of the documentation site (``inv docs``): tooling, not the runtime library.

It imports invoke, loads ``tasks/`` and runs ``inv``, ``nox`` and MkDocs; no module of
``rocm_bake`` or ``rocm_bake_checks`` imports it (tests/unit/test_layers.py).

Every reference page is rendered from the code it documents: the invoke collection, the nox
sessions, the bake file (build graph, image tags), the perf history and the commands' own
output. One module per page; :mod:`rocm_bake_docs.pages` lists them, writes them atomically
and tells which committed page is stale. Nothing here depends on the caller's environment: the
same tree always renders the same pages.
"""
