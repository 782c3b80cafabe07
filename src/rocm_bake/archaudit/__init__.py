"""The arch audit: the GPU code objects (offload bundle entries and their ELF ``e_flags``)
every ELF of a wheel, a directory or an image carries."""

from rocm_bake.archaudit.audit import EXIT_MISMATCH, EXIT_OK, Audit, ElfReport, audit, split_archs
from rocm_bake.archaudit.bundles import BundleError, CodeObject, read_elf, read_fatbin
from rocm_bake.archaudit.inputs import InputError, elf_files

__all__ = ["EXIT_MISMATCH", "EXIT_OK", "Audit", "BundleError", "CodeObject", "ElfReport",
           "InputError", "audit", "elf_files", "read_elf", "read_fatbin", "split_archs"]
