"""Bake files evaluated exactly as ``docker buildx bake`` evaluates them: what the files declare
(``declarations``), the global names (``variables``), ``target`` and ``group`` blocks
(``blocks``, ``references``), a target's fields (``target``, ``entries``, ``platforms``), the
plan ``--print`` shows (``resolve``) and the checks buildx makes on it (``buildopts``); Go's
parsing rules for overrides (``goparse``)."""
