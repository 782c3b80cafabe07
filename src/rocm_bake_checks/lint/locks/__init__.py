"""The locks: every Python distribution an image installs, pinned by hash (``inv lock``), and
the two lint families that check them.

- ``inputs``      each component's lock inputs, derived from the bake file's component table,
                  the Dockerfiles and the conformance family's upstream snapshot
- ``file``        the lock format; runs the pinned uv
- ``metadata``    the locked distributions' metadata, recorded by ``inv lock`` in the snapshot
                  ``dockerfiles/locks/metadata.json``
- ``built``       what a wheel built here requires, read statically from its upstream source
- ``rules``       the ``locks`` family: every pip install from the component's lock, with
                  hashes; locks not stale
- ``resolution``  the ``resolution`` family: every image's pip installs, its parents' first,
                  resolved offline by the pinned uv against stand-in wheels
- ``newer``       ``inv version-check --locks``: the locks' pins against the index

A subpackage of ``lint`` (one layer with it, tests/unit/test_layers.py): the families read the
bake model and the Dockerfiles through lint's modules, and lint's runner runs them.
"""
