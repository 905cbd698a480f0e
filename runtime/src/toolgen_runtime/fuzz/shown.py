"""What the model is shown of a result under its output contract, judged from the contract's
settings rather than by applying it again: a sensitive field is `[redacted]` (null stays
null); a text over its limit is cut to a prefix of itself ending with `…`, within the limit,
and listed in `truncated`, exactly those; a text within its limit is as it was."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolgen_runtime.output import ELLIPSIS, REDACTED, TRUNCATED_KEY, OutputContract

__all__ = ["judge_output"]


def _quoted(text: str, limit: int = 80) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


class _Restorer:
    """Walks the answer beside the declared result, noting what breaks a rule and putting
    the original values back (so the rest is judged as an answer without the contract)."""

    def __init__(self) -> None:
        self.cut: list[str] = []
        self.problems: list[str] = []

    def text(self, original: str, shown: object, limit: int, here: str) -> str:
        if len(original) <= limit:
            if shown != original:
                self.problems.append(
                    f"{here} is within {limit} characters but was changed"
                )
            return original
        if not (
            isinstance(shown, str)
            and shown.endswith(ELLIPSIS)
            and len(shown) <= limit
            and original.startswith(shown[: -len(ELLIPSIS)])
        ):
            self.problems.append(
                f"{here} has {len(original)} characters: it must be cut to at most "
                f"{limit}, a prefix of it ending with {ELLIPSIS}; it shows "
                f"{_quoted(str(shown))}"
            )
        self.cut.append(here)
        return original

    def walk(
        self,
        expected: object,
        got: object,
        parts: list[str],
        where: tuple[str, ...],
        limit: int | None,
    ) -> None:
        if isinstance(expected, list):
            if not isinstance(got, list) or len(got) != len(expected):
                here = ".".join(where) or "the answer"
                self.problems.append(f"{here} should hold {len(expected)} items")
                return
            for index, (e, g) in enumerate(zip(expected, got, strict=True)):
                self.walk(e, g, parts, (*where, str(index)), limit)
            return
        if not isinstance(expected, dict) or not isinstance(got, dict):
            return  # judged as any other answer
        key, rest = parts[0], parts[1:]
        if key not in expected or key not in got:
            return
        if rest:
            self.walk(expected[key], got[key], rest, (*where, key), limit)
        elif expected[key] is not None:
            got[key] = self.leaf(
                expected[key], got[key], ".".join((*where, key)), limit
            )

    def leaf(
        self, original: object, shown: object, here: str, limit: int | None
    ) -> object:
        if limit is None:
            if shown != REDACTED:
                self.problems.append(f"{here} is sensitive but not {REDACTED}")
            return original
        if isinstance(original, str):
            return self.text(original, shown, limit, here)
        if isinstance(original, list) and isinstance(shown, list):
            if len(shown) != len(original):
                self.problems.append(f"{here} should hold {len(original)} texts")
                return shown
            return [
                self.text(o, s, limit, f"{here}.{i}") if isinstance(o, str) else s
                for i, (o, s) in enumerate(zip(original, shown, strict=True))
            ]
        return shown


def judge_output(
    expected: Mapping[str, Any], answer: Mapping[str, Any], output: OutputContract
) -> tuple[dict[str, Any], str | None]:
    """Judge an answer against the declared output rules (see the module docstring).
    Returns the answer with the originals back in place and without `truncated`, and what
    is wrong, if anything."""
    restored = copy.deepcopy(dict(answer))
    listed = restored.pop(TRUNCATED_KEY, None)
    walker = _Restorer()
    for path in sorted(output.sensitive):
        walker.walk(expected, restored, path.split("."), (), None)
    for path, limit in sorted(output.max_chars.items()):
        walker.walk(expected, restored, path.split("."), (), limit)
    if walker.problems:
        return restored, walker.problems[0]
    cut = walker.cut
    if cut and (
        not isinstance(listed, list)
        or sorted(map(str, listed)) != sorted(cut)
        or len(listed) != len(cut)
    ):
        return (
            restored,
            f"{TRUNCATED_KEY} must list exactly the cut texts {sorted(cut)}",
        )
    if not cut and TRUNCATED_KEY in answer:
        return restored, f"{TRUNCATED_KEY} is there though no text was cut"
    return restored, None
