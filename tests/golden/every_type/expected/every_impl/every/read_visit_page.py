"""The business logic of read_visit_page: Read the title of the page a clinic published
about a visit.

toolgen created this file once and never overwrites it: it is yours.
The generated module validates the arguments before this function runs, and turns what
it returns or raises into what the model receives.
"""

from toolgen_runtime import NotImplementedYet

from every_generated.every.read_visit_page import ReadVisitPageArgs, ReadVisitPageResult


def read_visit_page(args: ReadVisitPageArgs) -> ReadVisitPageResult:
    """Read the title of the page a clinic published about a visit.

    `args.page` is a CheckedUrl on the contract's hosts: request it with
    `toolgen_runtime.guards.fetch.fetch(args.page)`, which refuses internal addresses.

    `args.mirrors[i]` is a CheckedUrl on the contract's hosts: request it with
    `toolgen_runtime.guards.fetch.fetch(args.mirrors[i])`, which refuses internal
    addresses.

    Return ReadVisitPageResult(...) with:
        title: The page's title.

    An exception stops the run.
    Raise one only for infrastructure failures (a database that is down), never for what
    the model can fix.
    """
    raise NotImplementedYet("read_visit_page", "every_impl/every/read_visit_page.py")
