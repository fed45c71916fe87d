"""README.md is the front door and docs/ holds the rest: every relative link resolves, docs/README.md indexes every
page, each recipe in scripts/ names an existing protocol page, and README's two commands are scripts/lab.sh's, the test
one exactly what `.ci/run` runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def relative_links(path: Path) -> list[str]:
    """The targets of the Markdown links and images of `path` that point inside the repository (code blocks and
    inline code skipped, anchors dropped)."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = [a or b for a, b in LINK.findall(text)]
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M)


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_an_existing_file(path: Path) -> None:
    links = relative_links(path)
    missing = [link for link in links if not (path.parent / link).exists()]
    assert missing == [], f"{path.relative_to(ROOT)} links to missing files: {missing}"


def test_the_link_check_sees_links_and_would_fail_on_a_broken_one(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        'See [a](a.md#top), ![b](img/b.png), <img src="c.png" alt="c">, [web](https://x.org), [here](#h),\n'
        "`[not](a link)` and\n```\n[in](code.md)\n```\n",
        encoding="utf-8",
    )
    assert relative_links(page) == ["a.md", "img/b.png", "c.png"]
    assert len(relative_links(README)) >= 20 and "docs/README.md" in relative_links(README)


def test_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    assert lines[0] == "---" and "app_file: app.py" in lines[: lines.index("---", 1)]  # the Spaces front matter first
    assert len(PAGES) >= 4


def test_docs_index_lists_every_page() -> None:
    index = DOCS / "README.md"
    listed = {(index.parent / link).resolve() for link in relative_links(index)}
    assert [p.relative_to(DOCS) for p in PAGES if p != index and p.resolve() not in listed] == []


def quick_start_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Quick start")
    section = text[start : text.index("\n## ", start + 1)]
    return [block.strip() for block in bash_blocks(section)]


def ci_commands() -> list[str]:
    """`.ci/run`'s commands, comments and shell options dropped."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line.split("  #")[0].strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return [c for c in commands if not c.startswith(("set ", "cd ", "export "))]


SETUP_SCRIPT = ROOT / "scripts" / "lab.sh"
"""README's two commands: set-up that runs verbatim on a fresh Debian/Ubuntu machine (test_setup_script.py)."""
TOOLS = ("lab.sh",)
"""Shell scripts in scripts/ that are tools, not recipes (they point to a guide, not to a protocol)."""


def test_readme_commands_are_the_setup_script_and_ci_runs_the_test_one() -> None:
    serve, tests = quick_start_commands()  # two commands: serve the app; install the test tools and run the tests
    assert (serve, tests) == ("bash scripts/lab.sh serve", "bash scripts/lab.sh test")
    assert ci_commands()[-1] == tests  # .ci/run ends with exactly the README's test command
    script = SETUP_SCRIPT.read_text(encoding="utf-8")
    usage = next(line for line in script.splitlines() if line.startswith("# Usage:"))
    assert serve in usage and tests in usage  # the script's usage line names both, as README writes them
    for needed in ("-r requirements.txt", "-r requirements-dev.txt", "apt-get install", "chromium", "ruff check ."):
        assert needed in script, needed
    assert "ruff format --check ." in script and "-m pytest" in script
    guide = re.findall(r"docs/[\w/.-]+\.md", usage + script.split("set -euo", 1)[0])
    assert guide and all((ROOT / page).is_file() for page in guide)


@pytest.mark.parametrize(
    "script", [p for p in sorted((ROOT / "scripts").glob("*.sh")) if p.name not in TOOLS], ids=lambda p: p.name
)
def test_each_recipe_is_a_short_header_then_code_naming_its_protocol(script: Path) -> None:
    lines = script.read_text(encoding="utf-8").splitlines()
    header = []
    for line in lines[1:]:
        if not line.startswith("#"):
            break
        header.append(line)
    assert 2 <= len(header) <= 4, f"{script.name}: the header is {len(header)} lines; its protocol belongs in docs/"
    named = re.findall(r"docs/[\w/.-]+\.md", "\n".join(header))
    assert named and all((ROOT / page).is_file() for page in named), named
    assert any(page.startswith("docs/protocols/") for page in named)
