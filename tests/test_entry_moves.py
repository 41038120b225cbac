"""Entry points an upstream change moved (bot/upstream/entry_moves.py), read from real git histories.

Each test commits a tree, changes it as an upstream would (a move with a shim left behind, a package moved
into another, a module renamed that no launch runs, a copy), and reads the change back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import UserError
from bot.upstream.entry_moves import EntryMove, entry_moves, is_entry_point
from tests.conftest import git, make_repo

LICENCE = "".join(f"# Licence line {n} of a header every file of the project carries.\n" for n in range(14))
HYDRA_MAIN = (LICENCE + "import hydra\n\nfrom {package}.worker import Worker\n\n\n"
              '@hydra.main(config_path="config", config_name="trainer", version_base=None)\n'
              "def main(config):\n    worker = Worker(config)\n    worker.fit()\n    worker.save()\n")
SCRIPT_MAIN = (LICENCE + "import sys\n\n\ndef demo(argv):\n    for arg in argv:\n        print(arg)\n"
               "    return len(argv)\n\n\nif __name__ == \"__main__\":\n    sys.exit(demo(sys.argv[1:]))\n")
RUN = "#!/usr/bin/env bash\nset -euo pipefail\n\npython3 -m {module} \\\n" + "".join(
    f"    trainer.option_{n}=value_{n} \\\n" for n in range(8)) + "    trainer.last=1\n"
LIBRARY = LICENCE + "class Worker:\n    def __init__(self, config):\n        self.config = config\n"


def _commit(repo: Path, changes: dict[str, str | None], message: str = "change") -> tuple[str, str]:
    """Write (or with None remove) files, commit; the (before, after) shas."""
    before = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in changes.items():
        target = repo / rel
        if text is None:
            git(repo, "rm", "-q", rel)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return before, git(repo, "rev-parse", "HEAD").strip()


def _move(repo: Path, pairs: dict[str, str]) -> dict[str, str | None]:
    """The changes that move each file of `pairs` unchanged (git then detects the renames)."""
    changes: dict[str, str | None] = {}
    for old, new in pairs.items():
        changes[new] = (repo / old).read_text()
        changes[old] = None
    return changes


def test_a_move_that_leaves_a_warning_shim_names_it_and_the_changes_own_launch_edits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {
        "lab/__init__.py": "", "lab/worker.py": LIBRARY,
        "lab/old/__init__.py": "", "lab/old/train.py": HYDRA_MAIN.format(package="lab"),
        "lab/new/__init__.py": "",
        "run.sh": "python3 -m lab.old.train trainer.steps=2\n",
        "docs/start.md": "Run `python3 lab/old/train.py` or\n\n    python3 -m lab.old.train\n",
    })
    shim = ('import warnings\n\nfrom lab.new.train import main\n\nwarnings.warn("lab.old.train moved to '
            'lab.new.train", DeprecationWarning, stacklevel=2)\n\nif __name__ == "__main__":\n    main()\n')
    before, after = _commit(repo, {
        "lab/new/train.py": HYDRA_MAIN.format(package="lab"), "lab/old/train.py": LICENCE + shim,
        "run.sh": "python3 -m lab.new.train trainer.steps=2\n",
        "docs/start.md": "Run `python3 lab/new/train.py` or\n\n    python3 -m lab.new.train\n",
    })
    assert entry_moves(repo, before, after) == [EntryMove(
        "lab.old", "lab.new", (("lab/old/train.py", "lab/new/train.py"),),
        ("the change's own launch edits (3)", "a shim at lab/old/train.py that imports lab.new.train and warns"))]


def test_a_package_moved_into_another_is_one_move_of_that_package_not_of_its_parents(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {
        "recipe/__init__.py": "",
        "recipe/fast/__init__.py": "", "recipe/fast/worker.py": LIBRARY,
        "recipe/fast/main.py": HYDRA_MAIN.format(package="recipe.fast"),
        "recipe/fast/tools/__init__.py": "", "recipe/fast/tools/demo.py": SCRIPT_MAIN,
        "recipe/fast/run.sh": RUN.format(module="recipe.fast.main"),
        "recipe/slow/__init__.py": "", "recipe/slow/main.py": SCRIPT_MAIN.replace("demo", "slow"),
        "verl/__init__.py": "", "verl/experimental/__init__.py": "",
    })
    pairs = {f"recipe/fast/{rest}": f"verl/experimental/fast/{rest}"
             for rest in ("__init__.py", "worker.py", "main.py", "tools/__init__.py", "tools/demo.py")}
    changes = _move(repo, pairs)
    changes["recipe/slow/main.py"] = None  # a sibling gone elsewhere: `recipe -> verl.experimental` would be wrong
    changes["recipe/fast/run.sh"] = None  # moved, and edited: git pairs the two
    changes["verl/experimental/fast/run.sh"] = RUN.format(module="verl.experimental.fast.main")
    before, after = _commit(repo, changes)
    assert entry_moves(repo, before, after) == [EntryMove(
        "recipe.fast", "verl.experimental.fast",
        (("recipe/fast/main.py", "verl/experimental/fast/main.py"),
         ("recipe/fast/tools/demo.py", "verl/experimental/fast/tools/demo.py")),
        ("the change's own launch edits (1)",))]


def test_a_folder_flattened_gives_its_prefixes_and_separate_folders_stay_separate_moves(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {
        "recipe/dapo/src/main_dapo.py": HYDRA_MAIN.format(package="recipe.dapo.src"),
        "recipe/dapo/src/worker.py": LIBRARY,
        "recipe/dapo/run.sh": "python3 -m recipe.dapo.src.main_dapo\n",
        "recipe/b/main.py": SCRIPT_MAIN, "recipe/a/main.py": SCRIPT_MAIN.replace("demo", "other"),
    })
    changes = _move(repo, {"recipe/dapo/src/main_dapo.py": "recipe/dapo/main_dapo.py",
                           "recipe/dapo/src/worker.py": "recipe/dapo/worker.py",
                           "recipe/b/main.py": "tools/b/main.py", "recipe/a/main.py": "tools/a/main.py"})
    changes["recipe/dapo/run.sh"] = "python3 -m recipe.dapo.main_dapo\n"
    before, after = _commit(repo, changes)
    moves = entry_moves(repo, before, after)
    assert [(m.old, m.new, m.agreeing) for m in moves] == [
        ("recipe.a", "tools.a", ()), ("recipe.b", "tools.b", ()),
        ("recipe.dapo.src", "recipe.dapo", ("the change's own launch edits (1)",))]


def test_a_folder_that_did_not_move_whole_or_a_prefix_that_would_be_empty_keeps_the_modules_path(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {
        "lab/train.py": SCRIPT_MAIN, "lab/helper.py": LIBRARY, "serve.py": SCRIPT_MAIN.replace("demo", "serve"),
    })
    before, after = _commit(repo, _move(repo, {"lab/train.py": "tools/train.py", "serve.py": "apps/serve.py"}))
    moves = entry_moves(repo, before, after)
    assert [(m.old, m.new, m.files) for m in moves] == [
        ("lab.train", "tools.train", (("lab/train.py", "tools/train.py"),)),
        ("serve", "apps.serve", (("serve.py", "apps/serve.py"),))]


def test_a_renamed_module_that_is_no_entry_point_and_a_file_that_does_not_parse_are_no_moves(
        tmp_path: Path) -> None:
    broken = SCRIPT_MAIN + "def broken(:\n"
    repo = make_repo(tmp_path / "up", {"lab/worker.py": LIBRARY, "lab/broken.py": broken})
    before, after = _commit(repo, _move(repo, {"lab/worker.py": "core/worker.py", "lab/broken.py": "core/broken.py"}))
    assert entry_moves(repo, before, after) == []


def test_a_copy_that_keeps_the_old_file_unchanged_is_no_move(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {"lab/train.py": SCRIPT_MAIN})
    before, after = _commit(repo, {"tools/train.py": SCRIPT_MAIN})
    assert entry_moves(repo, before, after) == []


def test_an_old_file_that_imports_the_new_one_but_keeps_its_own_code_is_no_shim(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {"lab/train.py": SCRIPT_MAIN})
    kept = SCRIPT_MAIN.replace("import sys\n", "import sys\n\nfrom tools.train import demo as _also  # noqa\n")
    before, after = _commit(repo, {"tools/train.py": SCRIPT_MAIN, "lab/train.py": kept})
    assert entry_moves(repo, before, after) == []


def test_a_relative_import_of_the_new_module_makes_a_shim(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {"lab/__init__.py": "", "lab/sub/__init__.py": "", "lab/sub/run.py": SCRIPT_MAIN})
    shim = "from ..run import demo  # noqa: F401\n"
    before, after = _commit(repo, {"lab/run.py": SCRIPT_MAIN, "lab/sub/run.py": LICENCE + shim})
    assert entry_moves(repo, before, after) == [EntryMove(
        "lab.sub", "lab", (("lab/sub/run.py", "lab/run.py"),), ("a shim at lab/sub/run.py that imports lab.run",))]


def test_entry_points_are_a_main_block_or_hydras_main_under_any_name_it_is_imported_by() -> None:
    assert is_entry_point(SCRIPT_MAIN)
    assert is_entry_point(HYDRA_MAIN.format(package="lab"))
    assert is_entry_point('from hydra import main as entry\n\n\n@entry(config_path=None)\ndef run(c):\n    pass\n')
    assert not is_entry_point(LIBRARY)
    assert not is_entry_point('if __name__ == "lab":\n    pass\n')
    assert not is_entry_point("def main(:\n")


def test_a_change_git_cannot_read_is_the_users_error_naming_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {"lab/train.py": SCRIPT_MAIN})
    with pytest.raises(UserError, match="cannot read the change 0123456789ab"):
        entry_moves(repo, "0123456789abcdef", "HEAD")


def test_a_shim_is_the_old_place_of_one_new_file_the_one_most_like_its_old_code(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "up", {"lab/train.py": SCRIPT_MAIN})
    variant = SCRIPT_MAIN.replace("print(arg)", "print(arg.upper())")
    shim = "from tools.train import demo  # noqa: F401\nfrom tools.train_loud import demo as loud  # noqa: F401\n"
    before, after = _commit(repo, {"tools/train.py": SCRIPT_MAIN, "tools/train_loud.py": variant,
                                   "lab/train.py": shim})
    assert [m.files for m in entry_moves(repo, before, after)] == [(("lab/train.py", "tools/train.py"),)]
