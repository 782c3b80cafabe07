"""Pin drift: compare every pin of rocm-bake.hcl with its declared upstream.

Each pin variable ``NAME`` may be followed in the bake file by a top-level attribute
``NAME_SOURCE = { ... }`` saying where the pin comes from (see ``declarations``). The checker
reads those through the bake model, queries the sources (``sources/``), turns what it saw
into one verdict per pin (``verdicts``, ``wheels``, ``coherence``), applies the per-pin policy
(``policy``) and renders one report (``render``, ``docs``, ``explain``). ``run`` is the
check, settings in (``settings``: every flag declared once), report out; ``images`` compares
the published images' pins, ``sdists`` a release's sdist; HTTP goes through ``web`` (retries,
rate limits, the ETag cache) over ``rocm_bake.net``.
"""
