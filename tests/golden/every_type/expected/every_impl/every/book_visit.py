"""The business logic of book_visit: Book a visit of a technician at a customer's site.

toolgen created this file once and never overwrites it: it is yours.
The generated module validates the arguments before this function runs, and turns what
it returns or raises into what the model receives.
"""

from toolgen_runtime import NotImplementedYet

from every_generated.every.book_visit import (
    BookVisitArgs,
    BookVisitContext,
    BookVisitResult,
)


def book_visit(args: BookVisitArgs, context: BookVisitContext) -> BookVisitResult:
    """Book a visit of a technician at a customer's site.

    `context` carries tenant_id, opened_at, locale from the run, never from the model.

    Return BookVisitResult(...) with:
        visit_id: The booked visit's id.

    An exception stops the run.
    Raise one only for infrastructure failures (a database that is down), never for what
    the model can fix.
    """
    raise NotImplementedYet("book_visit", "every_impl/every/book_visit.py")
