"""read_document: a Markdown or text file of the archive.

The generated module checked `args.name` before this runs: a relative path, inside the
archive root once links are resolved, ending with .md or .txt, naming a regular file that
exists. What is left here is to open it without following a link that may have replaced a
part of the path since the check (`open_read` walks from the root with O_NOFOLLOW).
"""

from __future__ import annotations

import os

from generated.inventory.read_document import ReadDocumentArgs, ReadDocumentResult

# The output contract cuts the text at 2,000 characters and says so (truncated); reading a
# little more than that is enough to know there was more, and bounds the memory a huge
# file can take.
_READ_CHARS = 2_001


def read_document(args: ReadDocumentArgs) -> ReadDocumentResult:
    with args.name.open_read() as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(_READ_CHARS * 4)
    text = data.decode("utf-8", errors="replace")[:_READ_CHARS]
    return ReadDocumentResult(name=args.name.requested, text=text, size_bytes=size)
