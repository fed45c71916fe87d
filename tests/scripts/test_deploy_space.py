"""`python -m scripts.deploy_space OWNER/NAME`: the Space is created with the Gradio SDK and receives exactly the files
the app runs on, through huggingface_hub's upload API (here a fake HfApi: nothing leaves the machine); `--dry-run`
lists them and their total offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import deploy_space
from scripts.deploy_space import DeployConfig, DeployError, deploy, space_files

README = "---\ntitle: ALBERT Lab\nsdk: gradio\nsdk_version: 6.31.0\napp_file: app.py\n---\n\n# ALBERT Lab\n"


class FakeHfApi:
    """Records what a deployment asks of the Hub."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def create_repo(self, *args, **kwargs) -> str:
        self.calls.append(("create_repo", args, kwargs))
        return f"https://huggingface.co/spaces/{args[0]}"

    def upload_folder(self, **kwargs) -> str:
        self.calls.append(("upload_folder", (), kwargs))
        return "commit"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project laid out as this one: what the Space runs on, and what it must never receive."""
    files = {
        "app.py": "print('app')\n",
        "requirements.txt": "gradio\n",
        "README.md": README,
        "app/__init__.py": "",
        "app/static/lab.css": "body{}\n",
        "app/__pycache__/x.cpython-311.pyc": "x",
        "albert/core/model.py": "x = 1\n",
        "albert/.hidden": "secret\n",
        "assets/models/m/model.safetensors": "\0" * 1000,
        "tests/test_x.py": "",
        "docs/usage/space.md": "",
        "scripts/deploy_space.py": "",
        "runs/big.bin": "\0" * 5000,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


EXPECTED = [
    "README.md",
    "albert/core/model.py",
    "app.py",
    "app/__init__.py",
    "app/static/lab.css",
    "assets/models/m/model.safetensors",
    "requirements.txt",
]


def test_the_space_gets_exactly_the_files_the_app_runs_on(project: Path) -> None:
    api = FakeHfApi()
    url = deploy(DeployConfig("someone/albert-lab"), api=api, root=project)
    assert url == "https://huggingface.co/spaces/someone/albert-lab"
    (create, args, kwargs), (upload, _, sent) = api.calls
    assert create == "create_repo" and args == ("someone/albert-lab",)
    assert kwargs == {"repo_type": "space", "space_sdk": "gradio", "exist_ok": True, "private": False}
    assert upload == "upload_folder" and sent["repo_id"] == "someone/albert-lab" and sent["repo_type"] == "space"
    assert sent["folder_path"] == str(project) and sent["allow_patterns"] == EXPECTED
    assert sent["delete_patterns"] == ["app/*", "albert/*", "assets/*"]  # what was removed here goes there too


def test_the_dry_run_lists_every_file_and_the_total_offline(project: Path, monkeypatch) -> None:
    import huggingface_hub

    def no_hub(*args, **kwargs):
        raise AssertionError("a dry run must not touch the Hub")

    monkeypatch.setattr(huggingface_hub, "HfApi", no_hub)
    text = deploy(DeployConfig("someone/albert-lab", dry_run=True), root=project)
    lines = text.splitlines()
    assert [line.split()[-1] for line in lines[:-1]] == EXPECTED
    total = sum((project / name).stat().st_size for name in EXPECTED)
    assert lines[-1] == f"7 files, {total:,} bytes ({total / 2**20:.1f} MiB)"
    assert "   1,000  assets/models/m/model.safetensors" in text


def test_the_repositorys_own_dry_run_holds_the_app_and_its_models_only() -> None:
    files = {f.path: f.size for f in space_files()}
    assert {"app.py", "requirements.txt", "README.md", "app/layout.py", "albert/core/model.py"} <= set(files)
    assert (
        "assets/models/albert-lab-base/model.safetensors" in files
        and "assets/models/albert-lab-zh/spiece.model" in files
    )
    assert not [p for p in files if p.startswith(("tests/", "docs/", "scripts/", "runs/", "benchmarks/", "."))]
    assert not [p for p in files if "__pycache__" in p or p.endswith(".pyc")]
    assert sum(files.values()) < 150 * 2**20  # a free Space's repository takes it easily


@pytest.mark.parametrize("bad", ["albert-lab", "a/b/c", "someone/", "/abs/path", "someone/albert..lab", "x/y z"])
def test_a_bad_space_id_is_refused_in_one_sentence(bad: str) -> None:
    with pytest.raises(DeployError) as refused:
        DeployConfig(bad)
    assert "is not a Space id; give OWNER/NAME" in str(refused.value) and "\n" not in str(refused.value)


def test_a_readme_that_would_not_start_the_app_is_refused(project: Path) -> None:
    (project / "README.md").write_text("# no front matter\n")
    with pytest.raises(DeployError, match="front matter must say sdk: gradio and app_file: app.py"):
        deploy(DeployConfig("someone/albert-lab", dry_run=True), root=project)
    (project / "README.md").write_text(README)
    (project / "requirements.txt").unlink()
    with pytest.raises(DeployError, match="requirements.txt is missing"):
        deploy(DeployConfig("someone/albert-lab", dry_run=True), root=project)


def test_the_command_line(capsys, caplog, monkeypatch) -> None:
    import logging

    caplog.set_level(logging.INFO)
    deploy_space.main(["someone/albert-lab", "--dry-run"])
    assert "app.py" in caplog.text and "files," in caplog.text
    with pytest.raises(SystemExit):
        deploy_space.main(["not-a-space"])
    assert "is not a Space id" in capsys.readouterr().err
    monkeypatch.setattr(deploy_space, "deploy", lambda config: (_ for _ in ()).throw(RuntimeError("401 no token")))
    with pytest.raises(SystemExit, match="the Hub refused \\(RuntimeError: 401 no token\\)"):
        deploy_space.main(["someone/albert-lab"])
