"""The command line: `toolgen rules`, `--format` for check and build, the token summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint_cases import catalogue
from lint_fixtures import block, files, measure, tool, write

from toolgen import cli, refdocs
from toolgen.build import pipeline
from toolgen.lint import docs
from toolgen.lint.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]
VAGUE = tool(
    params=block("""
        val:
          type: string
          pattern: '^SKU-\\d{2,6}$'
          description: The product code."""),
    examples=block("- args: {val: SKU-11}"),
)


def test_rules_lists_id_name_category_severity_lifecycle(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(all_rules())
    assert lines[0].split() == [
        "TG201",
        "tool-name-target-limit",
        "names",
        "error",
        "stable",
    ]
    assert lines[0].index("tool-name") == lines[-1].index("unused-suppression")
    assert "TG808  open-world-free-text-result" in "\n".join(lines)
    assert [line.split()[-1] for line in lines].count("preview") == 3


def test_rules_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rules", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload[4] == {
        "id": "TG205",
        "name": "vague-parameter-name",
        "category": "names",
        "severity": "warning",
        "lifecycle": "stable",
        "summary": "Vague parameter name.",
    }


def test_rules_docs_prints_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rules", "--docs"]) == 0
    assert capsys.readouterr().out == docs.rules_markdown()


def test_refdocs_check_fails_on_a_stale_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    assert refdocs.main(["--root", str(tmp_path)]) == 0  # writes both pages
    assert refdocs.main(["--check", "--root", str(tmp_path)]) == 0
    stale = docs.rules_markdown().replace("Vague parameter name.", "Vague name.")
    (tmp_path / docs.DOCS_PATH).write_text(stale, encoding="utf-8")
    assert refdocs.main(["--check", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "docs/rules.md is stale (" in out
    assert "run: python -m toolgen.refdocs" in out
    assert refdocs.stale(tmp_path)[0][0] == "docs/rules.md"
    assert "-Vague name.\n+Vague parameter name.\n" in refdocs.stale(tmp_path)[0][1]


def test_the_committed_references_are_current() -> None:
    assert refdocs.stale(ROOT) == []


def test_users_are_not_offered_the_maintainers_check() -> None:
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["rules", "--check-docs"])


def test_check_prints_the_token_total_and_the_most_expensive_tools(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert cli.main(["check", "spec/inventory"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    result = pipeline.check_catalogue(ROOT / "spec" / "inventory", ROOT)
    assert result.catalogue is not None
    measured = measure(result.catalogue)
    lines = captured.err.splitlines()
    budget = result.catalogue.budget.tokens
    # every definition, the deferred tools' too: it said "per turn" alone, which a turn
    # of an agent whose tools are partly deferred never costs (toolgen docs' toolset table)
    deferred = sum(t.deferred for t in result.catalogue.tools)
    assert deferred == 2
    assert (
        f"spec/inventory: {measured.total:,} tokens per turn (o200k_base; budget {budget:,}"
        "; with every tool loaded, the 2 deferred ones too)"
    ) in lines
    top = lines[lines.index(next(x for x in lines if "tokens per turn" in x)) + 1 :]
    shown = measured.most_expensive(5)
    rest = len(measured.tools) - len(shown)
    assert rest > 0, "the example catalogue has more tools than the table shows"
    left = measured.total - sum(t.tokens for t in shown)
    assert [line.split() for line in top] == [
        *([f"{t.tokens:,}", t.name] for t in shown),
        [f"{left:,}", "and", str(rest), "more", "tool" if rest == 1 else "tools"],
    ]


@pytest.mark.parametrize("fmt", ["json", "github", "sarif"])
def test_check_prints_only_the_format_on_stdout(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = write(tmp_path, files(VAGUE))
    argv = ["check", str(folder), "--root", str(tmp_path), "--format", fmt]
    # warnings alone do not fail; past --max-warnings they do, and stderr stays empty
    assert cli.main(argv) == 0
    capsys.readouterr()
    assert cli.main([*argv, "--max-warnings", "0"]) == 1
    captured = capsys.readouterr()
    assert captured.err == ""
    if fmt == "github":
        assert (
            "\n::warning file=shop/tools/read_stock.yaml,line=6,col=3,title=TG205::"
            in ("\n" + captured.out)
        )
    else:
        payload = json.loads(captured.out)
        codes = (
            [d["code"] for d in payload]
            if fmt == "json"
            else [r["ruleId"] for r in payload["runs"][0]["results"]]
        )
        assert "TG205" in codes


def test_info_findings_do_not_fail_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = catalogue("lint:\n  severity: {names: info}\n")
    folder, _ = write(tmp_path, files(VAGUE, catalogue=quiet))
    assert cli.main(["check", str(folder), "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "TG205 [info] parameter 'val' has a vague name" in out


def test_build_lints_and_takes_the_formats_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = write(tmp_path, files(VAGUE))
    status = cli.main(
        ["build", str(folder), "--root", str(tmp_path), "--check", "--format", "sarif"]
    )
    assert status == 1
    log = json.loads(capsys.readouterr().out)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} >= {"TG205"}
