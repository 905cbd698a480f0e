"""Words: how lint rules read names and prose.

Names are split into lower-case words (``findCustomer_by-email`` -> find, customer, by, email);
prose into content words with a light stemmer (``orders`` -> order), so that two tools can be
compared by the sets of words they use. The vocabularies (verb classes, unit words, stop words)
live here so every rule reads them the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence

from toolgen.text import listing


def wordset(text: str) -> frozenset[str]:
    """A vocabulary written as prose: "get read fetch" -> {"get", "read", "fetch"}."""
    return frozenset(text.split())


_NAME_SPLIT = re.compile(
    r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"
)
_WORD = re.compile(r"[a-z0-9]+")

# Verbs grouped by the kind of action they name: two tools whose verbs share a class do the
# same kind of thing (search_order and find_order). "lookup" is the only class without effects.
VERB_CLASSES: Mapping[str, frozenset[str]] = {
    "lookup": wordset(
        """get read fetch find search lookup look query retrieve show view list browse describe
        check inspect see load obtain locate count explain compare estimate calculate compute
        preview summarize summarise validate verify resolve match track monitor audit analyze
        analyse forecast predict quote recommend suggest rank export download test ping"""
    ),
    "create": wordset(
        """create add new insert make register open start submit place generate book schedule
        reserve issue prepare draft propose enroll invite upload import copy duplicate
        clone plan build compose record log save store write"""
    ),
    "update": wordset(
        """update edit modify change set patch rename adjust amend replace assign move mark
        approve reject confirm accept decline enable disable activate deactivate restore
        reset reorder merge link unlink tag label sync upgrade downgrade finalize finalise"""
    ),
    "delete": wordset(
        """delete remove drop destroy erase purge cancel revoke archive close clear wipe
        terminate void expire kill truncate uninstall unregister unsubscribe"""
    ),
    "send": wordset(
        """send email notify publish share forward mail post reply broadcast dispatch ship
        deliver sms"""
    ),
    "act": wordset(
        "run execute exec invoke perform process handle do trigger apply operate"
    ),
    "pay": wordset("pay charge refund transfer withdraw deposit bill capture settle"),
}
WRITE_CLASSES = frozenset({"create", "update", "delete", "send", "pay"})
# Verbs whose effect depends on their object (open a file or an account, issue a refund,
# resolve a hostname or an incident): a name that leads with one says nothing of its effect.
AMBIGUOUS_VERBS = wordset(
    "open issue record log book order post file note check mark resolve"
)
# Name words for something of a thing, not the thing: secret_type, token_ids, eval_id,
# script_url, api_key_last_used_at
ATTRIBUTES = wordset(
    "count counts expires expiry type types kind kinds name names url urls id ids length hint at"
)
# Near-synonyms: two verbs of one group name the same action (search_order, find_order).
# Verbs of one class but different groups (get one, list many; edit, move; create, fork)
# are related actions, not one action under two names.
SYNONYMS = (
    "get read fetch retrieve obtain load show view describe",
    "list browse enumerate search find query lookup look locate",
    "create add new insert make register",
    "update edit modify change patch amend adjust alter",
    "delete remove erase destroy drop purge wipe",
    "cancel revoke void abort",
    "send email mail dispatch",
    "run execute exec invoke perform trigger",
    "calculate compute",
    "summarize summarise",
    "analyze analyse",
)
SYNONYM_GROUP: Mapping[str, int] = {
    verb: index for index, group in enumerate(SYNONYMS) for verb in group.split()
}
# Words in capitals that are emphasis rather than names: what "shouting" is made of.
EMPHASIS = wordset(
    """never always must should shall not do dont don't only important critical warning
    caution attention note notice required mandatory essential urgent entire every all no
    none exactly strictly absolutely forbidden prohibited deprecated immediately stop
    please remember careful"""
)
# Words that qualify an object and never name an action: a name opening with one has no verb.
QUALIFIERS = wordset(
    "next previous prev last first latest recent current new old default all my our any every"
)
# A name word after one of these qualifies the object (find_customer_by_email).
PREPOSITIONS = wordset("by with for from using via in on at to into of")
# lower-case words joined by "_": order_id, not orderId or Order-Id
SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
# A marker of unfinished text: TODO:, FIXME:, TODO(someone):
TODO_MARKER = re.compile(r"\b(?:TODO|FIXME|XXX)(?:\([^)]*\))?:")
VERB_CLASS: Mapping[str, str] = {
    verb: name for name, verbs in VERB_CLASSES.items() for verb in verbs
}
# Verbs a reader takes as "this tool changes or sends something": a read tool named with one
# of these misleads the model and the reviewer alike.
STRONG_WRITE_VERBS = wordset(
    "delete remove send pay transfer revoke purge destroy wipe"
)
# Effects that cannot be undone: a tool named with one of these is destructive.
DESTRUCTIVE_VERBS = wordset(
    "delete remove drop destroy erase purge revoke wipe truncate"
)

# Words that never distinguish one tool from another.
STOPWORDS = wordset(
    """a an the and or of to for in on at by with from into onto as is are be been being was
    were it its this that these those their there them they you your yours we our us he she
    his her i me my not no do does did done can could should would will shall may might must
    if then than when where which who whom whose what why how so such only also just any all
    each every some more most many much one other others own same very too about after before
    up down out over under again further once here both few nor per via use used using"""
)
# and the words of every request in prose, which in a name are objects (add_user, list_calls)
PROSE_STOPWORDS = STOPWORDS | wordset(
    "user users asks ask wants want call calls called tool tools"
)
# Name words that say nothing about the object: two names sharing one are not neighbours.
FILLER_NAME_WORDS = wordset(
    """by for of the a an to from in on with and or all info data details detail record records
    item items entry entries new current v1 v2 v3 one many"""
)


@functools.lru_cache(maxsize=1 << 16)
def name_words(name: str) -> tuple[str, ...]:
    """find_customer_byEmail -> ("find", "customer", "by", "email"). Kept per name: the
    rules ask about the same tool and parameter names many times a run."""
    return tuple(part.lower() for part in _NAME_SPLIT.split(name) if part)


def at_preposition(parts: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A name's words before its first preposition, and those after it: (customer,) and
    (email,) of find_customer_by_email's customer_by_email."""
    cut = next((i for i, w in enumerate(parts) if w in PREPOSITIONS), len(parts))
    return tuple(parts[:cut]), tuple(parts[cut + 1 :])


def normalized_name(name: str) -> str:
    """The name with case and separators gone: find_customer and findCustomer meet."""
    return "".join(name_words(name))


def stem(word: str) -> str:
    """A light English stemmer for plurals: orders -> order, queries -> query, status stays."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> frozenset[str]:
    """The stemmed words of prose that carry meaning (no stop words, no single letters)."""
    return frozenset(
        stem(w)
        for w in _WORD.findall(text.lower())
        if len(w) > 1 and w not in PROSE_STOPWORDS
    )


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    if not first and not second:
        return 1.0
    return len(first & second) / len(first | second)


# Verbs whose actions mirror each other without a prefix that says so: money in and out,
# a yes and a no, up and down. Pairs within one verb class matter most: the rules that read
# them (TG401, TG303) already tell apart verbs of different classes.
ANTONYMS: frozenset[frozenset[str]] = frozenset(
    frozenset(pair.split())
    for pair in (
        "deposit withdraw", "pay refund", "charge refund", "capture refund", "buy sell",
        "give take", "send receive", "push pull", "upload download", "import export",
        "approve reject", "accept decline", "grant revoke", "add remove", "open close",
        "start stop", "attach detach", "upgrade downgrade", "increase decrease",
        "show hide", "lock unlock", "follow unfollow", "publish unpublish", "enable disable",
        "login logout", "signin signout", "encrypt decrypt", "pause resume", "join leave",
        "press release",
    )
)  # fmt: skip


def opposite_verbs(first: str, second: str) -> bool:
    """star and unstar, enable and disable, lock and unlock, deposit and withdraw: one
    undoes or mirrors the other."""
    for prefix in ("un", "dis", "de"):
        if first == prefix + second or second == prefix + first:
            return True
    return frozenset((first, second)) in ANTONYMS


def participle(word: str) -> bool:
    """staged, unstaged, archived: a word that qualifies a name's object, not the object."""
    return len(word) > 4 and word.endswith("ed") and not word.endswith("eed")


def verb_class(verb: str) -> str:
    """The class of a verb, or the verb itself when it is not a known verb; undoing a known
    one (unassign, unarchive) is a change."""
    if verb not in VERB_CLASS and verb[:2] == "un" and verb[2:] in VERB_CLASS:
        return "update"
    return VERB_CLASS.get(verb, "verb:" + verb)


def quoted(values: Iterable[object]) -> str:
    """'a', 'b' and 'c': values as a message lists them."""
    return listing([repr(v) for v in values])
