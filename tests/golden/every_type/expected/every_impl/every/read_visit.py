"""The business logic of read_visit: Read a booked visit of a technician, with its
schedule and its parts.

toolgen created this file once and never overwrites it: it is yours.
The generated module validates the arguments before this function runs, and turns what
it returns or raises into what the model receives.
"""

from toolgen_runtime import NotImplementedYet

from every_generated.every.read_visit import ReadVisitArgs, ReadVisitResult


def read_visit(args: ReadVisitArgs) -> ReadVisitResult:
    """Read a booked visit of a technician, with its schedule and its parts.

    Return ReadVisitResult(...) with:
        visit_id: The visit's id.
        status: Where the visit stands.
        technicians: How many technicians come.
        floor: The main floor.
        duration_hours: How long the visit takes.
        ratio: The share of the visit billed.
        paid: Whether the customer has paid.
        visit_on: The day of the visit.
        arrive_after: The earliest arrival time.
        note: The note when there is one.
        crew_people: People in the crew when known.
        budget_eur: The budget when known.
        reminded: Whether a reminder went when known.
        fallback_on: Another day when there is one.
        left_at: When the technician left once done.
        skills: The skills the visit needs.
        floors: The floors visited.
        weights_kg: The weights of the parts.
        flags: Answers to the site checklist.
        other_days: More days that suit, when given.
        call_times: When the customer is called.
        parts: The parts brought.
        crews: The people of each shift, shift by shift.
        contact: Who to meet on site.
        access: How to get in when known.

    Report a data error with `raise ReadVisitError(code, **details)`, the class
    imported from every_generated.every.read_visit:
        unknown_visit: No visit has this id.

    Any other exception stops the run.
    Raise one only for infrastructure failures (a database that is down), never for what
    the model can fix.
    """
    raise NotImplementedYet("read_visit", "every_impl/every/read_visit.py")
