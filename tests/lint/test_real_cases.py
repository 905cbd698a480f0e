"""False positives met on real catalogues (issue 34), each on the tools it was met on.

A new user's clinic catalogue, written from the docs alone, met TG203 on
`waive_no_show_fee` and TG905 on the rejected example that shows its document tool's path
guard refusing `/etc/passwd`; a payments catalogue met TG401 on `MakePayment` and
`RequestPayment`. chrome-devtools-mcp's `list_console_messages` (TG402) is in the real-world
corpus itself (realworld/catalogues/chrome_devtools_mcp), with every finding labelled.
"""

from __future__ import annotations

from pathlib import Path

from lint_fixtures import check

from toolgen.diagnostics import Diagnostic

CLINIC = """\
format: 1
name: shop
description: Book, change and bill the appointments of a small clinic.
budget:
  tokens: 20000
"""

WAIVE = """\
name: waive_no_show_fee
intent: {intent}
use_when: A receptionist says the patient had a good reason to miss the appointment.
effect: write
idempotency: natural
params:
  appointment_id:
    type: string
    pattern: '^APT-\\d{{6}}$'
    example: APT-000123
    description: The missed appointment.
returns:
  fee_eur:
    type: number
    description: The fee charged now, in euros (0 once waived).
examples:
  - args: {{appointment_id: APT-000123}}
"""

READ_DOCUMENT = """\
name: read_document
intent: Read a clinic document, such as the price list or the privacy notice.
use_when: The patient asks what a clinic document says.
effect: read
params:
  name:
    type: path
    root: documents
    suffixes: [.md, .txt]
    example: prices.md
    description: The document's file name in the clinic's documents folder.
returns:
  text:
    type: string
    max_length: 2000
    description: The document's text.
examples:
  - args: {name: prices.md}
  - args: {name: /etc/passwd}
    rejected_on: name
    note: The path guard refuses /etc/passwd, a file outside the documents folder.
  - args: {name: ../../.ssh/id_rsa}
    rejected_on: name
"""


def _findings(tmp_path: Path, files: dict[str, str], rule: str) -> list[Diagnostic]:
    diagnostics, _ = check(tmp_path, {"catalogue.yaml": CLINIC, **files})
    return [d for d in diagnostics if d.code == rule]


def _tool(name: str, text: str) -> dict[str, str]:
    return {f"tools/{name}.yaml": text}


def test_tg203_hears_waive_as_the_verb_of_waive_no_show_fee(tmp_path: Path) -> None:
    # 'show' inside the name is part of its object (a no-show), not a verb that makes
    # 'waive' a noun; and the intent opens with the word
    said = WAIVE.format(intent="Waive the no-show fee of a missed appointment.")
    assert _findings(tmp_path, _tool("waive_no_show_fee", said), "TG203") == []
    # the same when the intent says it otherwise: a verb inside a name is no evidence
    other = WAIVE.format(intent="Cancel the fee charged for a missed appointment.")
    assert _findings(tmp_path / "b", _tool("waive_no_show_fee", other), "TG203") == []


def _tg203_of_a_read_named(name: str, tmp_path: Path) -> Diagnostic:
    """The one TG203 finding of the fee tool as a read named `name`."""
    text = (
        WAIVE.format(intent="The fee a patient owes for a missed appointment.")
        .replace("waive_no_show_fee", name)
        .replace("effect: write\nidempotency: natural\n", "effect: read\n")
    )
    [found] = _findings(tmp_path, _tool(name, text), "TG203")
    return found


def test_tg203_never_offers_a_name_made_by_moving_the_names_words(
    tmp_path: Path,
) -> None:
    found = _tg203_of_a_read_named("no_show_fee_get", tmp_path)
    assert found.message == (
        "tool name 'no_show_fee_get' does not start with a verb ('no'); expected "
        "verb_noun, the action first; 'get' ends the name"
    )
    assert "get_no_show_fee" not in found.message + (found.hint or "")


def test_tg203_offers_no_second_verb_before_a_name_that_holds_one(
    tmp_path: Path,
) -> None:
    """Resend's emails_get_attachment was offered 'get_emails_get_attachment'."""
    found = _tg203_of_a_read_named("fees_get_total", tmp_path)
    assert found.message == (
        "tool name 'fees_get_total' does not start with a verb ('fees'); expected "
        "verb_noun, the action first; 'get' comes after 'fees'"
    )


def test_tg905_leaves_the_rejected_example_of_a_path_guard_alone(
    tmp_path: Path,
) -> None:
    files = _tool("read_document", READ_DOCUMENT)
    assert _findings(tmp_path, files, "TG905") == []
    # an accepted example with the same value runs through the implementation: reported
    accepted = READ_DOCUMENT.replace(
        "  - args: {name: prices.md}\n", "  - args: {name: prices.md}\n"
    ).replace(
        "examples:\n  - args: {name: prices.md}",
        "examples:\n  - args: {name: prices.md}\n  - args: {name: notes/etc/passwd.md}",
    )
    [found] = _findings(tmp_path / "b", _tool("read_document", accepted), "TG905")
    assert "/etc/passwd" in found.message
    # and so is the same file named where the model reads it
    described = READ_DOCUMENT.replace(
        "The patient asks what a clinic document says.",
        "The patient asks what a clinic document says, never /etc/passwd.",
    )
    assert _findings(tmp_path / "c", _tool("read_document", described), "TG905")


PAYMENT = """\
name: {name}
intent: {intent}
use_when: {use_when}
effect: write
idempotency: natural
params:
  counterpart:
    type: string
    max_length: 80
    description: {counterpart}
  amount_eur:
    type: number
    min: 0.01
    max: 10000
    description: The amount, in euros.
  note:
    type: string
    max_length: 140
    description: A note shown to the other member.
examples:
  - args: {{counterpart: Bob, amount_eur: 12.5, note: Dinner}}
"""


def _payments(*tools: tuple[str, str]) -> dict[str, str]:
    """Payment tools by name and intent: pairs for the rules that compare two tools."""
    return {
        f"tools/{name}.yaml": PAYMENT.format(
            name=name, intent=intent, use_when="The member asks.", counterpart="Who."
        )
        for name, intent in tools
    }


def test_tg401_does_not_call_opposite_actions_near_twins(tmp_path: Path) -> None:
    make = PAYMENT.format(
        name="MakePayment",
        intent="Send money from the member's balance to another member.",
        use_when="The member wants to pay someone.",
        counterpart="Who receives the money.",
    )
    request = PAYMENT.format(
        name="RequestPayment",
        intent="Ask another member to settle what they owe.",
        use_when="The member wants to be paid back.",
        counterpart="Who is asked to pay.",
    )
    files = {**_tool("MakePayment", make), **_tool("RequestPayment", request)}
    assert _findings(tmp_path, files, "TG401") == []
    # the same pair under two verbs of one class, as deposit and withdraw are: the verbs
    # mirror each other, and the intents share words (money, account, member)
    deposit = PAYMENT.format(
        name="deposit_member_money",
        intent="Put money into the member's account from their card.",
        use_when="The member wants to add money to the account.",
        counterpart="The card the money comes from.",
    )
    withdraw = PAYMENT.format(
        name="withdraw_member_money",
        intent="Take money out of the member's account onto their card.",
        use_when="The member wants money back from the account.",
        counterpart="The card the money goes to.",
    )
    files = {
        **_tool("deposit_member_money", deposit),
        **_tool("withdraw_member_money", withdraw),
    }
    assert _findings(tmp_path / "b", files, "TG401") == []


def test_tg401_still_reports_variants_of_one_action(tmp_path: Path) -> None:
    by_email = PAYMENT.format(
        name="find_member_by_email",
        intent="Find a member of the club by their email address.",
        use_when="The user knows the member's email.",
        counterpart="The member's email.",
    ).replace("effect: write\nidempotency: natural\n", "effect: read\n")
    by_name = by_email.replace("find_member_by_email", "find_member_by_name").replace(
        "email", "name"
    )
    files = {
        **_tool("find_member_by_email", by_email),
        **_tool("find_member_by_name", by_name),
    }
    assert len(_findings(tmp_path, files, "TG401")) == 1


CONSOLE = """\
name: list_console_messages
intent: List the console messages of the page since it was last loaded.
use_when: The user asks what the page logged.
effect: read
params:
  {param}:
    type: string
    enum: [log, info, clear, issue, count]
    optional: true
    description: Only messages of this kind.
returns:
  total:
    type: integer
    description: How many messages there are.
examples:
  - args: {{{param}: null}}
"""


def test_tg402_reads_a_read_tools_verbs_as_kinds_unless_named_as_an_action(
    tmp_path: Path,
) -> None:
    # chrome-devtools' types are a list (in the corpus); one kind at a time is a filter too
    kinds = _tool("list_console_messages", CONSOLE.format(param="kind"))
    assert _findings(tmp_path, kinds, "TG402") == []
    # an action parameter picks what a call does, even where the effect says read
    action = _tool("list_console_messages", CONSOLE.format(param="action"))
    assert len(_findings(tmp_path / "b", action, "TG402")) == 1


ATTACHMENT = """\
name: {name}
intent: Read a text attachment of a meeting note and return its text.
use_when: The user asks what an attachment of a note says.
effect: read
params:
  path:
    type: path
    root: attachments
    suffixes: [.txt, .md]
    example: 2026/budget.md
    description: The attachment's file name under the attachments folder.
returns:
  text: {{type: string, max_length: 4000, description: The attachment's text.}}
examples:
  - args: {{path: 2026/budget.md}}
"""


def test_tg807_leaves_a_tool_that_reads_an_attachment_alone(tmp_path: Path) -> None:
    # met on a meeting-notes catalogue written from the docs: reading a text is what the
    # tool is for, as for read_document
    files = _tool("read_attachment", ATTACHMENT.format(name="read_attachment"))
    assert _findings(tmp_path, files, "TG807") == []
    # a tool that summarises its object in prose is still reported
    summary = ATTACHMENT.format(name="summarize_budget").replace(
        "  text:", "  summary:"
    )
    [found] = _findings(tmp_path / "b", _tool("summarize_budget", summary), "TG807")
    assert "'summary'" in found.message


JAPANESE = """\
name: read_order_status
intent: 現在のお客様の注文の状況と配達予定日を読み取ります。
use_when: お客様が注文の場所、発送済みかどうか、いつ届くかを尋ねたとき。
effect: read
params:
  order_number:
    type: string
    pattern: '^ORD-\\d{4,8}$'
    example: ORD-20931
    description: 確認メールに記載された注文番号。
returns:
  status:
    type: string
    enum: [open, shipped, delivered, cancelled]
    description: 注文の現在の状況。
errors:
  unknown_order:
    when: 現在のお客様にこの番号の注文がありません。
    how_to_fix: 確認メールの order_number で read_order_status をもう一度呼び出してください。
examples:
  - args: {order_number: ORD-20931}
"""


def test_a_catalogue_in_japanese_is_linted_clean_once_the_english_rules_are_off(
    tmp_path: Path,
) -> None:
    # what docs/spec.md says: the two rules that read English prose are the ones to turn
    # off; no other rule reports Japanese text
    files = _tool("read_order_status", JAPANESE)
    found = {d.code for d in check(tmp_path, {"catalogue.yaml": CLINIC, **files})[0]}
    assert {"TG301", "TG805"} <= found
    english_off = CLINIC + "lint:\n  ignore: [TG301, TG805]\n"
    diagnostics, _ = check(tmp_path / "b", {"catalogue.yaml": english_off, **files})
    assert [d.code for d in diagnostics if d.severity.value != "info"] == []


SECRET_ALERTS = """\
name: list_secret_scanning_alerts
intent: List the secret scanning alerts of a repository.
use_when: The user asks which leaked secrets were found in a repository.
effect: read
params:
  repo:
    type: string
    pattern: '^[A-Za-z0-9_.-]{{1,100}}$'
    example: toolgen
    description: The name of the repository.
  {name}:
    type: string
    pattern: '^[a-z_]{{1,60}}$'
    example: github_personal_access_token
    description: The type of secret to list alerts of.
returns:
  alerts:
    type: integer
    description: How many alerts are open.
examples:
  - args: {{repo: toolgen, {name}: github_personal_access_token}}
"""


def test_tg603_leaves_a_parameter_that_says_what_kind_of_secret_alone(
    tmp_path: Path,
) -> None:
    # met on github-mcp-server's list_secret_scanning_alerts (secret_type, a filter): an
    # error there stops the build of a tool that holds no credential
    for i, name in enumerate(("secret_type", "token_id", "api_key_name")):
        said = SECRET_ALERTS.format(name=name)
        files = _tool("list_secret_scanning_alerts", said)
        assert _findings(tmp_path / str(i), files, "TG603") == [], name
    # a name that holds a credential is still reported, the pairs and words alike
    for i, name in enumerate(("secret", "client_secret", "api_key", "db_password")):
        said = SECRET_ALERTS.format(name=name)
        files = _tool("list_secret_scanning_alerts", said)
        [found] = _findings(tmp_path / f"held{i}", files, "TG603")
        assert f"'{name}'" in found.message


RESOLVE = """\
name: {name}
intent: Mark a review thread of a pull request as resolved.
use_when: The user says the discussion of a review comment is settled.
effect: write
idempotency: natural
params:
  thread_id:
    type: string
    pattern: '^PRRT_[A-Za-z0-9]{{4,40}}$'
    example: PRRT_kwDOA1
    description: The review thread's node id.
returns:
  resolved:
    type: boolean
    description: True once the thread is resolved.
examples:
  - args: {{thread_id: PRRT_kwDOA1}}
"""


def test_tg706_hears_resolve_as_a_change_of_what_it_resolves(tmp_path: Path) -> None:
    # met on github-mcp-server's resolve_review_thread: resolving a thread, a conflict or
    # an incident changes it, as resolving a hostname does not; the verb says neither
    said = RESOLVE.format(name="resolve_review_thread")
    files = _tool("resolve_review_thread", said)
    assert _findings(tmp_path, files, "TG706") == []
    # a write tool named with a verb that only reads is still reported
    fetched = RESOLVE.format(name="fetch_review_thread")
    files = _tool("fetch_review_thread", fetched)
    [found] = _findings(tmp_path / "b", files, "TG706")
    assert "'fetch'" in found.message


COMMENT = """\
name: write_discussion_comment
intent: Add, reply to or update a comment of a repository's discussion.
use_when: The user wants to comment on a discussion, or change a comment of theirs.
effect: write
idempotency: natural
params:
  method:
    type: string
    enum: [add, reply, update]
    description: What to do with the comment.
  body:
    type: string
    pattern: '^.{{1,2000}}$'
    example: Thanks, that settles it.
    description: {said}
returns:
  comment_id:
    type: string
    description: The comment's node id.
examples:
  - args: {{method: add, body: Thanks, that settles it.}}
"""


def test_tg312_leaves_a_description_that_names_another_parameter_s_values(
    tmp_path: Path,
) -> None:
    # met on github-mcp-server's discussion_comment_write: the values a description names
    # are those of the method parameter's enum, not options of its own
    said = "The comment's text (required for 'add', 'reply', and 'update' methods)."
    files = _tool("write_discussion_comment", COMMENT.format(said=said))
    assert _findings(tmp_path, files, "TG312") == []
    # options of its own are still reported, beside a sibling's enum
    own = "The tone of the comment, 'formal', 'friendly', or 'brief'."
    files = _tool("write_discussion_comment", COMMENT.format(said=own))
    [found] = _findings(tmp_path / "b", files, "TG312")
    assert "'body'" in found.message


def test_tg312_leaves_the_values_another_parameter_takes_alone(tmp_path: Path) -> None:
    # met 16 times on Dropbox Sign's description: "When **operator** is one of the
    # following, **value** must be a String" lists what operator takes, not value
    said = (
        "When **method** is one of the following, the text is required, add or reply."
    )
    files = _tool("write_discussion_comment", COMMENT.format(said=said))
    assert _findings(tmp_path, files, "TG312") == []
    own = "The tone of the text, which is one of formal, friendly or brief."
    files = _tool("write_discussion_comment", COMMENT.format(said=own))
    assert len(_findings(tmp_path / "own", files, "TG312")) == 1


def test_tg312_reads_no_options_in_a_link_or_a_date_format(tmp_path: Path) -> None:
    # met on Dropbox Sign's description (hellosign-openapi): a link's path and a date's
    # format are words between slashes, as "open/shipped/cancelled" is
    for index, said in enumerate(
        [
            "See https://developers.hellosign.com/api/oauthWalkthrough for the steps.",
            "Read [the constants](/api/reference/constants/#supported-locales) first.",
            "The day the report starts, as MM/DD/YYYY.",
        ]
    ):
        files = _tool("write_discussion_comment", COMMENT.format(said=said))
        assert _findings(tmp_path / str(index), files, "TG312") == [], said
    own = "The tone of the comment, formal/friendly/brief."
    files = _tool("write_discussion_comment", COMMENT.format(said=own))
    [found] = _findings(tmp_path / "own", files, "TG312")
    assert "'formal/friendly/brief'" in found.message


SIGNING = """\
name: send_signature_request
intent: Send a document to be signed by the people it names.
use_when: The user wants someone to sign a document.
effect: write
idempotency: natural
params:
  {name}:
    type: string
    description: {said}
returns:
  request_id:
    type: string
    description: The signature request's id.
examples:
  - args: {{{name}: x}}
"""


def test_tg606_and_tg607_read_what_a_parameter_is_from_its_last_word(
    tmp_path: Path,
) -> None:
    # met on Dropbox Sign's description (hellosign-openapi): file_urls is a list of URLs,
    # not a path; link_color is a colour, not a URL
    def found(name: str) -> list[str]:
        files = _tool(
            "send_signature_request",
            SIGNING.format(name=name, said=f"The {name.replace('_', ' ')}."),
        )
        diagnostics, _ = check(tmp_path / name, {"catalogue.yaml": CLINIC, **files})
        return sorted({d.code for d in diagnostics} & {"TG606", "TG607"})

    assert found("file_urls") == ["TG607"]
    assert found("link_color") == []
    assert found("webhook_secret") == []
    assert found("file_size") == []
    assert found("endpoint_id") == []
    # what names a path or a URL is still reported, by its last word before a preposition
    assert found("source_file") == ["TG606"]
    assert found("file_name") == ["TG606"]
    assert found("folder") == ["TG606"]
    assert found("callback_url") == ["TG607"]
    assert found("url_to_fetch") == ["TG607"]
    assert found("webhook") == ["TG607"]


def test_tg802_counts_a_page_size_in_items_not_in_bytes(tmp_path: Path) -> None:
    # met nine times on Dropbox Sign's description (hellosign-openapi): its list_info's
    # page_size was "a size without a unit; expected page_size_bytes"
    sizes = (
        "  page_size: {type: integer, description: Documents per page.}\n"
        "  file_size: {type: integer, description: The document's size.}\n"
    )
    listed = READ_DOCUMENT.replace("examples:\n", sizes + "examples:\n", 1)
    [found] = _findings(tmp_path, _tool("read_document", listed), "TG802")
    assert "'file_size'" in found.message


def test_a_name_that_says_something_of_a_secret_or_of_code_holds_neither(
    tmp_path: Path,
) -> None:
    # met on OpenAI's own description (openai-openapi, imported): api_key_ids (TG603, an
    # error, nine times), user.api_key_last_used_at (TG610) and eval_id (TG605, an error,
    # ten times) name keys, a time and an evaluation, not a credential or code
    def found(name: str, *, returned: bool = False) -> list[str]:
        text = SIGNING.format(name=name, said="What it is.")
        if returned:
            text = text.replace(
                "  request_id:\n",
                f"  {name}:\n    type: string\n"
                "    description: What it is.\n  request_id:\n",
            )
        files = _tool("send_signature_request", text)
        diagnostics, _ = check(tmp_path / name, {"catalogue.yaml": CLINIC, **files})
        return sorted({d.code for d in diagnostics} & {"TG603", "TG605", "TG610"})

    assert found("api_key_ids") == []
    assert found("eval_id") == []
    assert found("script_url") == []
    assert found("api_key_last_used_at", returned=True) == []
    # the credential and the code themselves are still reported
    assert found("api_key") == ["TG603"]
    assert found("api_key", returned=True) == ["TG603", "TG610"]
    assert found("eval") == ["TG605"]


def test_tg205_leaves_the_id_of_a_named_object_alone(tmp_path: Path) -> None:
    # met on petstore (category.id, tags.id) and OpenAI's description (video.id, prompt.id):
    # the object an id sits in says whose it is; a bare id says nothing
    nested = SIGNING.replace(
        "  {name}:\n    type: string\n    description: {said}\n",
        "  video:\n    type: object\n    description: The video to sign.\n"
        "    properties:\n      id: {{type: string, description: The id.}}\n"
        "  id: {{type: string, description: The id.}}\n",
    ).replace("{{{name}: x}}", "{{video: {{id: v}}, id: x}}")
    files = _tool("send_signature_request", nested.format())
    assert [
        d.message.split(" has")[0] for d in _findings(tmp_path, files, "TG205")
    ] == ["parameter 'id'"]


def test_tg206_reads_user_and_tool_in_a_name_as_objects(tmp_path: Path) -> None:
    # met on Asana's description (Asana/openapi, imported): addUserForTeam and createTeam
    # "name the same action on 'team_user'", as the prose stopwords dropped 'user'
    files = _payments(
        ("add_user_for_team", "Add a member of the club to one of its teams."),
        ("create_team", "Create a new team of the club for its members."),
    )
    assert _findings(tmp_path, files, "TG206") == []


def test_tg308_hears_or_else_as_a_threat_only_when_it_ends_the_sentence(
    tmp_path: Path,
) -> None:
    # met six times on Asana's description: "specify only the fields you wish to change,
    # or else you may overwrite changes made by another user" says what happens
    said = "Only the fields to change, or else you may overwrite another change."
    files = _tool("write_discussion_comment", COMMENT.format(said=said))
    assert _findings(tmp_path, files, "TG308") == []
    threat = "Only the fields to change, or else!"
    files = _tool("write_discussion_comment", COMMENT.format(said=f"'{threat}'"))
    [found] = _findings(tmp_path / "threat", files, "TG308")
    assert "'or else'" in found.message


def test_tg801_leaves_the_lists_of_one_record_alone(tmp_path: Path) -> None:
    # met on petstore's getPetById (a pet's photoUrls and tags) and OpenAI's
    # retrieve-role (a role's permissions): lists of the record returned, not results
    record = (
        "  id: {type: string, description: The document's id.}\n"
        "  tags: {type: array, items: {type: string}, description: Its tags.}\n"
    )
    text = READ_DOCUMENT.replace("examples:\n", record + "examples:\n", 1)
    assert _findings(tmp_path, _tool("read_document", text), "TG801") == []
    # without the record's id the list is a result that may be cut
    text = text.replace("  id: {type: string, description: The document's id.}\n", "")
    [found] = _findings(tmp_path / "b", _tool("read_document", text), "TG801")
    assert "'tags'" in found.message


def test_tg602_leaves_the_name_of_the_account_a_tool_creates_alone(
    tmp_path: Path,
) -> None:
    # met on petstore's createUser and createUsersWithListInput: the username is the new
    # account's, chosen in the conversation; no session holds it yet
    def found(tool: str, name: str) -> list[Diagnostic]:
        text = SIGNING.replace("send_signature_request", tool).format(
            name=name, said="The name."
        )
        return _findings(tmp_path / tool / name, _tool(tool, text), "TG602")

    assert found("create_user", "username") == []
    assert found("create_customer", "customer_id") == []
    # the caller's identity in any other tool, a creation of something else included
    assert len(found("delete_user", "username")) == 1
    assert len(found("create_order", "user_id")) == 1


def test_tg303_hears_an_undoing_verb_as_a_change(tmp_path: Path) -> None:
    # met on Asana's and OpenAI's descriptions: unassign_user_role beside update_role, an
    # unknown verb judged by the intents they share ("a role of the organization")
    files = _payments(
        ("unassign_member_role", "Unassign a role of the club from one member."),
        ("update_role", "Update a role of the club for its members."),
    )
    assert _findings(tmp_path, files, "TG303") == []


def test_tg401_tells_an_item_from_members_by_the_object_itself(tmp_path: Path) -> None:
    # met on Asana's description: addItemForPortfolio and addMembersForPortfolio were near
    # twins, as 'item' (a word that tells no two objects apart) left the first no object
    files = _payments(
        (
            "add_item_for_team",
            "Add an item to the equipment of one of the club's teams.",
        ),
        ("add_members_for_team", "Add members of the club to one of its teams."),
    )
    assert _findings(tmp_path, files, "TG401") == []


def test_mirror_actions_are_neither_twins_nor_neighbours(tmp_path: Path) -> None:
    """enable and disable, log in and log out: one action and its mirror, which
    `words.opposite_verbs` said it knew (its docstring named enable and disable) and did
    not; petstore's loginUser and logoutUser met TG303."""
    for index, (first, second) in enumerate(
        [("enable", "disable"), ("login", "logout"), ("encrypt", "decrypt")]
    ):
        files = _payments(
            *(
                (
                    f"{verb}_member_card",
                    f"{verb.capitalize()} the card of a club member.",
                )
                for verb in (first, second)
            )
        )
        found = [
            d.message
            for rule in ("TG401", "TG303")
            for d in _findings(tmp_path / str(index), files, rule)
        ]
        assert found == [], (first, second)


def test_tg951_counts_what_a_toolset_loads_up_front(tmp_path: Path) -> None:
    # a 30-tool catalogue split into toolsets of 20 and 11, its archive deferred, was told
    # to "split the agent in two" on every check and every export
    from lint_cases import _produce, catalogue

    made = _produce(22)
    names = [f.removeprefix("tools/").removesuffix(".yaml") for f in made if "/" in f]
    assert _findings(tmp_path / "a", made, "TG951") != []  # 22 tools up front
    # three tools a search loads: one search tool up front, 19 beside it
    deferred = {**made, "catalogue.yaml": catalogue() + _ARCHIVE}
    for name in names[:3]:
        text = made[f"tools/{name}.yaml"]
        deferred[f"tools/{name}.yaml"] = text.replace(
            "effect: read", "effect: read\nnamespace: archive"
        )
    assert _findings(tmp_path / "b", deferred, "TG951") == []
    # one toolset of them all: counted as the agent that gets it
    split = catalogue() + f"toolsets:\n  all:\n    tools: [{', '.join(names)}]\n"
    [found] = _findings(tmp_path / "c", {**made, "catalogue.yaml": split}, "TG951")
    assert found.message.startswith("toolset 'all' has 22 tools up front")


_ARCHIVE = "namespaces:\n  archive:\n    description: Old crates.\n    deferred: true\n"


SEND_EMAIL = """\
name: send_email
intent: Send an email to a customer of the clinic.
use_when: The user asks to write to a customer.
effect: write
idempotency: natural
params:
  to: {type: string, pattern: '^[^@ ]+@[^@ ]+$', example: a@example.com, description: The address.}
  body: {type: string, max_length: 4000, description: {body}}
returns:
  sent: {type: boolean, description: True once the email is sent.}
examples:
  - args: {to: a@example.com, body: Hello.}
"""


def test_tg403_leaves_the_body_of_an_email_alone(tmp_path: Path) -> None:
    # an email's body is prose for people, not a payload of fields
    said = SEND_EMAIL.replace("{body}", "The body of the email.")
    assert _findings(tmp_path, _tool("send_email", said), "TG403") == []
    payload = SEND_EMAIL.replace("{body}", "The request body.")
    assert len(_findings(tmp_path / "b", _tool("send_email", payload), "TG403")) == 1


def test_tg952_counts_what_one_request_of_a_toolset_carries(tmp_path: Path) -> None:
    # 129 tools in two toolsets: each agent's request carries its own, under 128
    from lint_cases import _produce, catalogue

    made = _produce(129)
    names = [f.removeprefix("tools/").removesuffix(".yaml") for f in made if "/" in f]
    assert len(_findings(tmp_path / "a", made, "TG952")) == 1
    halves = f"toolsets:\n  front:\n    tools: [{', '.join(names[:65])}]\n"
    halves += f"  back:\n    tools: [{', '.join(names[65:])}]\n"
    split = {**made, "catalogue.yaml": catalogue() + halves}
    assert _findings(tmp_path / "b", split, "TG952") == []


PLANS = """\
name: list_{kind}_plans
intent: List the {words} plans of the current patient, newest first.
use_when: The user asks about {topic}.
effect: read
namespace: {namespace}
pagination: {{max_page_size: 50, noun: plan}}
params:
  recorded_since:
    type: date
    optional: true
    description: Only plans recorded on or after this day; null for any day.
returns:
  plan_id: {{type: string, description: The plan's id.}}
examples:
  - args: {{recorded_since: null, cursor: null, page_size: null}}
"""

PLAN_CATALOGUE = """\
format: 1
name: shop
description: A clinic's clinical documents and its billing office.
namespaces:
  documents: {description: Clinical documents such as care plans for long-term conditions.}
  billing: {description: Invoices and payment plans to pay a bill in monthly instalments.}
"""


def test_tools_no_toolset_holds_together_are_no_pair(tmp_path: Path) -> None:
    # a clinic met TG401 (merge them into one tool) on its care plans and its payment
    # plans, which no agent is given together: the clinician's and the billing office's
    tools = {
        f"tools/list_{kind}_plans.yaml": PLANS.format(
            kind=kind, words=kind, topic=topic, namespace=namespace
        )
        for kind, topic, namespace in (
            ("care", "care plans for long-term conditions such as asthma", "documents"),
            ("payment", "paying a bill in monthly instalments", "billing"),
        )
    }
    apart = (
        "toolsets:\n  clinician: {tools: [documents]}\n  office: {tools: [billing]}\n"
    )
    together = "toolsets:\n  front_desk: {tools: [documents, billing]}\n"
    for folder, toolsets, found in (("a", apart, 0), ("b", together, 1), ("c", "", 1)):
        files = {"catalogue.yaml": PLAN_CATALOGUE + toolsets, **tools}
        diagnostics, _ = check(tmp_path / folder, files)
        assert len([d for d in diagnostics if d.code == "TG401"]) == found, folder


def test_tg312_leaves_the_values_of_one_case_among_others(tmp_path: Path) -> None:
    # met on Playwright's browser_fill_form: each kind of field takes its own values
    said = (
        "If the field is a checkbox, the value should be 'true' or 'false'. If it is a "
        "combobox, the value is the text of the option to select."
    )
    files = _tool("write_discussion_comment", COMMENT.format(said=said))
    assert _findings(tmp_path, files, "TG312") == []
    # one case alone is the values the parameter takes when it is given
    own = "When given, the tone should be 'formal' or 'friendly'."
    files = _tool("write_discussion_comment", COMMENT.format(said=own))
    assert len(_findings(tmp_path / "own", files, "TG312")) == 1
