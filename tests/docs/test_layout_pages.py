"""The layout pages cannot drift: every tracked Python module of albert/, app/, benchmarks/, experiments/ and
scripts/ is named in docs/code-layout.md or docs/app-layout.md, every path those pages name exists, and no page of
the docs (nor README.md, nor the requirements' comments) names a repository path that is not there or a Markdown
file that is not in the repository. (Relative links are checked by tests/docs/test_docs.py.)

The pages name modules in their trees (fenced blocks that start with a top folder, `albert/`): one entry a line, a
name or several separated by ", ", then at least two spaces and what it is for. A tree is drawn with `├── ` /
`└── ` (an entry's depth is its column / 4) or by indentation alone (column / 2); a package's folder entry stands
for its `__init__.py`, which is listed only when it holds code worth finding.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = (ROOT / "docs" / "code-layout.md", ROOT / "docs" / "app-layout.md")
FOLDERS = ("albert", "app", "benchmarks", "experiments", "scripts")
FENCE = re.compile(r"^```\n(.*?)^```", re.S | re.M)
NAME = re.compile(r"[\w.-]+(?:\.\w+|/)")
"""A file (it has an extension) or a folder (it ends with /), as a tree entry names it."""
PATH = re.compile(r"(?<![\w./-])((?:albert|app|benchmarks|experiments|scripts|tests|docs|assets)/[\w./<>*{}-]*)")
PLACEHOLDER = re.compile(r"[<>*{}]|/(?:[A-Z]+)(?:/|$)")
"""`app/tabs/<tab>/tab.py`, `assets/models/NAME`: a pattern, not a path."""
HUB_ID = re.compile(r"^albert/albert-")
"""`albert/albert-base-v2`: a Hugging Face hub id (the `albert` organisation), not a folder of ours."""
MARKDOWN_FILE = re.compile(r"`([\w./-]+\.md)`")


def _tracked(*patterns: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in listed.stdout.splitlines() if (ROOT / line).exists()]


def tree_entries(text: str) -> list[str]:
    """The repository-relative paths the trees of a page name (folders end with /)."""
    paths: list[str] = []
    for block in FENCE.findall(text):
        lines = block.splitlines()
        if not lines or not NAME.fullmatch(re.split(r"\s{2,}", lines[0].strip())[0]) or lines[0][:1] in " │":
            continue  # a command or an example, not a tree
        boxed = "── " in block
        parents: list[str] = []  # the folder at each depth above the current entry
        for line in lines:
            entry = re.match(r"^((?:[│ ]   )*)[├└]── (.*)$", line) if boxed else None
            if entry:
                depth, rest = len(entry.group(1)) // 4 + 1, entry.group(2)
            elif boxed and line[:1] in " │":
                continue  # a description's second line
            else:
                depth, rest = (len(line) - len(line.lstrip(" "))) // 2, line.strip()
            names = re.split(r"\s{2,}", rest.strip(), maxsplit=1)[0].split(", ")
            if not all(NAME.fullmatch(name) for name in names):
                continue  # a description's second line
            if depth > len(parents):
                raise ValueError(f"{line!r} stands deeper than the folder above it")
            del parents[depth:]
            prefix = parents[-1] if parents else ""
            paths += [prefix + name for name in names]
            if names[0].endswith("/"):
                parents.append(prefix + names[0])
    return paths


def named_by_the_pages() -> set[str]:
    return {path for page in PAGES for path in tree_entries(page.read_text(encoding="utf-8"))}


def test_the_tree_reader_follows_both_drawings() -> None:
    boxed = (
        "```\napp/\n├── __init__.py          build_app\n├── hosting/             serving\n"
        "│   ├── lanes.py, door.py  threads; bodies\n│                        (a second line, lanes.py)\n"
        "└── static/              css\n```\n"
    )
    assert tree_entries(boxed) == [
        "app/",
        "app/__init__.py",
        "app/hosting/",
        "app/hosting/lanes.py",
        "app/hosting/door.py",
        "app/static/",
    ]
    indented = "```\nalbert/\n  core/          model\n    heads.py     heads\n                 (more, heads.py)\n"
    indented += "  io.py  io\n```\n"
    assert tree_entries(indented) == ["albert/", "albert/core/", "albert/core/heads.py", "albert/io.py"]
    assert tree_entries("```bash\npython -m albert.pretrain\n```\n") == []


def test_every_tracked_module_is_named_on_a_layout_page() -> None:
    named = named_by_the_pages()
    modules = _tracked(*(f"{folder}/*.py" for folder in FOLDERS))
    missing = [
        module
        for module in modules
        if module not in named and not (module.endswith("/__init__.py") and module.removesuffix("__init__.py") in named)
    ]
    assert not missing, f"name these in docs/code-layout.md or docs/app-layout.md: {missing}"


def test_every_path_the_layout_pages_name_exists() -> None:
    missing = sorted(path for path in named_by_the_pages() if not (ROOT / path).exists())
    assert not missing, f"the layout pages name paths that are not there: {missing}"


def _pages_with_paths() -> list[str]:
    return _tracked("README.md", "requirements.txt", "requirements-dev.txt", "docs/*.md", "docs/**/*.md")


@pytest.mark.parametrize("page", _pages_with_paths())
def test_every_repository_path_a_page_names_exists(page: str) -> None:
    """`app/freshness.py` after it moved to `app/page/`, a deleted test: a reader sent to nothing. A module may be
    named without its suffix (`experiments/sop_learnability`)."""
    missing = set()
    for path in PATH.findall((ROOT / page).read_text(encoding="utf-8")):
        path = path.rstrip(".,;:)")
        if PLACEHOLDER.search(path) or HUB_ID.match(path):
            continue
        if not ((ROOT / path).exists() or (ROOT / f"{path}.py").exists()):
            missing.add(path)
    assert not sorted(missing)


@pytest.mark.parametrize("page", [p for p in _pages_with_paths() if p.endswith(".md")])
def test_no_page_cites_a_markdown_file_outside_the_repository(page: str) -> None:
    """A `design.md` the repository does not hold is a citation no reader can follow."""
    ours = {Path(path).name for path in _tracked("*.md")} | set(_tracked("*.md"))
    cited = set(MARKDOWN_FILE.findall((ROOT / page).read_text(encoding="utf-8")))
    assert not sorted(name for name in cited if name not in ours and Path(name).name not in ours)
