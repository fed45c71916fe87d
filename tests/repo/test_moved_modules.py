"""albert.moved: the old import paths of moved modules still work, with a warning, for one release; the four commands
answer `python -m albert.NAME` with the same flags as before the move (tests/repo/cli_flags.json, taken from their
--help before issue 33); and nothing in the repository uses an old path."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from albert.moved import COMMANDS, MOVED, MovedModuleWarning

ROOT = Path(__file__).resolve().parents[2]
STORED_FLAGS = json.loads((Path(__file__).parent / "cli_flags.json").read_text(encoding="utf-8"))
OUR_CODE = ("albert", "app", "benchmarks", "experiments", "scripts", "tests")


def _import_old(name: str) -> tuple[object, list[warnings.WarningMessage]]:
    sys.modules.pop(name, None)  # a module imported earlier in the session would be answered without the finder
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        __import__(name)  # as an import statement does (importlib.import_module would be the warning's frame)
    module = sys.modules[name]
    return module, [w for w in caught if issubclass(w.category, MovedModuleWarning)]


@pytest.mark.parametrize("old", [name for name, new in MOVED.items() if len(new) == 1])
def test_an_old_path_is_the_moved_module_itself_and_warns(old: str) -> None:
    module, caught = _import_old(old)
    new = importlib.import_module(MOVED[old][0])
    assert module is new and new.__spec__.name == MOVED[old][0]  # the real module keeps its own spec
    assert len(caught) == 1 and f"{old} moved to {MOVED[old][0]}" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning points at the importer, not at importlib


def test_old_from_imports_give_the_same_objects() -> None:
    from albert.core.heads import AlbertForPreTraining
    from albert.data.pretraining_examples import PretrainingDataset
    from albert.data.tokenizer import load_tokenizer
    from albert.training.batch_stream import BatchStream
    from albert.training.pretraining_evaluation import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MovedModuleWarning)
        from albert.data.pretraining import PretrainingDataset as old_dataset
        from albert.heads import AlbertForPreTraining as old_heads
        from albert.tokenizer import TokenizerConfig  # noqa: F401 (both halves answer)
        from albert.tokenizer import load_tokenizer as old_load
        from albert.training.pretraining import BatchStream as old_stream
        from albert.training.pretraining import evaluate as old_evaluate

    assert old_heads is AlbertForPreTraining and old_dataset is PretrainingDataset and old_load is load_tokenizer
    assert old_stream is BatchStream and old_evaluate is evaluate


def test_a_split_module_reads_each_name_from_its_parts_and_refuses_others() -> None:
    module, caught = _import_old("albert.training.pretraining")
    assert len(caught) == 1 and "albert.training.batch_stream and albert.training.pretraining_evaluation" in str(
        caught[0].message
    )
    assert {"BatchStream", "evaluate", "score_model"} <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


@pytest.mark.slow
def test_the_commands_answer_python_m_with_the_flags_they_had() -> None:
    """One fresh interpreter runs each old name as `python -m` does (runpy), with --help: the flags match the stored
    list, the usage names the command's file as before, and running a command is not a deprecated use."""
    script = (
        "import contextlib, io, json, runpy, sys, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "out = {}\n"
        f"for name in {sorted(COMMANDS)!r}:\n"
        "    sys.argv = [name, '--help']\n"
        "    buffer = io.StringIO()\n"
        "    with contextlib.redirect_stdout(buffer), contextlib.suppress(SystemExit):\n"
        "        runpy.run_module(name, run_name='__main__', alter_sys=True)\n"
        "    out[name] = buffer.getvalue()\n"
        "print(json.dumps(out))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert result.returncode == 0, result.stderr
    helps = json.loads(result.stdout)
    for name, help_text in helps.items():
        short = name.removeprefix("albert.")
        assert help_text.startswith(f"usage: {short}.py "), help_text[:80]
        assert _flags(help_text) == STORED_FLAGS[short], short


@pytest.mark.slow
def test_running_an_old_path_that_is_no_command_says_so_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "albert.model"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "albert.model is no command; the commands are albert.finetune" in result.stderr
    assert "Traceback" not in result.stderr


def _flags(help_text: str) -> list[str]:
    """The option strings of an argparse --help (the lines of its options section)."""
    import re

    found: set[str] = set()
    for line in help_text.splitlines():
        match = re.match(r"^  (-\S.*?)(?:  |$)", line)
        if match:
            found.update(re.findall(r"--[\w.-]+", match.group(1)))
    return sorted(found)


def _old_paths_imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found & set(MOVED)


def test_no_code_of_ours_imports_an_old_path() -> None:
    files = [ROOT / "app.py", *(p for folder in OUR_CODE for p in sorted((ROOT / folder).rglob("*.py")))]
    users = {
        str(path.relative_to(ROOT)): sorted(old)
        for path in files
        if path.name != Path(__file__).name and (old := _old_paths_imported(path))
    }
    assert not users, f"import the new paths (albert/moved.py lists them): {users}"


@pytest.mark.slow
def test_importing_the_app_and_every_module_warns_of_no_moved_module() -> None:
    """Lazy imports inside functions escape the static check above; importing everything in a fresh interpreter with
    the warning as an error catches a module-level one, and the finder is asked for no old name."""
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for folder in ("albert", "app", "benchmarks", "experiments")
        for p in (ROOT / folder).rglob("*.py")
    )
    script = (
        "import importlib, sys, warnings\n"
        "from albert.moved import MovedModuleWarning\n"
        "warnings.simplefilter('error', MovedModuleWarning)\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "import app\n"
        f"print(sorted(set(sys.modules) & set({sorted(MOVED)!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"
