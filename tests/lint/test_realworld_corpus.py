"""The real-world lint corpus (tests/lint/realworld): every finding labelled, precision held.

The corpus is public tool catalogues imported with `toolgen import`; labels.tsv holds a
reviewer's verdict on every finding the lint makes there. A finding that appears or
disappears without its label fails (the labels stay complete), and so does a stable rule
whose findings are right less than 9 times in 10. Findings caused by a TODO the importer
left are their own class (`todo`) and count for no rule. A rule with fewer than
MIN_JUDGED judged findings is reported but not held to the ratio: one wrong finding in two
says little; it still fails when more of its findings are wrong than right.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "realworld"))

import corpus

MIN_PRECISION = 0.9
MIN_JUDGED = 5


@pytest.fixture(scope="module")
def measured() -> tuple[list[corpus.Finding], dict[tuple[str, str, str], corpus.Label]]:
    return corpus.findings(), corpus.labels()


def test_every_finding_is_labelled_and_every_label_is_found(
    measured: tuple[list[corpus.Finding], dict[tuple[str, str, str], corpus.Label]],
) -> None:
    found, given = measured
    keys = {f.key for f in found}
    assert len(keys) == len(found), "two findings share a rule and a place"
    unlabelled = sorted(
        f"{f.rule} {f.location} {f.message}" for f in found if f.key not in given
    )
    stale = sorted(f"{k[0]} {k[1]} {k[2]}" for k in given if k not in keys)
    assert unlabelled == [], (
        "label these (python tests/lint/realworld/corpus.py --unlabelled)"
    )
    assert stale == [], "these labelled findings are gone: remove their labels"


def test_stable_rules_are_right_nine_times_in_ten(
    measured: tuple[list[corpus.Finding], dict[tuple[str, str, str], corpus.Label]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    found, given = measured
    result = corpus.figures(found, {k: v for k, v in given.items()})
    with capsys.disabled():
        print("\n" + corpus.table(result))
    failing = []
    for f in result.values():
        if not corpus.stable(f.rule) or f.precision is None:
            continue
        if f.judged >= MIN_JUDGED and f.precision < MIN_PRECISION:
            failing.append(f"{f.rule}: {f.right}/{f.judged} right")
        elif f.judged < MIN_JUDGED and f.wrong > f.right:
            failing.append(f"{f.rule}: {f.right}/{f.judged} right (few findings)")
    assert failing == []


def test_the_corpus_has_no_format_errors_and_every_tool_has_todos(
    measured: tuple[list[corpus.Finding], dict[tuple[str, str, str], corpus.Label]],
) -> None:
    found, _ = measured  # corpus.findings() fails on any format error itself
    tools = {
        p.relative_to(corpus.CATALOGUES).as_posix()
        for p in corpus.CATALOGUES.glob("*/tools/*.yaml")
    }
    with_todo = {
        f.location.split(":")[0]
        for f in found
        if f.rule == "TG313" and "/tools/" in f.location
    }
    assert len(tools) == 385
    assert with_todo == tools
