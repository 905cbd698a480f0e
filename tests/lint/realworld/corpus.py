"""The real-world lint corpus: its catalogues, their findings, and the reviewer's labels.

A finding is keyed by its rule, its place (`catalogue/tools/file.yaml:line:col`, which the
committed catalogues keep stable) and its message (a pair of tools is reported at the
second tool, so one place can hold several); labels.tsv gives each one a verdict (right,
wrong, or todo: a finding caused by a TODO the importer left) and a short reason.

    python tests/lint/realworld/corpus.py            # per-rule figures
    python tests/lint/realworld/corpus.py --unlabelled   # findings without a label, as TSV
"""

from __future__ import annotations

import csv
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from toolgen.build import pipeline
from toolgen.lint.registry import REGISTRY, Lifecycle, all_rules

HERE = Path(__file__).resolve().parent
CATALOGUES = HERE / "catalogues"
LABELS = HERE / "labels.tsv"
VERDICTS = ("right", "wrong", "todo")
COLUMNS = ("rule", "location", "verdict", "reason", "message")


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    location: str
    message: str

    @property
    def key(self) -> tuple[str, str, str]:
        return self.rule, self.location, self.message


@dataclass(frozen=True, slots=True)
class Label:
    rule: str
    location: str
    verdict: str
    reason: str
    message: str

    @property
    def key(self) -> tuple[str, str, str]:
        return self.rule, self.location, self.message


def findings() -> list[Finding]:
    """Every lint finding over the corpus, with the catalogues' own configuration."""
    found = []
    for folder in sorted(p for p in CATALOGUES.iterdir() if p.is_dir()):
        result = pipeline.check_catalogue(folder, HERE, implementations=False)
        assert result.catalogue is not None, folder
        for d in result.diagnostics:
            if d.code not in REGISTRY:
                raise AssertionError(
                    f"a corpus catalogue has a format error: {d.format_text()}"
                )
            place = (
                f"{d.span.file.split('catalogues/', 1)[1]}:{d.span.line}:{d.span.col}"
            )
            found.append(Finding(d.code, place, d.message))
    return found


def labels(path: Path = LABELS) -> dict[tuple[str, str, str], Label]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    found: dict[tuple[str, str, str], Label] = {}
    for row in rows:
        label = Label(
            row["rule"], row["location"], row["verdict"], row["reason"], row["message"]
        )
        if label.verdict not in VERDICTS or not label.reason.strip():
            raise ValueError(
                f"label {label.key} needs a verdict in {VERDICTS} and a reason"
            )
        if label.key in found:
            raise ValueError(f"label {label.key} is given twice")
        found[label.key] = label
    return found


@dataclass(frozen=True, slots=True)
class Figures:
    rule: str
    findings: int
    right: int
    wrong: int
    todo: int

    @property
    def judged(self) -> int:
        """Findings a reviewer can hold the rule to: those not caused by an import TODO."""
        return self.right + self.wrong

    @property
    def precision(self) -> float | None:
        return self.right / self.judged if self.judged else None


def figures(
    found: list[Finding], given: dict[tuple[str, str, str], Label]
) -> dict[str, Figures]:
    per_rule: dict[str, Counter[str]] = {}
    for f in found:
        per_rule.setdefault(f.rule, Counter())[given[f.key].verdict] += 1
    return {
        rule: Figures(rule, sum(c.values()), c["right"], c["wrong"], c["todo"])
        for rule, c in sorted(per_rule.items())
    }


def table(result: dict[str, Figures]) -> str:
    lifecycle = {r.id: r.lifecycle for r in all_rules()}
    lines = ["rule    lifecycle  findings  todo  right  wrong  precision"]
    for f in result.values():
        shown = f"{f.precision:.0%}" if f.precision is not None else "-"
        stage = lifecycle[f.rule].value if f.rule in lifecycle else "?"
        lines.append(
            f"{f.rule:<7} {stage:<9} {f.findings:>9} {f.todo:>5} {f.right:>6} {f.wrong:>6}"
            f"  {shown:>9}"
        )
    return "\n".join(lines)


def stable(rule: str) -> bool:
    return REGISTRY[rule].lifecycle is Lifecycle.STABLE


def main(argv: list[str]) -> int:
    found = findings()
    given = labels()
    missing = [f for f in found if f.key not in given]
    if "--unlabelled" in argv:
        writer = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
        for f in missing:
            writer.writerow([f.rule, f.location, "", "", f.message])
        return 0
    if missing:
        print(f"{len(missing)} findings have no label (--unlabelled lists them)")
        return 1
    print(table(figures(found, given)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
