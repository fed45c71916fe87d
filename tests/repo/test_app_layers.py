"""The app's layers, bottom first, and the rule that keeps them so (as tests/repo/test_architecture.py does for the
library): a module imports only modules of its own layer or the layers below it, wherever the import stands (module
level or inside a function; only `if TYPE_CHECKING:` blocks, which never run, are left out); nothing below the tabs
imports a tab, no tab imports another tab, and no two modules import each other, directly or around a circle.

A module's layer is that of the longest prefix below that names it: a folder is a layer, with two exceptions
written down here, the paper's figures (`app.paper`, data that the models' recorded runs read) below its views.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.repo.import_cycles import find_cycle

ROOT = Path(__file__).resolve().parents[2]
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        ("app.settings", "app.i18n", "app.inputs", "app.numbers", "app.gradio_compat", "app.child", "app.paper"),
    ),
    ("models", ("app.models",)),
    ("hosting", ("app.hosting",)),
    ("inference", ("app.inference",)),
    ("page", ("app.page", "app.paper.views")),
    ("tabs", ("app.tabs",)),
    ("layout", ("app.layout", "app")),
)
"""Lowest first: strings and input checks → where models are and how they load → the server's groups and lanes →
running a model → the page's mechanics and shared views → one package per tab → the page put together."""
RANK = {prefix: rank for rank, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes}
APP = sorted((ROOT / "app").rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path) for path in APP}


def layer_of(module: str) -> int:
    """The rank of the longest prefix of `module` in LAYERS."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in RANK:
            return RANK[prefix]
    raise KeyError(module)


def tab_of(module: str) -> str | None:
    """`app.tabs.masked.views` → 'masked'; None outside a tab's package (`app.tabs` itself included)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["app", "tabs"] else None


def imported_app_modules(path: Path) -> set[str]:
    """The app modules `path` imports when it runs (`from app.page import framing` imports app.page.framing)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names} & MODULES
            found.update(submodules)
            if len(submodules) < len(node.names):  # a name defined in the package itself
                found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    itself = module_name(path) if path.is_relative_to(ROOT) else None
    return {module for module in found if module in MODULES} - {itself}


GRAPH = {module_name(path): imported_app_modules(path) for path in APP}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_point_down_the_layers(module: str) -> None:
    upward = sorted(m for m in GRAPH[module] if layer_of(m) > layer_of(module))
    assert not upward, f"{module} ({LAYERS[layer_of(module)][0]}) imports {upward} from a layer above it"


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if tab_of(m)))
def test_a_tab_imports_no_other_tab(module: str) -> None:
    others = sorted(m for m in GRAPH[module] if tab_of(m) not in (None, tab_of(module)))
    assert not others, f"{module} imports {others}: move what both need below the tabs"


def test_the_app_has_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert not cycle, f"an import cycle: {' → '.join(cycle)}"


def test_the_app_imports_no_command_of_the_library() -> None:
    commands = sorted(
        module_name(path)
        for path in APP
        if "albert.commands" in path.read_text(encoding="utf-8") and "import" in path.read_text(encoding="utf-8")
    )
    assert not commands, f"{commands} import albert.commands: the model code they need belongs in albert.core"


def test_the_rule_sees_imports_inside_functions_and_skips_type_checking(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.tabs import TabContext\n"
        "def f():\n    from app.page import framing\n    import app.models.hub\n"
    )
    assert imported_app_modules(sample) == {"app.page.framing", "app.models.hub"}
    assert layer_of("app.paper") < layer_of("app.models.runs") < layer_of("app.paper.views")
    assert tab_of("app.tabs.masked.views") == "masked" and tab_of("app.tabs") is None


@pytest.mark.parametrize("name", ["fill_mask", "mask_word"])
def test_an_endpoint_is_named_in_a_few_modules_only(name: str) -> None:
    """Its tab declares and wires it, its views answer it, the inference layer computes it: nothing else needs its
    name (the layout, the hosting and the API record derive from the declaration)."""
    naming = sorted(module_name(path) for path in APP if name in path.read_text(encoding="utf-8"))
    assert len(naming) <= 4, naming


def test_no_ui_string_names_an_issue() -> None:
    import json
    import re

    for language in ("en", "zh"):
        strings = json.loads((ROOT / "app" / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
        numbered = sorted(key for key, text in strings.items() if re.search(r"issue\s*#?\d", text, re.I))
        assert not numbered, f"{language}: {numbered} (a reader of the page does not know our tracker)"
