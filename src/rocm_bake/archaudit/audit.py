"""The arch audit: which GPU processors every ELF of an artifact carries, and whether that is
exactly the expected set."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tabulate import tabulate

from rocm_bake.archaudit.bundles import CodeObject, read_elf
from rocm_bake.archaudit.inputs import elf_files

EXIT_OK = 0
EXIT_MISMATCH = 1


@dataclass(frozen=True)
class ElfReport:
    """One ELF file that carries GPU code."""

    path: str
    code_objects: tuple[CodeObject, ...]

    @property
    def archs(self) -> list[str]:
        return sorted({obj.processor for obj in self.code_objects})

    @property
    def kinds(self) -> list[str]:
        return sorted({obj.kind for obj in self.code_objects})

    def inconsistencies(self) -> list[str]:
        """Device entries whose id names another target than their code object's e_flags."""
        return [f"{self.path}: entry {obj.bundle_id} holds a {obj.target_id} code object"
                for obj in self.code_objects if obj.bundle_id and obj.id_target != obj.target_id]


@dataclass(frozen=True)
class Audit:
    """Every ELF of the inputs: those with GPU code, and a count of the host-only ones."""

    sources: tuple[str, ...]
    reports: tuple[ElfReport, ...]
    host_only: int
    expected: tuple[str, ...] = field(default=())
    # False: inputs without any GPU code pass (a cell with no GPU code says so itself).
    require_gpu_code: bool = True

    @property
    def archs(self) -> list[str]:
        return sorted({arch for report in self.reports for arch in report.archs})

    def problems(self) -> list[str]:
        """Why the artifacts do not carry exactly the expected archs (empty: they do)."""
        found = [problem for report in self.reports for problem in report.inconsistencies()]
        if not self.expected:
            return found
        want = set(self.expected)
        if not self.reports and self.require_gpu_code:
            found.append(f"no GPU code objects in {', '.join(self.sources)} "
                         f"(expected {', '.join(sorted(want))})")
        for report in self.reports:
            have = set(report.archs)
            if want - have:
                found.append(f"{report.path}: lacks {', '.join(sorted(want - have))}")
            if have - want:
                found.append(f"{report.path}: carries {', '.join(sorted(have - want))} "
                             f"(expected only {', '.join(sorted(want))})")
        return found

    @property
    def exit_code(self) -> int:
        return EXIT_MISMATCH if self.problems() else EXIT_OK

    def table(self) -> str:
        rows = [(report.path, " ".join(report.archs), ", ".join(report.kinds))
                for report in self.reports]
        return tabulate(rows, headers=("file", "archs", "bundle kind"), tablefmt="simple")

    def summary(self) -> str:
        """One line: what was audited and the verdict."""
        archs = " ".join(self.archs) or "none"
        head = (f"arch audit: {len(self.reports)} ELF file(s) with GPU code "
                f"({self.host_only} host-only), archs {archs}")
        if not self.expected:
            return head
        problems = self.problems()
        verdict = ("ok" if not problems else f"FAILED ({len(problems)} problem(s))")
        return f"{head}; expected {' '.join(sorted(set(self.expected)))}: {verdict}"

    def as_json(self) -> dict[str, object]:
        return {
            "sources": list(self.sources),
            "expected": sorted(set(self.expected)),
            "archs": self.archs,
            "ok": not self.problems(),
            "problems": self.problems(),
            "host_only_elf_files": self.host_only,
            "files": [{
                "path": report.path,
                "archs": report.archs,
                "kinds": report.kinds,
                "code_objects": [{"bundle_id": obj.bundle_id, "target_id": obj.target_id,
                                  "processor": obj.processor, "kind": obj.kind}
                                 for obj in report.code_objects],
            } for report in self.reports],
        }


def split_archs(values: Iterable[str]) -> tuple[str, ...]:
    """``gfx950;gfx1201``, ``gfx950,gfx1201`` or repeated values -> the arch names."""
    archs: list[str] = []
    for value in values:
        archs.extend(part.strip() for part in value.replace(";", ",").split(",") if part.strip())
    return tuple(archs)


def audit(sources: Sequence[str], expected: Sequence[str] = (),
          env: Mapping[str, str] | None = None, leave_out: Sequence[str] = (),
          require_gpu_code: bool = True) -> Audit:
    """Read every ELF of SOURCES (paths or image references), in an image none under the
    ``leave_out`` path prefixes. An image is read from the engine ``env`` reaches (a build's),
    or with no ``env`` from the engine found as ``inv build`` finds it. Raises RocmBakeError
    when an input cannot be read (a missing path, a truncated bundle, a corrupt ELF)."""
    reports: list[ElfReport] = []
    host_only = 0
    for source in sources:
        for path, data in elf_files(source, env, leave_out):
            objects = read_elf(data, path)
            if objects is None:
                host_only += 1
            else:
                reports.append(ElfReport(path, tuple(objects)))
    return Audit(tuple(sources), tuple(reports), host_only, tuple(expected), require_gpu_code)
