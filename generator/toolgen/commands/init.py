"""`toolgen init`: scaffold a project (never overwrites a file)."""

from __future__ import annotations

import argparse
import sys

from toolgen.commands import (
    EXIT_CLEAN,
    UsageError,
)


def run(args: argparse.Namespace) -> int:
    from toolgen.interop import init as toolgen_init

    try:
        made = toolgen_init.scaffold(args.path, args.name)
    except (OSError, toolgen_init.InitRefused) as exc:
        raise UsageError(f"init {args.path}: {exc}") from exc
    for path in made.written:
        print(f"wrote {path}", file=sys.stderr)
    if made.gitignore_added:
        print(
            f"added to {args.path / '.gitignore'}: {', '.join(made.gitignore_added)}",
            file=sys.stderr,
        )
    if made.pyproject_kept:
        print(
            f"kept {args.path / 'pyproject.toml'}: for the generated tests, add "
            'pythonpath = ["."] under [tool.pytest.ini_options]',
            file=sys.stderr,
        )
    print(
        f"{args.path}: next, `toolgen build` there, then fill in the stub under impl/",
        file=sys.stderr,
    )
    return EXIT_CLEAN
