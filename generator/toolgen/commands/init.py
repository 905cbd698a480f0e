"""`toolgen init`: scaffold a project (never overwrites a file)."""

from __future__ import annotations

import argparse

from toolgen.commands import EXIT_CLEAN, UsageError, say


def run(args: argparse.Namespace) -> int:
    from toolgen.interop import init as toolgen_init

    try:
        made = toolgen_init.scaffold(args.path, args.name)
    except (OSError, toolgen_init.InitRefused) as exc:
        raise UsageError(f"init {args.path}: {exc}") from exc
    for path in made.written:
        say(f"wrote {path}")
    if made.gitignore_added:
        say(f"added to {args.path / '.gitignore'}: {', '.join(made.gitignore_added)}")
    if made.pyproject_kept:
        say(
            f"kept {args.path / 'pyproject.toml'}: for the generated tests, add "
            'pythonpath = ["."] under [tool.pytest.ini_options], and "generated" to its '
            "testpaths if it sets them"
        )
    say(f"{args.path}: next, `toolgen build` there, then fill in the stub under impl/")
    return EXIT_CLEAN
