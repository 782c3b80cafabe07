"""Build every cell across the fleet's BuildKit nodes at once (``inv fleet.*``).

buildx does not spread the targets of one platform over several nodes (docker/buildx#1081),
and ``target:``-linked targets must share a node, so rocm-bake shards the cells itself:

- ``config``    — the fleet file (fleet.toml): its nodes, registry and WebDAV store;
- ``services``  — whether the fleet's registry and WebDAV store answer (``inv services``);
- ``nodes``     — a docker context per node, how to reach a node, its status;
- ``cells``     — the cells to build, their dependencies and time estimates (perf history);
- ``runner``    — the scheduler: longest path first, every node busy up to its capacity,
  results handed over through the registry, a dead node's cells retried elsewhere;
- ``record``    — per-cell logs, the JSON record of a run, the summary;
- ``plan``      — the runner's loop on a virtual clock over recorded or estimated cell times:
  wall time, utilisation and critical path for any node count (``inv fleet.plan``);
- ``progress``  — the live table on a terminal;
- ``request``   — ``inv fleet.build``'s options to a run, and the finished run to its exit
  status.
"""
