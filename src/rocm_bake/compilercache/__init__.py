"""The compiler cache: the shared store, tool-neutral (``store``), a build's trust tier and
what it may do with the caches (``tiers``), the BuildKit secret that carries the store's
settings and credentials (``secret``), one module per tool (``sccache``, ``ccache``), what the
bake file asks for (``settings``), and the statistics and health lines of a build
(``health``)."""
