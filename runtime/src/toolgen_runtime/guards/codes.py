"""Every code a boundary check can report, in one table: the docs and the tests read it.

A code is what the model reads in `problems[].code` of the invalid-arguments envelope, beside the
problem and a how-to-fix of its own. The how-to-fix texts are written for the model: plain words
that say what to send instead. `{placeholders}` are filled from the guard's own settings (its
suffixes, its hosts), never from what the model sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_core import PydanticCustomError

__all__ = [
    "CODES",
    "Code",
    "GuardFailure",
    "alternatives",
    "as_pydantic_error",
    "problem_details",
]


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    guard: str  # "path", "url" or "cursor"
    meaning: str  # when it is reported (for the docs)
    how_to_fix: str  # what the model reads; may hold {placeholders}


_TABLE = (
    # --- path -------------------------------------------------------------------------------
    Code("path_empty", "path", "the path is an empty string",
         "Send the name of a file inside the folder, such as reports/2026-11.md."),
    Code("path_nul_byte", "path", "the path contains a NUL character (U+0000)",
         "Send the path without the NUL character; write the name exactly as it is listed."),
    Code("path_bad_character", "path",
         "the path contains a control, invisible, format or private-use character, or a "
         "backslash",
         "Send the path with visible characters only, folders separated by /."),
    Code("path_too_long", "path",
         "the path has more than the guard's maximum characters, one of its names more than "
         "255 bytes, or more bytes than the system allows once under the folder",
         "Send a shorter path: at most {max_chars} characters and {max_bytes} bytes in UTF-8 "
         "(a letter outside ASCII takes 2 to 4 bytes), each name at most 255 bytes."),
    Code("path_absolute", "path", "the path starts with /",
         "Send the path relative to the folder, without a leading /, such as "
         "reports/2026-11.md."),
    Code("path_traversal", "path", "the path has a .. part",
         "Send a path inside the folder, without .. parts: files outside it cannot be read "
         "with this tool."),
    Code("path_not_normalized", "path",
         "the path has compatibility characters (full-width forms, ligatures, other dots and "
         "slashes) that other programs read as different characters",
         "Write the path with plain characters: no full-width letters, ligatures or look-alike "
         "dots and slashes."),
    Code("path_hidden", "path", "a part of the path, or of the file it leads to, starts with a dot",
         "Choose a file that is not hidden: names starting with a dot cannot be used with this "
         "tool."),
    Code("path_suffix_not_allowed", "path",
         "the name, or the name of the file a link leads to, does not end with an allowed suffix",
         "Send the path of a file whose name ends with {suffixes}."),
    Code("path_outside_root", "path", "the path leads outside the folder through a symbolic link",
         "Choose another file: that path leads outside the folder, which this tool cannot "
         "read."),
    Code("path_symlink_loop", "path", "the path goes through symbolic links that form a loop",
         "Choose another file: that path is a loop of links and leads to no file."),
    Code("path_not_found", "path", "no file (or no folder, for a new file) has that path",
         "Check the name, letter case included, and call again with a file that exists."),
    Code("path_not_permitted", "path",
         "the tool may not read the file, search a folder on the way, or create a file in that "
         "folder (the file system answers permission denied)",
         "Choose another file: this tool is not allowed to use that one."),
    Code("path_is_directory", "path", "the path names a folder",
         "Send the path of a file inside that folder, not of the folder itself."),
    Code("path_device_file", "path", "the path names a device, a pipe or a socket",
         "Choose a regular file: that path is a device, a pipe or a socket."),
    # --- url --------------------------------------------------------------------------------
    Code("url_too_long", "url", "the URL has more than the guard's maximum characters",
         "Send a URL of at most {max_chars} characters."),
    Code("url_bad_character", "url",
         "the URL contains a space, a control or invisible character, a backslash or a broken "
         "percent escape",
         "Send the URL without spaces, backslashes or invisible characters; percent-encode "
         "what belongs in the path or query (a space is %20)."),
    Code("url_not_absolute", "url", "the URL has no scheme, or no // after it",
         "Send a full URL that starts with {schemes}, such as {example}."),
    Code("url_scheme_not_allowed", "url", "the URL's scheme is not one the guard allows",
         "Use a URL that starts with {schemes}."),
    Code("url_userinfo", "url", "the URL has a user name or password (a part before @)",
         "Remove the user name and password (everything up to the @) from the URL."),
    Code("url_bad_port", "url", "the port is not a number from 1 to 65535",
         "Send the URL without a port, or with a port number from 1 to 65535."),
    Code("url_port_not_allowed", "url", "the port is not the scheme's default, nor allowed",
         "Send the URL without a port{ports}."),
    Code("url_bad_host", "url",
         "the host is empty, percent-encoded, not a valid domain name (IDNA/UTS-46) or looks "
         "like a malformed address",
         "Send a URL with a plain host name, such as {example_host}."),
    Code("url_ip_literal", "url",
         "the host is an IP address, in any form: dotted, decimal, octal, hex, short, IPv6, "
         "IPv4-mapped",
         "Use a host name, not an IP address: this tool can reach {hosts}."),
    Code("url_trailing_dot", "url", "the host name ends with a dot",
         "Remove the dot at the end of the host name."),
    Code("url_lookalike_host", "url",
         "the host is not allowed and imitates an allowed one with look-alike letters or digits",
         "Do not use this host: it only looks like {lookalike_of}. If {lookalike_of} was meant, "
         "write it with plain letters."),
    Code("url_host_not_allowed", "url", "the host is not on the guard's list",
         "Send a URL whose host is {hosts}: this tool can reach no other."),
    # --- cursor -----------------------------------------------------------------------------
    Code("cursor_invalid", "cursor", "the cursor was not made here, or was altered or cut",
         "Send next_cursor exactly as the previous call returned it, or {field} null to start "
         "from the first page."),
    Code("cursor_other_tool", "cursor", "the cursor was made by another tool",
         "Send a next_cursor that {tool} returned, or {field} null to start from the first "
         "page."),
    Code("cursor_other_filters", "cursor",
         "the cursor was made for a call with other filter values",
         "Call again with the same filters as the call that returned this cursor, or with "
         "{field} null to start the new search from the first page."),
    Code("cursor_other_identity", "cursor", "the cursor was made for another user or customer",
         "Send {field} null to start from the first page."),
    Code("cursor_expired", "cursor", "the cursor is older than the tool allows",
         "Send {field} null to start again from the first page."),
)  # fmt: skip

CODES: Mapping[str, Code] = {code.code: code for code in _TABLE}


class GuardFailure(Exception):
    """One boundary check failed: its code, what is wrong (for `problem`), what to do.

    `problem` may quote what the model sent (shortened), never what the check found on the
    server side: a resolved path, a link's target or an address would tell the model about the
    machine it must not see.
    """

    def __init__(self, code: str, problem: str, **fill: object) -> None:
        # a code missing from the table is a bug here, not a problem of the arguments
        self.how_to_fix = CODES[code].how_to_fix.format(**fill)
        super().__init__(f"{code}: {problem}")
        self.code = code
        self.problem = problem


def as_pydantic_error(failure: GuardFailure) -> PydanticCustomError:
    """The failure as pydantic reports it: its code as the error type, the problem as the
    message, the how-to-fix in the error's context."""
    from pydantic_core import (
        PydanticCustomError,  # a guard imports no pydantic until then
    )

    return PydanticCustomError(
        failure.code,
        "{problem}",
        {"problem": failure.problem, "how_to_fix": failure.how_to_fix},
    )


def problem_details(error: Mapping[str, Any]) -> dict[str, str]:
    """`code` and `how_to_fix` for one entry of `ValidationError.errors()`, when a boundary
    check reported it; empty for pydantic's own errors. The invalid-arguments envelope adds
    these to the problem it builds for that entry."""
    ctx = error.get("ctx") or {}
    if error.get("type") not in CODES or "how_to_fix" not in ctx:
        return {}
    return {"code": str(error["type"]), "how_to_fix": str(ctx["how_to_fix"])}


def alternatives(items: Sequence[str]) -> str:
    """A guard's settings as a problem or a placeholder lists them: `a`, `a or b`,
    `a, b or c`."""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]
