"""rocm-bake: reproducible buildx bake builds of the ROCm ML stack."""

__version__ = "0.1.0"
