"""Does not parse."""

from generated.corpus.find_customer import FindCustomerArgs, FindCustomerResult


def find_customer(args: FindCustomerArgs -> FindCustomerResult:
    return FindCustomerResult(on_hand_units=1)
