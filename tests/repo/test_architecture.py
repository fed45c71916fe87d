"""The library's layers, bottom first, and the rule that keeps them so: a module imports only modules of the
layers below it, or those listed before it in its own layer. So there is no import cycle, the model never
imports the data pipeline or training, and nothing in `albert/` imports the app.

Imports are read from the source with `ast`, wherever they stand (module level or inside a function, as
the lazy imports that keep `import albert` free of torch); only those under `if TYPE_CHECKING:`, which
exist for annotations and never run, are left out. A new module must be placed in `LAYERS` to pass.

Each layer above the foundation is one package (`albert/core`, `albert/data`, `albert/training`, `albert/commands`);
the root keeps the foundation and the public interface, at most six modules, and the four commands' short names
(`albert/pretrain.py`, ...: each only runs its command's `main`, tests/repo/test_module_paths.py). Outside the
library: the release scripts use library code only (never `benchmarks/` or `experiments/`), and the benchmarks
measure without the experiments.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.repo.import_cycles import find_cycle

ROOT = Path(__file__).resolve().parents[2]
COMMAND_NAMES = ("albert.pretrain", "albert.finetune", "albert.tokenizer", "albert.task_text")
"""`python -m albert.pretrain` and the other three: root modules that run `albert.commands.NAME`."""
LAYERS: dict[str, tuple[str, ...]] = {
    "foundation": ("albert.errors", "albert.io", "albert.cli", "albert.han"),
    "model core": (
        "albert.core",
        "albert.core.hf",
        "albert.core.config",
        "albert.core.params",
        "albert.core.checkpoint",
        "albert.core.model",
        "albert.core.heads",
        "albert.core.multitask",
        "albert.core.student",
        "albert.core.compute",
        "albert.core.quantize",
        "albert.core.adapters",
        "albert.core.transitions",
    ),
    "data": (
        "albert.data",
        "albert.data.chinese",
        "albert.data.sentences",
        "albert.data.masking",
        "albert.data.corpus",
        "albert.data.piece_counts",
        "albert.data.piece_contexts",
        "albert.data.tokenizer",
        "albert.data.pretraining_examples",
        "albert.data.sentence_order",
        "albert.data.tasks",
        "albert.data.labels",
        "albert.data.tagging",
    ),
    "training": (
        "albert.training",
        "albert.training.distributed",
        "albert.training.optim",
        "albert.training.state",
        "albert.training.shared_noise",
        "albert.training.loop",
        "albert.training.layerwise",
        "albert.training.finetune_evaluation",
        "albert.training.order_scoring",
        "albert.training.batch_stream",
        "albert.training.fresh_start",
        "albert.training.pretraining_evaluation",
    ),
    "commands": (
        "albert.commands",
        "albert.commands.pretrain",
        "albert.commands.finetune_setup",
        "albert.commands.practices",
        "albert.commands.multitask",
        "albert.commands.distill",
        "albert.commands.finetune",
        "albert.commands.tokenizer",
        "albert.commands.task_text",
        "albert",
        *COMMAND_NAMES,
    ),
}
PACKAGE_OF_LAYER = {"model core": "albert.core", "data": "albert.data", "training": "albert.training"}
PACKAGE_OF_LAYER["commands"] = "albert.commands"
ROOT_MODULE_LIMIT = 6
ORDER = [module for modules in LAYERS.values() for module in modules]
LAYER_OF = {module: layer for layer, modules in LAYERS.items() for module in modules}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(path: Path) -> set[str]:
    """Every module of ours (and any top-level package) that `path` imports at run time."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # `from albert.data import tasks` imports the module albert.data.tasks
            found.update(
                f"{node.module}.{alias.name}" for alias in node.names if f"{node.module}.{alias.name}" in LAYER_OF
            )
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


LIBRARY = sorted((ROOT / "albert").rglob("*.py"))


def test_every_library_module_has_a_layer() -> None:
    assert sorted(module_name(p) for p in LIBRARY) == sorted(ORDER)


@pytest.mark.parametrize("path", LIBRARY, ids=module_name)
def test_imports_point_down_the_layers(path: Path) -> None:
    name = module_name(path)
    ours = {m for m in imported_modules(path) if m == "albert" or m.startswith("albert.")} - {name}
    upward = sorted(m for m in ours if m not in LAYER_OF or ORDER.index(m) > ORDER.index(name))
    assert not upward, (
        f"{name} ({LAYER_OF[name]}) imports {upward}, which stand above it in LAYERS; move the code "
        "that needs them up, or what it needs down"
    )


@pytest.mark.parametrize("path", LIBRARY, ids=module_name)
def test_the_library_never_imports_the_app(path: Path) -> None:
    outside = {m.split(".")[0] for m in imported_modules(path)} & {
        "app",
        "gradio",
        "tests",
        "scripts",
        "benchmarks",
        "experiments",
    }
    assert not outside, f"{module_name(path)} imports {sorted(outside)}"


def test_the_rule_catches_an_upward_import(tmp_path: Path) -> None:
    """The parser sees imports inside functions, and skips only TYPE_CHECKING blocks."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from albert.core.heads import X\n"
        "def f():\n    from albert.training.loop import fit\n    import albert.data.corpus\n"
    )
    assert imported_modules(sample) == {"typing", "albert.training.loop", "albert.data.corpus"}


def test_the_root_holds_the_foundation_and_the_interface_only() -> None:
    commands = {f"{name.removeprefix('albert.')}.py" for name in COMMAND_NAMES}
    root = sorted(p.name for p in (ROOT / "albert").glob("*.py") if p.name not in commands)
    assert len(root) <= ROOT_MODULE_LIMIT, f"albert/ holds {root}; a module of a layer goes in its package"


@pytest.mark.parametrize("layer", sorted(PACKAGE_OF_LAYER))
def test_each_layer_is_one_package(layer: str) -> None:
    package = PACKAGE_OF_LAYER[layer]
    exempt = {"albert", package, *COMMAND_NAMES}
    outside = [m for m in LAYERS[layer] if m not in exempt and not m.startswith(package + ".")]
    assert not outside, f"{outside} belong in {package}"


def _graph(paths: list[Path]) -> dict[str, set[str]]:
    names = {module_name(p) for p in paths}
    return {module_name(p): {m for m in imported_modules(p) if m in names} - {module_name(p)} for p in paths}


def test_no_import_cycle_in_the_library_benchmarks_experiments_or_scripts() -> None:
    paths = [p for folder in ("albert", "benchmarks", "experiments", "scripts") for p in (ROOT / folder).rglob("*.py")]
    graph = _graph(paths)
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # the search finds one
    assert not find_cycle(graph)


@pytest.mark.parametrize("folder", ["scripts", "benchmarks"])
def test_scripts_use_the_library_only_and_benchmarks_no_experiment(folder: str) -> None:
    """Release scripts depend on library code (not on measurements or experiments, which change freely); the speed
    benchmarks need no experiment."""
    banned = {"scripts": {"benchmarks", "experiments"}, "benchmarks": {"experiments"}}[folder]
    users = {
        str(p.relative_to(ROOT)): sorted(found)
        for p in sorted((ROOT / folder).rglob("*.py"))
        if (found := {m.split(".")[0] for m in imported_modules(p)} & banned)
    }
    assert not users


CITED = re.compile(r"(?<![\w./-])(benchmarks|experiments|scripts)([./])(\w+)")


def test_every_benchmark_experiment_and_script_cited_exists() -> None:
    """`python -m experiments.X`, `benchmarks/X.py` and the like in the docs, scripts, CI and model cards name a file
    that is there (modules moved in issue 33; a stale citation fails here)."""
    layout = ROOT / "docs" / "code-layout.md"  # its "What moved" table names the old paths on purpose
    texts = [ROOT / ".ci" / "run", *(ROOT / "assets").rglob("README.md")]
    texts += [p for p in (ROOT / "docs").rglob("*.md") if p != layout]
    texts += [p for p in (ROOT / "scripts").iterdir() if p.suffix in {".py", ".sh"}]
    missing = set()
    for path in texts:
        for folder, separator, name in CITED.findall(path.read_text(encoding="utf-8")):
            if separator == ".":  # a module: python -m folder.name
                found = (ROOT / folder / f"{name}.py").is_file()
            else:  # a file or folder: folder/name(.py, .sh)
                found = any((ROOT / folder / f"{name}{suffix}").exists() for suffix in ("", ".py", ".sh"))
            if not found:
                missing.add(f"{path.relative_to(ROOT)}: {folder}{separator}{name}")
    assert not sorted(missing)
