"""Module paths: the four commands keep their short names (`python -m albert.pretrain` runs `albert.commands.pretrain`
with the flags stored in cli_flags.json), importing `albert` installs no import hook, a path that moved when albert/'s
folders became layers (issue 33) is simply not found, every `albert` path that our code, scripts and docs name
exists (a module, or a name a module defines), and no module of ours imports another's private name."""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.repo.test_architecture import COMMAND_NAMES

ROOT = Path(__file__).resolve().parents[2]
STORED_FLAGS = json.loads((Path(__file__).parent / "cli_flags.json").read_text(encoding="utf-8"))
OLD_PATHS = (
    "albert.moved",
    "albert.config",
    "albert.params",
    "albert.compute",
    "albert.hf",
    "albert.checkpoint",
    "albert.model",
    "albert.heads",
    "albert.quantize",
    "albert.data.pretraining",
    "albert.training.evaluate",
    "albert.training.sentence_order",
    "albert.training.pretraining",
)
"""Gone: the paths issue 33 moved (docs/code-layout.md lists where each went) and the import hook that answered them."""
CODE = ("albert", "app", "benchmarks", "experiments", "scripts", "tests")
TEXT_SOURCES = ("albert", "app", "benchmarks", "experiments", "scripts")
"""Folders whose Python files' text (docstrings and comments included) must name existing paths; app/ is checked
for its imports only."""
NOT_MODULES = ("albert.embeddings", "albert.attention_blocks", "albert.ffn_blocks", "albert.pooler", "albert.encoder")
"""Weight names of a saved model (ours: `albert.embeddings.word_embeddings.weight`; transformers':
`albert.encoder.albert_layer_groups...`): they look like module paths and are not."""
REFERENCE = re.compile(r"(?<![\w./-])albert(?:\.[A-Za-z_]\w*)+")
FROM_IMPORT = re.compile(r"\bfrom (albert(?:\.\w+)*) import (\w+)")
"""`from albert.X import name` in a shell script or a Markdown example: the name is checked too."""


@functools.cache
def _defined(path: Path) -> frozenset[str]:
    """The top-level names a module (or a package's __init__) defines, imports or lists in __all__."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                names.update(ast.literal_eval(node.value))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(names)


def missing_part(reference: str) -> str | None:
    """None when `reference` (`albert.core.heads.AlbertForPreTraining`) names a module, a package's submodule or a
    name a module defines; otherwise the first path that does not exist (`albert.heads`). Attributes of attributes
    (a class's methods) are not followed."""
    parts = reference.split(".")
    path = ROOT / "albert"
    for depth, part in enumerate(parts[1:], start=2):
        if path.is_dir() and (path / f"{part}.py").is_file():
            path = path / f"{part}.py"
        elif path.is_dir() and (path / part / "__init__.py").is_file():
            path = path / part
        else:
            module = path / "__init__.py" if path.is_dir() else path
            return None if part in _defined(module) else ".".join(parts[:depth])
        if path.suffix == ".py" and depth < len(parts):
            return None if parts[depth] in _defined(path) else ".".join(parts[: depth + 1])
    return None


def _tracked(*patterns: str) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / line for line in listed.stdout.splitlines() if (ROOT / line).is_file()]


def test_importing_albert_installs_no_import_hook() -> None:
    import albert  # noqa: F401

    finders = [type(finder).__module__ for finder in sys.meta_path]
    hooks = [getattr(hook, "__module__", "") for hook in sys.path_hooks]
    assert not [module for module in finders + hooks if module.split(".")[0] == "albert"]


@pytest.mark.parametrize("old", OLD_PATHS)
def test_an_old_path_is_not_found(old: str) -> None:
    assert old not in sys.modules
    with pytest.raises(ModuleNotFoundError, match=re.escape(old)):
        importlib.import_module(old)
    assert missing_part(old) == old


@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_a_short_name_only_runs_its_command(name: str) -> None:
    """albert/pretrain.py (and the other three): a docstring, `from albert.commands.pretrain import main`, and `main()`
    when run; nothing else, so the command's code lives in one place."""
    command = f"albert.commands.{name.removeprefix('albert.')}"
    body = ast.parse((ROOT / "albert" / f"{name.removeprefix('albert.')}.py").read_text(encoding="utf-8")).body
    assert len(body) == 3 and isinstance(body[0], ast.Expr)
    assert ast.unparse(body[1]) == f"from {command} import main"
    assert ast.unparse(body[2]) == "if __name__ == '__main__':\n    main()"
    assert importlib.import_module(name).main is importlib.import_module(command).main


def test_missing_part_names_the_first_path_that_is_not_there() -> None:
    assert missing_part("albert.core.heads.AlbertForPreTraining.from_pretrained") is None
    assert missing_part("albert.AlbertConfig") is None and missing_part("albert.from_transformers") is None
    assert missing_part("albert.core") is None and missing_part("albert.finetune") is None
    assert missing_part("albert.hf.to_transformers") == "albert.hf"
    assert missing_part("albert.core.quantize.no_such_function") == "albert.core.quantize.no_such_function"
    assert missing_part("albert.training.sentence_order.score_text_pairs") == "albert.training.sentence_order"


def test_every_albert_import_in_our_code_exists() -> None:
    """Imports read with `ast`, inside functions too (a lazy import that no test runs would fail only in use)."""
    files = [ROOT / "app.py", *(p for folder in CODE for p in sorted((ROOT / folder).rglob("*.py")))]
    missing: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
            else:
                continue
            for name in names:
                if name.split(".")[0] == "albert" and (gone := missing_part(name)):
                    missing.add(f"{path.relative_to(ROOT)}: {gone}")
    assert not sorted(missing)


def test_every_albert_path_named_in_docs_scripts_and_library_text_exists() -> None:
    """The Markdown pages, the shell scripts and CI, and the text (docstrings, comments) of the library, scripts,
    benchmarks and experiments: `albert.hf.to_transformers` after the move would send a reader to nothing.
    docs/code-layout.md's "What moved" table names the old paths on purpose."""
    texts = _tracked("*.md", "*.sh", ".ci/run") + [p for folder in TEXT_SOURCES for p in _tracked(f"{folder}/*.py")]
    missing: set[str] = set()
    for path in texts:
        text = path.read_text(encoding="utf-8")
        if path == ROOT / "docs" / "code-layout.md":
            text = re.sub(r"(?ms)^## What moved.*?(?=^## |\Z)", "", text)
        references = set(REFERENCE.findall(text)) | {f"{module}.{name}" for module, name in FROM_IMPORT.findall(text)}
        for reference in references - {r for r in references if r.startswith(NOT_MODULES) or ".NAME" in r}:
            if gone := missing_part(reference):
                missing.add(f"{path.relative_to(ROOT)}: {reference} ({gone} does not exist)")
    assert not sorted(missing)


def test_no_private_name_is_imported_from_another_module() -> None:
    """`from albert.core.heads import _classification_loss` made a private helper part of another module's contract;
    a name another module needs is public (in the layer it belongs to)."""
    files = [
        ROOT / "app.py",
        *(p for folder in CODE if folder != "tests" for p in sorted((ROOT / folder).rglob("*.py"))),
    ]
    private: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            private.update(
                f"{path.relative_to(ROOT)}: {node.module}.{name}"
                for name in names
                if name.startswith("_") and not name.startswith("__")
            )
    assert not sorted(private)


@pytest.mark.slow
def test_the_commands_answer_python_m_with_the_flags_they_had() -> None:
    """One fresh interpreter runs each short name as `python -m` does (runpy), with --help: the flags match the stored
    list and the usage names the command as before."""
    script = (
        "import contextlib, io, json, runpy, sys, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "out = {}\n"
        f"for name in {sorted(COMMAND_NAMES)!r}:\n"
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
def test_running_an_old_path_says_so_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "albert.model"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert result.stderr.strip().endswith("No module named albert.model")
    assert "Traceback" not in result.stderr


def _flags(help_text: str) -> list[str]:
    """The option strings of an argparse --help (the lines of its options section)."""
    found: set[str] = set()
    for line in help_text.splitlines():
        match = re.match(r"^  (-\S.*?)(?:  |$)", line)
        if match:
            found.update(re.findall(r"--[\w.-]+", match.group(1)))
    return sorted(found)
