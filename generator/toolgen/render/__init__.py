"""Render: the IR becomes the files of a build, `{path: text}` in memory, from two entries
(files.py): `render_tool` (a tool's module, tests, cards entry and stub) and `render_catalogue`
(the package's own files). Every name, import, annotation and literal is computed here
(`annotations`, `imports`, and `source`, through which alone spec text becomes Python); the
templates only lay the pieces out (`modules`, `tests`). The build formats the texts with ruff
in one batch (formatting.py) and assembles the cards module from its formatted head and
entries (`modules.cards_module`). `check` imports only lockfile.py and formatting.py."""
