"""False positives met on the nine catalogues added to the real-world corpus, each checked
on the catalogue it was met on (tests/lint/realworld/catalogues), with the true findings
of the same rule beside it that must stay."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from toolgen.build import pipeline

REALWORLD = Path(__file__).resolve().parent / "realworld"


@cache
def _diagnostics(catalogue: str) -> tuple[tuple[str, str, str], ...]:
    result = pipeline.check_catalogue(
        REALWORLD / "catalogues" / catalogue, REALWORLD, implementations=False
    )
    return tuple(
        (d.code, Path(d.span.file).stem, d.message) for d in result.diagnostics
    )


def found(catalogue: str, rule: str, tool: str) -> list[str]:
    """The messages of `rule` on the file of `tool` in a corpus catalogue."""
    return [
        message
        for code, stem, message in _diagnostics(catalogue)
        if code == rule and stem == tool
    ]


def test_tg205_leaves_a_tool_s_only_parameter_id_alone() -> None:
    # 12 of 16 findings on Resend were a bare id as the only parameter of a
    # one-object tool (templates_get, segments_remove): nothing to mistake it for
    assert found("resend", "TG205", "templates_get") == []
    assert found("resend", "TG205", "segments_remove") == []
    # an id beside other fields still says nothing of whose it is
    assert len(found("resend", "TG205", "templates_update")) == 1
    assert len(found("resend", "TG205", "contacts_update")) == 1


def test_tg503_reads_email_id_as_the_id_of_a_message() -> None:
    # 10 of 17 findings on Resend were email_id ("The ID of the email."), an address
    # to the rule
    assert found("resend", "TG503", "emails_get") == []
    assert found("resend", "TG503", "emails_metrics") == []
    # the addresses themselves are still reported
    assert len(found("resend", "TG503", "contacts_create")) == 1
    assert len(found("stripe_mcp", "TG503", "create_customer")) == 1


def test_tg606_leaves_a_hosted_path_and_an_attachment_s_name_alone() -> None:
    # 6 of 6 findings on Resend: an attachment's path "where the attachment file is
    # hosted" (a URL), its filename ("Name of attached file."), and custom_return_path,
    # "a subdomain for the Return-Path address"
    assert found("resend", "TG606", "emails_send") == []
    assert found("resend", "TG606", "emails_send_batch") == []
    assert found("resend", "TG606", "domains_create") == []
    # local paths are still reported
    assert len(found("server_filesystem", "TG606", "read_text_file")) == 1
    assert len(found("mcp_server_git", "TG606", "git_status")) == 1


def test_tg607_leaves_a_redirect_url_alone() -> None:
    # met on Stripe's create_payment_link: "The URL to redirect to after the payment is
    # completed" is where the payer's browser goes, not a host the tool reaches
    assert found("stripe_mcp", "TG607", "create_payment_link") == []
    # a URL the tool loads, or one events are sent to, is still reported
    assert len(found("playwright_mcp", "TG607", "browser_navigate")) == 1
    assert len(found("resend", "TG607", "webhooks_create")) == 1


def test_tg312_reads_no_options_in_a_rule_across_parameters_a_case_or_a_bound() -> None:
    # 4 of 6 findings were wrong: Resend's events_send ("Exactly one of `contact_id` or
    # `email` must be provided."), emails_metrics.start_date ("Must be on or before
    # `end_date`"), Playwright's browser_fill_form ("If the field is a checkbox, the
    # value should be `true` or `false`. ...")
    assert found("resend", "TG312", "events_send") == []
    assert found("resend", "TG312", "emails_metrics") == []
    assert found("playwright_mcp", "TG312", "browser_fill_form") == []
    # options a parameter takes are still reported
    [tls] = found("resend", "TG312", "domains_update")
    assert "'enforced | opportunistic'" in tls
    assert len(found("bfcl_travel_booking", "TG312", "get_flight_cost")) == 1


def _pairs(catalogue: str, rule: str, tool: str) -> list[str]:
    return [
        m.split(" both act")[0].split(" are near")[0]
        for m in found(catalogue, rule, tool)
    ]


def test_tg303_and_tg401_read_the_verb_after_a_resource_and_know_more_verbs() -> None:
    # 10 of 46 findings were wrong: Resend's resource-first names (contacts_add_segment,
    # oauth_revoke_grant) took the resource for an unknown verb; Stripe's finalize and
    # BFCL's press and release were unknown
    assert _pairs("resend", "TG303", "contacts_list_segments") == []
    assert _pairs("resend", "TG303", "contacts_remove_segment") == []
    assert _pairs("resend", "TG401", "contacts_remove_segment") == []
    assert _pairs("resend", "TG303", "oauth_revoke_grant") == []
    assert _pairs("stripe_mcp", "TG303", "finalize_invoice") == []
    assert _pairs("stripe_mcp", "TG303", "list_invoices") == []
    assert _pairs("bfcl_vehicle_control", "TG303", "releaseBrakePedal") == []
    # two reads of one object, and variants of one action, are still reported
    assert _pairs("resend", "TG303", "emails_list_attachments") == [
        "tools 'emails_get_attachment' and 'emails_list_attachments'",
        "tools 'emails_get_receiving_attachment' and 'emails_list_attachments'",
    ]
    assert _pairs("resend", "TG401", "emails_list_receiving_attachments") == [
        "tools 'emails_list_attachments' and 'emails_list_receiving_attachments'"
    ]
    assert len(_pairs("stripe_mcp", "TG303", "create_invoice_item")) == 1


def test_tg602_leaves_a_lookup_of_one_of_the_users_a_catalogue_lists_alone() -> None:
    # met on Slack's slack_get_user_profile and Notion's API-get-user, beside
    # slack_get_users and API-get-users: any member of the workspace, not the caller
    assert found("server_slack", "TG602", "slack_get_user_profile") == []
    assert found("notion_mcp", "TG602", "API-get-user") == []
    # where no tool lists the users, the user looked up is the one served
    assert len(found("tau_bench_retail", "TG602", "get_user_details")) == 1
    assert len(found("swagger_petstore", "TG602", "getUserByName")) == 1


def test_tg307_hears_the_best_first_step_as_advice() -> None:
    # met on Stripe's update_dispute: "contacting your customer is always the best first
    # step" advises the user; it does not praise the tool
    assert found("stripe_mcp", "TG307", "update_dispute") == []
    assert len(found("chrome_devtools_mcp", "TG307", "take_snapshot")) == 1


def test_tg703_reads_the_verb_after_a_resource_before_a_trailing_one() -> None:
    # met on Resend's contacts_get_import (GET /contacts/imports/{id}): 'import' is the
    # object, the import job got; the verb is 'get'
    assert found("resend", "TG703", "contacts_get_import") == []
    # and the two reads of imports are neighbours
    assert len(found("resend", "TG303", "contacts_list_imports")) == 1


def test_tg802_counts_a_total_of_things_and_a_history_s_length() -> None:
    # met on sequentialthinking's returns: totalThoughts (a number) and
    # thoughtHistoryLength were "without a unit", suggesting _eur and _m
    assert found("server_sequential_thinking", "TG802", "sequentialthinking") == []
    # sizes in bytes and temperatures still need their unit
    assert len(found("resend", "TG802", "emails_get_attachment")) == 1
    assert len(found("server_everything", "TG802", "get-structured-content")) == 1
