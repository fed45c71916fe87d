"""Old import paths of modules that moved when albert/'s folders became layers (issue 33), kept for one release.

`import albert.model` (or `from albert.heads import ...`) still works: a meta-path finder answers each old name with
the module that now holds the code, the same module object (so patching it patches the real one), and warns with a
`MovedModuleWarning` (a DeprecationWarning) that names the new path. A module split in two (`albert.tokenizer`,
`albert.training.pretraining`) is answered with a module that reads each name from its parts in turn.

The four commands keep their invocation, and it is not deprecated: `python -m albert.pretrain` (as `finetune`,
`tokenizer`, `task_text`) runs `albert.commands.pretrain`. runpy asks the finder for the module's code, which is the
command's own; only importing the old name warns.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

MOVED: dict[str, tuple[str, ...]] = {
    "albert.config": ("albert.core.config",),
    "albert.params": ("albert.core.params",),
    "albert.compute": ("albert.core.compute",),
    "albert.hf": ("albert.core.hf",),
    "albert.checkpoint": ("albert.core.checkpoint",),
    "albert.model": ("albert.core.model",),
    "albert.heads": ("albert.core.heads",),
    "albert.quantize": ("albert.core.quantize",),
    "albert.tokenizer": ("albert.data.tokenizer", "albert.commands.tokenizer"),
    "albert.data.pretraining": ("albert.data.pretraining_examples",),
    "albert.training.evaluate": ("albert.training.finetune_evaluation",),
    "albert.training.sentence_order": ("albert.training.order_scoring",),
    "albert.training.pretraining": ("albert.training.batch_stream", "albert.training.pretraining_evaluation"),
    "albert.pretrain": ("albert.commands.pretrain",),
    "albert.finetune": ("albert.commands.finetune",),
    "albert.task_text": ("albert.commands.task_text",),
}
"""Old module path → the module(s) that now hold its code, in the order names are looked up."""

COMMANDS: dict[str, str] = {
    "albert.pretrain": "albert.commands.pretrain",
    "albert.finetune": "albert.commands.finetune",
    "albert.tokenizer": "albert.commands.tokenizer",
    "albert.task_text": "albert.commands.task_text",
}
"""`python -m OLD` runs this module (the commands' documented invocations, not deprecated)."""


class MovedModuleWarning(DeprecationWarning):
    """An old import path of a moved module was used; the message names the new one."""


class _SplitModule(types.ModuleType):
    """The old name of a module split in two: each attribute is read from the parts in turn."""

    def __init__(self, name: str, parts: Sequence[types.ModuleType]):
        super().__init__(name, f"Moved: {', '.join(part.__name__ for part in parts)}.")
        self._parts = tuple(parts)

    def __getattr__(self, attribute: str) -> Any:
        for part in self._parts:
            if hasattr(part, attribute):
                return getattr(part, attribute)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r}")

    def __dir__(self) -> list[str]:
        return sorted({name for part in self._parts for name in dir(part)})


class _MovedLoader(importlib.abc.Loader):
    def __init__(self, old: str):
        self.old = old

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        parts = [importlib.import_module(new) for new in MOVED[self.old]]
        if len(parts) == 1:
            self._spec = parts[0].__spec__
            return parts[0]
        self._spec = None
        return _SplitModule(self.old, parts)

    def exec_module(self, module: types.ModuleType) -> None:
        if self._spec is not None:  # the import system set the old spec on the real module: give its own back
            module.__spec__ = self._spec
        new = " and ".join(MOVED[self.old])
        # stacklevel 2 skips this frame; the warnings module skips importlib's own frames to reach the importer
        warnings.warn(f"{self.old} moved to {new}; import it from there.", MovedModuleWarning, stacklevel=2)

    def get_code(self, fullname: str) -> types.CodeType | None:
        """What `python -m OLD` runs: the command's code (runpy asks for code, it does not import)."""
        if fullname not in COMMANDS:
            raise ImportError(f"{fullname} is no command; the commands are {', '.join(sorted(COMMANDS))}.")
        spec = importlib.util.find_spec(COMMANDS[fullname])
        if spec is None or not isinstance(spec.loader, importlib.abc.InspectLoader):
            raise ImportError(f"cannot run {fullname}: {COMMANDS[fullname]} has no code")
        return spec.loader.get_code(COMMANDS[fullname])


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old names in `MOVED` (and only those)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _MovedLoader(fullname))
        if fullname in COMMANDS:  # runpy sets __file__ from the origin: the command's real file
            command = importlib.util.find_spec(COMMANDS[fullname])
            spec.origin = command.origin if command is not None else None
        return spec


def install() -> None:
    """Put the finder on `sys.meta_path` once (importing `albert` calls this)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
