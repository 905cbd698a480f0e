"""Returns a plain dict and takes extra keyword arguments: stale."""

from generated.corpus import create_label


def create_label(args: create_label.CreateLabelArgs, **options: object) -> dict:
    return {"on_hand_units": 1}
