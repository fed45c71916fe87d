"""Command lines derived from config dataclasses: one flag per field, its help the field's
docstring, its type and choices from the annotation. No second list of flags to keep in sync."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import sys
import textwrap
import types
import typing
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (read from its source)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body  # type: ignore[attr-defined]
        for node, following in zip(body, body[1:], strict=False):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                    and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)):
                docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _parser_for(cls: type, description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description or (cls.__doc__ or "").strip(),
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        annotation, optional = _unwrap_optional(hints[f.name])
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)  # type: ignore[misc]
        kwargs: dict[str, Any] = {"help": docs.get(f.name, " "), "default": default, "dest": f.name}
        origin = typing.get_origin(annotation)
        if annotation is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        elif origin is typing.Literal:
            choices = typing.get_args(annotation)
            kwargs.update(choices=choices, type=type(choices[0]))
        elif origin in (list, tuple, Sequence):
            (item,) = typing.get_args(annotation)[:1]
            kwargs.update(nargs="+", type=item)
        elif annotation in (int, float, str):
            kwargs["type"] = annotation
        else:
            kwargs["type"] = str
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING and not optional:  # type: ignore[misc]
            kwargs["required"] = True
        parser.add_argument(flag, **kwargs)
    return parser


def parse_config(cls: type[T], argv: Sequence[str] | None = None, description: str | None = None) -> T:
    """Parse `argv` into `cls`; a validation error in `cls` exits with its one sentence."""
    parser = _parser_for(cls, description)
    namespace = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    values = vars(namespace)
    for f in dataclasses.fields(cls):
        if isinstance(values.get(f.name), list) and typing.get_origin(
                _unwrap_optional(typing.get_type_hints(cls)[f.name])[0]) is tuple:
            values[f.name] = tuple(values[f.name])
    try:
        return cls(**values)
    except ValueError as error:  # configs validate in __post_init__ with one clear sentence
        parser.error(str(error))
        raise  # unreachable: parser.error exits
