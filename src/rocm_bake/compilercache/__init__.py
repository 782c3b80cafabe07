"""The compiler cache: the store, its BuildKit secret and sccache (``sccache``), what the bake
file asks for (``settings``), and the statistics and health lines of a build (``health``)."""
