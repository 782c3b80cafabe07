"""``inv rehearse``: the real bake file and Dockerfiles run for real on the project's engine,
in a stand-in world for what cannot exist here (the ROCm base image, GitHub, the compiles).

``mirror`` the locked distributions from PyPI by sha256, served as an index; ``world`` the
loopback server (index, files, git repositories, downloads); ``sources`` the stand-in
repositories and the pins pointed at them; ``nicdebs`` the NIC vendors' .debs stood in;
``base`` the stand-in ROCm base image; ``run`` the bake and its report (``cell:
Dockerfile:line: error``); ``standin/`` runs inside the rehearsed images, not here.
docs/manual/rehearsal.md.
"""
