"""The Jinja environment every output is rendered with.

Templates hold layout only: names, imports and escaped literals are computed in Python and
handed to them ready to print. StrictUndefined makes a missing value an error, never an empty
string in generated code. The environment is built once per process, and keeps no compiled
template anywhere: Jinja's bytecode cache holds code, which nothing toolgen reads from disk
may.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

import jinja2

from toolgen.text import LINE_BREAK, printable


def markdown_text(value: object) -> str:
    """Spec text in Markdown prose or a table cell, as text: `<card>` or `<!-- -->` would be
    HTML a viewer hides from the reviewer, `|` would end the cell, a line break would end
    the cell or the item (and start a heading of its own), and `[...](...)` would be a link,
    or an image loaded from anywhere. Its line breaks are written `<br>`."""
    # and no control character, as anywhere
    text = printable(str(value), keep=LINE_BREAK)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for mark in "\\|[]":
        text = text.replace(mark, "\\" + mark)
    return "<br>".join(text.splitlines())


def markdown_code(value: object) -> str:
    """Spec text as inline code, on one line, between more backticks than any run of them in
    it (a file name or an example's value may hold some)."""
    text = " ".join(printable(str(value), keep=LINE_BREAK).splitlines())
    ticks = "`" * max([1, *(len(run) + 1 for run in re.findall("`+", text))])
    return f"{ticks} {text} {ticks}" if len(ticks) > 1 else f"`{text}`"


def markdown_fence(text: str) -> str:
    """A code fence `text` cannot close: longer than any run of backticks in it."""
    return "`" * max([3, *(len(run) + 1 for run in re.findall("`+", text))])


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resources.files("toolgen.templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # generated code is never escaped; the review page (review/page.html.jinja) is
        autoescape=jinja2.select_autoescape(["html.jinja"], default_for_string=False),
        # the templates ship with toolgen and never change while it runs: no stat of the
        # template file on every render
        auto_reload=False,
    )
    env.filters.update(md=markdown_text, code=markdown_code, fence=markdown_fence)
    return env


def render(template: str, **values: object) -> str:
    return environment().get_template(template).render(**values)
