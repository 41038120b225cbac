"""Every report format, from Report objects built by hand; diffs are checked with a real `git apply`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.model import Edit, FileChange, FileError, Finding, Report, RuleInfo, Skipped, Span, Status
from bot.report import FORMATS, github, markdown, render, sarif, text
from bot.report import diff as diff_format

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# ---------------------------------------------------------------- fixtures


def before_after(before: bytes, old: bytes, new: bytes) -> tuple[bytes, Span]:
    """`before` with its single `old` replaced by `new`, and the byte span of `old`."""
    start = before.index(old)
    return before[:start] + new + before[start + len(old) :], Span(start, start + len(old))


def fixable(path: str, before: bytes, old: bytes, new: bytes, **extra: Any) -> tuple[Finding, FileChange]:
    after, span = before_after(before, old, new)
    line = before.count(b"\n", 0, span.start) + 1
    column = span.start - (before.rfind(b"\n", 0, span.start) + 1) + 1
    edit = Edit(path, span, new.decode(), "megatron-use-mbridge")
    finding = Finding(
        rule="megatron-use-mbridge", path=path, line=line, column=column,
        key="actor_rollout_ref.actor.megatron.use_mbridge", value=old.decode(), status=Status.FIXABLE,
        message="Megatron engines require use_mbridge=True; set to True", fix_site=(path, line), edits=[edit],
        **extra,
    )
    return finding, FileChange(path, before, after)


def manual(path: str, line: int, message: str = "value comes from the caller's environment") -> Finding:
    return Finding(
        rule="megatron-flash-attn", path=path, line=line, column=3,
        key="actor_rollout_ref.actor.megatron.use_mbridge", value="$MBRIDGE", status=Status.MANUAL,
        message=message, severity="warning",
    )


RULES = [
    RuleInfo("megatron-use-mbridge", True, "Megatron engines require use_mbridge=True", "error"),
    RuleInfo("megatron-flash-attn", True, "Flash attention | `override_transformer_config`", "warning"),
    RuleInfo("optional-rule", False, "Off unless enabled", "warning"),
]


@pytest.fixture
def report() -> Report:
    f1, c1 = fixable("examples/run ü.sh", b"# h\xc3\xa9\npython3 -m verl.trainer.main_ppo \\\n"
                     b"    actor_rollout_ref.actor.megatron.use_mbridge=False \\\n    trainer.n=1\n",
                     b"False", b"True")
    f2, c2 = fixable("a/crlf.sh", b"python -m x \\\r\n  k.use_mbridge=false\r\n", b"false", b"true")
    return Report(
        repo="verl-project/verl", commit="0123456789abcdef0123456789abcdef01234567", rules=list(RULES),
        findings=[manual("z/last.sh", 7, "check `a|b` and 100% of *this*\nnext line"), f1, f2],
        changes=[c1, c2], skipped=[Skipped("bin/x.sh", "not UTF-8"), Skipped("big.sh", "larger than 1 MiB")],
        partly_parsed=["z/last.sh"], files_scanned=16, files_parsed=12, launches=14,
    )


def empty_report() -> Report:
    return Report(repo="/tmp/repo", commit=None, rules=list(RULES), files_scanned=3)


# ---------------------------------------------------------------- dispatch


def test_render_dispatches_every_format(report: Report) -> None:
    for fmt in FORMATS:
        out = render(fmt, report)
        assert isinstance(out, str) and out


def test_render_rejects_unknown_format(report: Report) -> None:
    with pytest.raises(ValueError, match="unknown report format"):
        render("yaml", report)


# ---------------------------------------------------------------- json


def test_json_matches_contract_v1(report: Report) -> None:
    data = json.loads(render("json", report))
    assert set(data) == {"version", "repo", "commit", "rules", "findings", "files", "skipped", "summary",
                         "partly_parsed", "errors", "suppressed"}
    assert data["version"] == 1 and data["repo"] == "verl-project/verl" and isinstance(data["commit"], str)
    assert all(set(r) == {"id", "enabled"} and isinstance(r["enabled"], bool) for r in data["rules"])
    types = {"rule": str, "path": str, "line": int, "column": int, "key": str, "value": str, "status": str,
             "message": str, "severity": str, "kind": str}
    for item in data["findings"]:
        assert set(item) == set(types) | {"fix_site"}
        assert all(isinstance(item[k], t) for k, t in types.items())
        assert item["status"] in {"fixable", "fixed", "manual"}
        site = item["fix_site"]
        assert site is None or (set(site) == {"path", "line"} and isinstance(site["line"], int))
    assert all(set(f) == {"path", "diff"} and f["diff"].startswith("diff --git ") for f in data["files"])
    assert all(set(s) == {"path", "reason"} for s in data["skipped"])
    summary = data["summary"]
    assert {"files_scanned", "findings", "fixable", "manual"} <= set(summary)
    assert summary["files_scanned"] == 16 and summary["findings"] == 3
    assert summary["fixable"] == 2 and summary["manual"] == 1 and summary["files_changed"] == 2
    assert summary["written"] is False


def test_every_format_names_the_files_that_could_not_be_checked(report: Report) -> None:
    report.errors = [FileError("conf/odd.yaml", "internal error while checking: AttributeError: x (at y.py:1 in f)",
                               "checking", "Traceback (most recent call last): ...")]
    data = json.loads(render("json", report))
    assert data["errors"] == [{"path": "conf/odd.yaml", "reason": report.errors[0].reason, "stage": "checking"}]
    assert data["summary"]["errors"] == 1
    text_out = render("text", report)
    assert "errors (these files could not be checked" in text_out and "conf/odd.yaml: internal error" in text_out
    assert "1 file not checked (errors)" in text_out
    assert "Traceback" not in text_out  # the traceback goes to the crash log, not the report
    assert "Files that could not be checked (1)" in render("markdown", report)
    notes = json.loads(render("sarif", report))["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "conf/odd.yaml"
    assert "::error file=conf/odd.yaml,title=followup-bot::internal error" in render("github", report)


def test_json_is_deterministic_and_sorted(report: Report) -> None:
    first = render("json", report)
    report.findings.reverse()
    report.changes.reverse()
    report.rules.reverse()
    report.skipped.reverse()
    assert render("json", report) == first and first.endswith("}\n")
    data = json.loads(first)
    assert [f["path"] for f in data["findings"]] == ["a/crlf.sh", "examples/run ü.sh", "z/last.sh"]
    assert [f["path"] for f in data["files"]] == ["a/crlf.sh", "examples/run ü.sh"]
    assert "ü" in first  # ensure_ascii=False


def test_json_fix_site_null_and_empty_report() -> None:
    data = json.loads(render("json", empty_report()))
    assert data["commit"] is None and data["findings"] == [] and data["files"] == []
    assert data["summary"] == {"files_scanned": 3, "findings": 0, "fixable": 0, "manual": 0, "notes": 0,
                               "files_parsed": 0,
                               "launches": 0, "files_changed": 0, "written": False, "kinds": {}, "errors": 0,
                               "files_quiet": 3, "suppressed": {"inline": 0, "baseline": 0}}
    one = empty_report()
    one.findings.append(manual("x.sh", 1))
    assert json.loads(render("json", one))["findings"][0]["fix_site"] is None


def test_json_non_utf8_diff_stays_valid_and_exact() -> None:
    change = FileChange("l1.sh", b"# caf\xe9\nk=1\n", b"# caf\xe9\nk=2\n")
    out = render("json", Report("r", None, [], changes=[change]))
    out.encode("utf-8")  # no lone surrogates in the output
    patch = json.loads(out)["files"][0]["diff"].encode("utf-8", errors="surrogateescape")
    assert b"-# caf\xe9\n" not in patch and b" # caf\xe9\n" in patch


# ---------------------------------------------------------------- diff with real git apply


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd.parent), "XDG_CONFIG_HOME": str(cwd.parent),
           "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=env, check=False)


def assert_applies(tmp_path: Path, changes: list[FileChange]) -> bytes:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    assert git(repo, "init", "-q").returncode == 0
    for change in changes:
        target = repo / change.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(change.before)
    patch = diff_format.render(Report("r", None, [], changes=changes)).encode("utf-8", errors="surrogateescape")
    for args in (("apply", "--check", "-"), ("apply", "-")):
        done = git(repo, *args, stdin=patch)
        assert done.returncode == 0, done.stderr.decode() + "\n" + patch.decode(errors="replace")
    for change in changes:
        assert (repo / change.path).read_bytes() == change.after, change.path
    return patch


EDGE_CASES = {
    "crlf": (b"a\r\nb\r\nc\r\nd\r\ne\r\n", b"a\r\nb\r\nC\r\nd\r\ne\r\n"),
    "no_final_newline_both": (b"1\n2\n3\n4\n5\n6\nlast", b"1\n2\nTHREE\n4\n5\n6\nlast"),
    "last_line_changes_both_without_newline": (b"1\n2\nold", b"1\n2\nnew"),
    "last_line_loses_newline": (b"1\n2\nold\n", b"1\n2\nnew"),
    "last_line_gains_newline": (b"1\n2\nold", b"1\n2\nnew\n"),
    "only_newline_removed": (b"1\n2\n3\n", b"1\n2\n3"),
    "only_newline_added": (b"1\n2\n3", b"1\n2\n3\n"),
    "last_line_keeps_newline": (b"1\n2\n3\n4\nold\n", b"1\n2\n3\n4\nnew\n"),
    "utf8": ("# é ü 中文\nk=ä\nz\n".encode(), "# é ü 中文\nk=ö\nz\n".encode()),
    "crlf_last_line_loses_newline": (b"a\r\nb\r\n", b"a\r\nB"),
    "lone_cr_inside_line": (b"a\rb\nc\nd\n", b"a\rb\nC\nd\n"),
    "from_empty": (b"", b"new\nfile"),
    "to_empty": (b"x\ny\n", b""),
    "two_hunks": (b"".join(b"%d\n" % i for i in range(30)), b"".join(b"%d\n" % (i * (i % 23 != 2)) for i in range(30))),
    "latin1": (b"# caf\xe9\nk=1\n", b"# caf\xe9\nk=2\n"),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_diff_applies_with_git(tmp_path: Path, name: str) -> None:
    before, after = EDGE_CASES[name]
    assert_applies(tmp_path, [FileChange(f"dir/{name}.sh", before, after)])


def test_diff_marks_missing_newline_on_the_right_side() -> None:
    patch = diff_format.unified_diff(FileChange("x.sh", b"1\nold\n", b"1\nnew"))
    assert patch.endswith("-old\n+new\n\\ No newline at end of file\n")
    patch = diff_format.unified_diff(FileChange("x.sh", b"1\nold", b"1\nnew\n"))
    assert patch.endswith("-old\n\\ No newline at end of file\n+new\n")
    patch = diff_format.unified_diff(FileChange("x.sh", b"old\n2\nend", b"new\n2\nend"))
    assert patch.endswith(" end\n\\ No newline at end of file\n")


def test_diff_headers_and_context() -> None:
    before = b"".join(b"%d\n" % i for i in range(1, 11))
    patch = diff_format.unified_diff(FileChange("s/x.sh", before, before.replace(b"5\n", b"five\n")))
    assert patch.splitlines()[:4] == ["diff --git a/s/x.sh b/s/x.sh", "--- a/s/x.sh", "+++ b/s/x.sh", "@@ -2,7 +2,7 @@"]
    assert "mode" not in patch


def test_diff_of_many_files_and_odd_paths(tmp_path: Path) -> None:
    changes = [
        FileChange("b dir/with space.sh", b"x=1\n", b"x=2\n"),
        FileChange("a/ü.sh", b"x=1\n", b"x=2\n"),
        FileChange('q/"quoted"\\name.sh', b"x=1\n", b"x=2\n"),
    ]
    patch = assert_applies(tmp_path, changes)
    assert patch.index(b"a/a/\xc3\xbc.sh") < patch.index(b"b dir")


def test_diff_is_empty_without_changes() -> None:
    assert render("diff", empty_report()) == ""
    assert diff_format.unified_diff(FileChange("x", b"same\n", b"same\n")) == ""


def join_lines(lines: list[bytes]) -> bytes:
    """The lines as a file: the one without "\\n" may only stand last."""
    return b"".join(line for line in lines if line != b"d") + (b"d" if lines[-1:] == [b"d"] else b"")


_lines = st.lists(st.sampled_from([b"a\n", b"b\n", b"c\r\n", b"\xc3\xa9\n", b"d"]), max_size=12)


@settings(max_examples=40, deadline=None)
@given(before=_lines, after=_lines)
def test_diff_applies_for_arbitrary_line_edits(tmp_path_factory: pytest.TempPathFactory, before: list[bytes],
                                               after: list[bytes]) -> None:
    old, new = join_lines(before), join_lines(after)
    if old != new:
        assert_applies(tmp_path_factory.mktemp("case"), [FileChange("f.sh", old, new)])


# ---------------------------------------------------------------- sarif


def apply_replacements(before: bytes, replacements: list[dict[str, Any]]) -> bytes:
    """Apply SARIF replacements whose regions all refer to the original bytes."""
    out, pos = [], 0
    for rep in sorted(replacements, key=lambda r: r["deletedRegion"]["byteOffset"]):
        start = rep["deletedRegion"]["byteOffset"]
        assert start >= pos
        out += [before[pos:start], rep["insertedContent"]["text"].encode()]
        pos = start + rep["deletedRegion"]["byteLength"]
    return b"".join([*out, before[pos:]])


def test_sarif_structure(report: Report) -> None:
    data = json.loads(render("sarif", report))
    assert data["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and data["version"] == "2.1.0"
    (run,) = data["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "followup-bot"
    rules = {r["id"]: r for r in driver["rules"]}
    assert rules["megatron-use-mbridge"]["defaultConfiguration"]["level"] == "error"
    assert rules["megatron-flash-attn"]["shortDescription"]["text"].startswith("Flash attention")
    assert rules["megatron-flash-attn"]["defaultConfiguration"]["level"] == "warning"
    results = run["results"]
    assert [r["properties"]["status"] for r in results] == ["fixable", "fixable", "manual"]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
    manual_result = results[2]
    assert manual_result["level"] == "warning" and "fixes" not in manual_result
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/run%20%C3%BC.sh"


def test_sarif_replacements_reproduce_after_bytes(report: Report) -> None:
    data = json.loads(render("sarif", report))
    uris = {sarif.uri(c.path): c for c in report.changes}
    replacements: dict[str, list[dict[str, Any]]] = {}
    for result in data["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                replacements.setdefault(change["artifactLocation"]["uri"], []).extend(change["replacements"])
    assert set(replacements) == set(uris)
    for uri, change in uris.items():
        assert apply_replacements(change.before, replacements[uri]) == change.after


def test_sarif_byte_columns_become_code_points(report: Report) -> None:
    before = "x='é' k=False\n".encode()
    finding, change = fixable("c.sh", before, b"False", b"True")
    assert finding.column == 10  # bytes: é takes two
    data = sarif.to_dict(Report("r", None, list(RULES), findings=[finding], changes=[change]))
    assert data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 9
    replacement = data["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["deletedRegion"] == {"byteOffset": 9, "byteLength": 5}


def test_sarif_insertion_and_several_edits() -> None:
    before = b"python -m m \\\n  a=1\n"
    edits = [Edit("i.sh", Span(19, 19), " \\\n  +b=2", "r"), Edit("i.sh", Span(18, 19), "'1'", "r")]
    finding = Finding("r", "i.sh", 2, 3, "a", "1", Status.FIXED, "m", edits=edits)
    data = sarif.to_dict(Report("r", None, [RuleInfo("r", True)], findings=[finding]))
    reps = data["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"]
    assert [r["deletedRegion"]["byteOffset"] for r in reps] == [18, 19]
    assert apply_replacements(before, reps) == b"python -m m \\\n  a='1' \\\n  +b=2\n"


# ---------------------------------------------------------------- github


def test_github_escaping() -> None:
    assert github.escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    finding = manual("dir/x,y:z.sh", 4, "50% done\nsee: a, b")
    line = github.annotation(finding)
    assert line == ("::warning file=dir/x%2Cy%3Az.sh,line=4,col=3,title=megatron-flash-attn"
                    "::manual: 50%25 done%0Asee: a, b")


def test_github_levels_and_summary(report: Report) -> None:
    lines = render("github", report).splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::error", "::warning", "::notice"]
    assert lines[-1].startswith("::notice title=followup-bot::read 16 files: 12 hold what the rules look for")
    assert lines[-1].endswith(". 3 findings, 2 fixable, 1 manual; 2 files would change")
    assert all("\n" not in line for line in lines)


# ---------------------------------------------------------------- text


def test_text_plain(report: Report) -> None:
    out = render("text", report)
    assert not ANSI.search(out)
    assert "a/crlf.sh:2:17: [megatron-use-mbridge] fixable Megatron engines require" in out
    assert "z/last.sh:7:3: [megatron-flash-attn] manual check `a|b` and 100% of *this* next line\n" in out
    assert "  bin/x.sh: not UTF-8" in out and "partly parsed" in out
    # what was read, and why the rest was not parsed: nothing for the rules, unreadable, errors
    assert out.rstrip().endswith("read 16 files: 12 hold what the rules look for and were parsed (14 launches), "
                                 "2 had nothing for them, 2 unreadable (skipped), 0 errors\n"
                                 "3 findings, 2 fixable, 1 manual; 2 files would change")


def test_text_color(report: Report) -> None:
    out = render("text", report, color=True)
    assert ANSI.search(out)
    assert f"{text.GREEN}fixable{text.RESET}" in out and f"{text.YELLOW}manual{text.RESET}" in out
    assert f"{text.RED}[megatron-use-mbridge]{text.RESET}" in out
    assert "[megatron-flash-attn]" in ANSI.sub("", out) and f"{text.RED}[megatron-flash-attn]" not in out
    assert ANSI.sub("", out) == render("text", report)


def test_text_written_and_empty(report: Report) -> None:
    report.written = True
    for finding in report.findings:
        if finding.status is Status.FIXABLE:
            finding.status = Status.FIXED
    out = render("text", report)
    assert "fixed Megatron" in out and out.rstrip().endswith("2 fixed, 1 manual; 2 files changed")
    out = render("text", empty_report())
    assert out.startswith("no findings") and "0 findings" in out and "1 file" not in out


# ---------------------------------------------------------------- markdown


def table_rows(out: str, header: str) -> list[str]:
    lines = out.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def cells(row: str) -> list[str]:
    """Split a GFM table row the way GitHub does: at pipes not escaped by a backslash."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def test_markdown_escapes_pipes_and_backticks(report: Report) -> None:
    out = render("markdown", report)
    rows = table_rows(out, "| Where | Rule | Key | Value | Status | Message |")
    assert len(rows) == 3 and all(len(cells(r)) == 6 for r in rows)
    message = cells(rows[0])[5]  # manual findings come first
    assert message == r"check \`a\|b\` and 100% of \*this\* next line"
    assert markdown.code("a`b|c") == r"``a`b\|c``"
    assert markdown.code("`x`") == "`` `x` ``"
    rule_rows = table_rows(out, "| Rule | Severity | Findings | Title |")
    assert all(len(cells(r)) == 4 for r in rule_rows)
    assert r"Flash attention \| \`override\_transformer\_config\`" in out


def test_markdown_sections(report: Report) -> None:
    out = render("markdown", report)
    assert out.startswith("## Follow-up bot report\n\n`verl-project/verl` at `0123456789ab`: 2 files would change.")
    assert out.index("### Needs a person") < out.index("### Findings")
    assert "| Files scanned | 16 |" in out and "| Manual | 1 |" in out and "| Fixable | 2 |" in out
    assert "<details><summary>Skipped files (2)</summary>" in out and "- `bin/x.sh`: not UTF\\-8" not in out
    assert "- `bin/x.sh`: not UTF-8" in out and "optional-rule" not in out
    empty = render("markdown", empty_report())
    assert "No findings" in empty and "Needs a person" not in empty and "<details>" not in empty


def test_rule_text_in_the_markdown_report_is_inert() -> None:
    """The step summary renders rule titles and messages: nothing in them goes live."""
    from bot.report.markdown import text

    shown = text("## Hi @team, see #12, https://example.invalid/x [link](u) ![image](u)")
    assert "\\@team" in shown and "https\\://" in shown and "\\[link\\](u)" in shown
    assert shown.startswith("\\#\\#") and "\\!\\[image" in shown
