"""The checks of the bake file and its Dockerfiles: ``drift`` (each pin against its upstream,
``inv version-check``), ``lint`` (the rule families of ``inv lint``, and ``inv lock``) and
``bump`` (the pins moved to upstream's recipe at a release, ``inv bump``)."""
