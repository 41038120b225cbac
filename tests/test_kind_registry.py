"""A kind is registered once (bot.lang.FRONT_ENDS): its suffixes, its front end, for the shell family the views
its shell is in and what that shell's reading means, and where its comments are. The shell front end and the
comment reader take all of it from the registration: they name no kind."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.engine.scan import scan
from bot.lang import FRONT_ENDS, Registration, comment_views
from bot.lang.front import ShellFamily
from bot.rules.loader import load_rules
from tests.conftest import ROOT, make_repo

LAUNCH = b"python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False\n"


def _whole(data: bytes, consoles: object, trees: object) -> list[object]:
    from bot.lang.embedded.views import ShellView

    return [ShellView(data)]


@pytest.fixture
def shellish(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shell-family kind of our own, registered in one line: the whole file is shell."""
    monkeypatch.setitem(FRONT_ENDS, "shellish", Registration(FRONT_ENDS["makefile"].make, (".shx",),
                                                             shell=ShellFamily(_whole, whole_file=True)))


def test_a_registered_shell_kind_is_read_fixed_and_its_comments_known(tmp_path: Path, shellish: None) -> None:
    root = make_repo(tmp_path / "repo", {"run.shx": LAUNCH.decode(),
                                          "quiet.shx": "# followup-bot: ignore\n" + LAUNCH.decode()})
    report = scan(root, load_rules())
    assert [(f.path, f.rule) for f in report.findings] == [("run.shx", "megatron-use-mbridge")]
    assert [f.path for f in report.silenced] == ["quiet.shx"]
    (view,) = comment_views("shellish", b"echo '# not a comment'  # a comment\n", None)  # type: ignore[arg-type]
    assert view.comment(5) is False and view.comment(24) is True


def test_the_shell_front_end_the_text_readers_and_the_comment_reader_name_no_kind() -> None:
    for module in ("lang/shell/front.py", "lang/comments.py", "lang/embedded/doc_front.py"):
        tree = ast.parse((ROOT / "bot" / module).read_text(encoding="utf-8"))
        named = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and isinstance(node.value, ast.Name) and node.value.id == "kinds"}
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    and node.module in ("bot.lang", "bot.lang.kinds") for alias in node.names}
        assert not named and "kinds" not in imported, module


def test_the_shell_family_named_in_kinds_is_the_registered_one() -> None:
    """bot.lang.kinds.SHELL_FAMILY stays for the modules below the registry (bot.lang.focus); it must say what
    the registrations say."""
    from bot.lang import kinds, shell_family

    assert set(kinds.SHELL_FAMILY) == shell_family()


def test_the_scan_batches_and_memo_ask_the_registry_not_the_kind_names() -> None:
    for module in ("engine/scan.py", "engine/batches.py", "engine/checker.py", "engine/check.py",
                   "engine/wanted.py", "engine/run_configs.py", "engine/launches.py", "cache/reuse.py",
                   *(f"compose/{path.name}" for path in (ROOT / "bot" / "compose").glob("*.py")),
                   *(f"hydra/{path.name}" for path in (ROOT / "bot" / "hydra").glob("*.py"))):
        tree = ast.parse((ROOT / "bot" / module).read_text(encoding="utf-8"))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    and node.module == "bot.lang.kinds" for alias in node.names}
        assert imported <= {"SHELL"}, (module, imported)  # the kind a file of no known suffix is read as
