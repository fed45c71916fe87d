"""Put ALBERT Lab on a Hugging Face Space in one command (docs/usage/space.md, "Deploy").

    python -m scripts.deploy_space OWNER/NAME             # create the Space (Gradio SDK) if needed, upload the app
    python -m scripts.deploy_space OWNER/NAME --dry-run   # list every file and the total size; nothing leaves

A `git push` of this repository is refused by the Hub: it holds safetensors weights, SentencePiece models and PNGs in
plain git, and the Hub takes binary files only through LFS/Xet. `huggingface_hub`'s upload API stores them properly
with no git-lfs on the machine. Only the files the app runs on go up (`SPACE_FILES`): the app, the library, the
shipped assets, `app.py`, `requirements.txt` and `README.md` (its front matter tells the Space to run `app.py` with
Gradio). A file removed here is removed from the Space at the next upload (`STALE_ON_SPACE`). The token is
huggingface_hub's own (`HF_TOKEN`, or `hf auth login`); it is never read or printed here.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[1]
SPACE_FILES = ("app.py", "requirements.txt", "README.md", "app", "albert", "assets")
"""What the Space runs on, files and folders (every file under a folder, less `SKIPPED`), relative to the root."""
SKIPPED = re.compile(r"(^|/)(__pycache__/|\.[^/]*$)|\.py[co]$")
"""Bytecode caches and hidden files: never uploaded."""
STALE_ON_SPACE = ("app/*", "albert/*", "assets/*")
"""Files on the Space under these patterns that are not in this upload are deleted (a removed module or model)."""
_SPACE_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")


class DeployError(ValueError):
    """A deployment that cannot go ahead; the message is one sentence."""


@dataclass(frozen=True)
class DeployConfig:
    """Where the Space goes and how."""

    space_id: str
    """OWNER/NAME of the Space, e.g. your-name/albert-lab."""
    dry_run: bool = False
    """List every file and the total size, offline; create and upload nothing."""
    private: bool = False
    """Create the Space private (an existing Space keeps its visibility)."""
    message: str = "Deploy ALBERT Lab"
    """The Space's commit message."""

    def __post_init__(self) -> None:
        if not _SPACE_ID.match(self.space_id) or ".." in self.space_id or self.space_id.endswith((".", "-")):
            raise DeployError(
                f"{self.space_id!r} is not a Space id; give OWNER/NAME (letters, digits, '-', '_' and '.'), "
                "e.g. your-name/albert-lab."
            )


@dataclass(frozen=True)
class SpaceFile:
    path: str
    """Relative to the repository root, with '/' separators, as on the Space."""
    size: int


def space_files(root: Path = REPO) -> list[SpaceFile]:
    """Every file the Space needs (`SPACE_FILES`), sorted by path; a missing one is a `DeployError`."""
    found: list[SpaceFile] = []
    for name in SPACE_FILES:
        path = root / name
        if path.is_file():
            found.append(SpaceFile(name, path.stat().st_size))
        elif path.is_dir():
            for item in sorted(path.rglob("*")):
                relative = item.relative_to(root).as_posix()
                if item.is_file() and not SKIPPED.search(relative):
                    found.append(SpaceFile(relative, item.stat().st_size))
        else:
            raise DeployError(f"{name} is missing from {root.name}; the Space needs {', '.join(SPACE_FILES)}.")
    return sorted(found, key=lambda f: f.path)


def front_matter(readme: Path) -> dict[str, str]:
    """The README's YAML front matter as flat `key: value` pairs (the Space reads sdk and app_file there)."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        return {}
    end = lines.index("---", 1)
    pairs = (line.split(":", 1) for line in lines[1:end] if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def check_front_matter(root: Path = REPO) -> None:
    """Refuse a README whose front matter would not start this app on a Gradio Space."""
    matter = front_matter(root / "README.md")
    if matter.get("sdk") != "gradio" or matter.get("app_file") != "app.py":
        raise DeployError("README.md's front matter must say sdk: gradio and app_file: app.py for the Space to start.")


def listing(files: Sequence[SpaceFile]) -> str:
    """One line per file (size, path), then the count and the total."""
    total = sum(f.size for f in files)
    lines = [f"{f.size:>12,}  {f.path}" for f in files]
    lines.append(f"{len(files):,} files, {total:,} bytes ({total / 2**20:.1f} MiB)")
    return "\n".join(lines)


def deploy(config: DeployConfig, api: Any = None, root: Path = REPO) -> str:
    """Create the Space if needed and upload exactly `space_files(root)`; returns the Space's address (with
    `dry_run`, the listing instead, and nothing is created or sent). `api` is an `huggingface_hub.HfApi`."""
    check_front_matter(root)
    files = space_files(root)
    if config.dry_run:
        return listing(files)
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    url = api.create_repo(config.space_id, repo_type="space", space_sdk="gradio", exist_ok=True, private=config.private)
    logger.info("uploading %d files (%.1f MiB) to %s", len(files), sum(f.size for f in files) / 2**20, url)
    api.upload_folder(
        repo_id=config.space_id,
        repo_type="space",
        folder_path=str(root),
        allow_patterns=[f.path for f in files],
        delete_patterns=list(STALE_ON_SPACE),
        commit_message=config.message,
    )
    return str(url)


def parse(argv: Sequence[str] | None = None) -> DeployConfig:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("space_id", help="OWNER/NAME of the Space, e.g. your-name/albert-lab")
    parser.add_argument("--dry-run", action="store_true", help="list every file and the total size, offline")
    parser.add_argument("--private", action="store_true", help="create the Space private")
    parser.add_argument("--message", default=DeployConfig.message, help="the Space's commit message")
    args = parser.parse_args(argv)
    try:
        return DeployConfig(args.space_id, args.dry_run, args.private, args.message)
    except DeployError as error:
        parser.error(str(error))
        raise  # unreachable: parser.error exits


def main(argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config = parse(argv)
    try:
        result = deploy(config)
    except DeployError as error:
        raise SystemExit(f"deploy_space: {error}") from None
    except Exception as error:  # the Hub's refusals (no token, a name taken): its sentence, never a traceback
        raise SystemExit(f"deploy_space: the Hub refused ({type(error).__name__}: {str(error)[:300]})") from None
    logger.info("%s", result if config.dry_run else f"deployed: {result}")


if __name__ == "__main__":
    main()
