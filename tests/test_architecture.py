"""The library's layers, bottom first, and the rule that keeps them so: a module imports only modules of the
layers below it, or those listed before it in its own layer. So there is no import cycle, the model never
imports the data pipeline or training, and nothing in `albert/` imports the app.

Imports are read from the source with `ast`, wherever they stand (module level or inside a function, as
the lazy imports that keep `import albert` free of torch); only those under `if TYPE_CHECKING:`, which
exist for annotations and never run, are left out. A new module must be placed in `LAYERS` to pass.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS: dict[str, tuple[str, ...]] = {
    "foundation": ("albert.errors", "albert.io", "albert.cli"),
    "model core": (
        "albert.hf",
        "albert.config",
        "albert.params",
        "albert.checkpoint",
        "albert.model",
        "albert.heads",
        "albert.compute",
        "albert.quantize",
        "albert.adapters",
    ),
    "data": (
        "albert.data",
        "albert.data.chinese",
        "albert.data.sentences",
        "albert.data.masking",
        "albert.data.corpus",
        "albert.data.pretraining",
        "albert.data.sentence_order",
        "albert.data.tasks",
        "albert.data.labels",
        "albert.data.tagging",
        "albert.tokenizer",
    ),
    "training": (
        "albert.training",
        "albert.training.distributed",
        "albert.training.optim",
        "albert.training.state",
        "albert.training.loop",
        "albert.training.evaluate",
        "albert.training.pretraining",
        "albert.training.sentence_order",
        "albert.training.layerwise",
    ),
    "commands": (
        "albert.pretrain",
        "albert.practices",
        "albert.multitask",
        "albert.distill",
        "albert.finetune",
        "albert.task_text",
        "albert",
    ),
}
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
    outside = {m.split(".")[0] for m in imported_modules(path)} & {"app", "gradio", "tests", "scripts", "benchmarks"}
    assert not outside, f"{module_name(path)} imports {sorted(outside)}"


def test_the_rule_catches_an_upward_import(tmp_path: Path) -> None:
    """The parser sees imports inside functions, and skips only TYPE_CHECKING blocks."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from albert.heads import X\n"
        "def f():\n    from albert.training.loop import fit\n    import albert.data.corpus\n"
    )
    assert imported_modules(sample) == {"typing", "albert.training.loop", "albert.data.corpus"}
