"""The checks of the bake file and its Dockerfiles: ``drift`` (each pin against its upstream,
``inv version-check``), ``lint`` (the rule families of ``inv lint``, and ``inv lock``),
``bump`` (the pins moved to upstream's recipe at a release, ``inv bump``) and ``rehearse``
(the real Dockerfiles run in a stand-in world, ``inv rehearse``). They return their reports;
the tasks print them."""
