"""The business logic of read_visit_files: Read the first line of files a technician
left with a visit.

toolgen created this file once and never overwrites it: it is yours.
The generated module validates the arguments before this function runs, and turns what
it returns or raises into what the model receives.
"""

from toolgen_runtime import NotImplementedYet

from every_generated.every.read_visit_files import (
    ReadVisitFilesArgs,
    ReadVisitFilesResult,
)


def read_visit_files(args: ReadVisitFilesArgs) -> ReadVisitFilesResult:
    """Read the first line of files a technician left with a visit.

    `args.reports[i]` is a CheckedPath inside the root visit_files: use
    `args.reports[i].open_read()`, which follows no link put in its way since the check.

    `args.cover.sheet` is a CheckedPath inside the root visit_files: use
    `args.cover.sheet.open_read()`, which follows no link put in its way since the
    check.

    `args.copy_to` is a CheckedPath inside the root exports: use
    `args.copy_to.open_new()`, which follows no link put in its way since the check.

    Return ReadVisitFilesResult(...) with:
        first_lines: The first line of each report, in order.

    An exception stops the run.
    Raise one only for infrastructure failures (a database that is down), never for what
    the model can fix.
    """
    raise NotImplementedYet("read_visit_files", "every_impl/every/read_visit_files.py")
