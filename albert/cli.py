"""Command lines derived from config dataclasses: one flag per field, its help the field's
docstring, its type and choices from the annotation. No second list of flags to keep in sync."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import logging
import shlex
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


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
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _argument(
    parser: argparse._ActionsContainer,
    flag: str,
    dest: str,
    annotation: Any,
    default: Any,
    help_text: str,
    required: bool,
) -> None:
    annotation, _ = _unwrap_optional(annotation)
    kwargs: dict[str, Any] = {"help": help_text or " ", "default": default, "dest": dest}
    origin = typing.get_origin(annotation)
    if annotation is bool:
        kwargs["action"] = argparse.BooleanOptionalAction
    elif origin is typing.Literal:
        choices = typing.get_args(annotation)
        kwargs.update(choices=choices, type=type(choices[0]))
    elif origin in (list, tuple, Sequence):
        kwargs.update(nargs="+", type=typing.get_args(annotation)[0])
    elif annotation in (int, float, str):
        kwargs["type"] = annotation
    else:
        kwargs["type"] = str
    if required:
        kwargs["required"] = True
    parser.add_argument(flag, **kwargs)


def _nested_fields(cls: type, f: dataclasses.Field) -> type | None:
    """The dataclass whose fields become `--name.sub` flags for field `f`, if any."""
    target = f.metadata.get("overrides") or typing.get_type_hints(cls)[f.name]
    return target if isinstance(target, type) and dataclasses.is_dataclass(target) else None


def _parser_for(cls: type, description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=description or (cls.__doc__ or "").strip(),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        allow_abbrev=False,
    )
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        nested = _nested_fields(cls, f)
        if nested is not None:
            # A nested config: one flag per field of it, `--data.max-seq-length`; only the
            # flags given on the command line change the default (or the named preset).
            group = parser.add_argument_group(f.name, docs.get(f.name))
            nested_hints, nested_docs = typing.get_type_hints(nested), field_docs(nested)
            for sub in dataclasses.fields(nested):
                if sub.init and not sub.name.startswith("_") and sub.name != "extra":
                    prefix = f.metadata.get("flag_prefix", f.name)
                    _argument(
                        group,
                        f"--{prefix}.{sub.name.replace('_', '-')}",
                        f"{f.name}.{sub.name}",
                        nested_hints[sub.name],
                        argparse.SUPPRESS,
                        nested_docs.get(sub.name, ""),
                        False,
                    )
            continue
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING  # type: ignore[misc]
        default = (
            f.default
            if f.default is not dataclasses.MISSING
            else (f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        )  # type: ignore[misc]
        _, optional = _unwrap_optional(hints[f.name])
        _argument(
            parser,
            "--" + f.name.replace("_", "-"),
            f.name,
            hints[f.name],
            default,
            docs.get(f.name, ""),
            required=not has_default and not optional,
        )
    return parser


def parse_config(cls: type[T], argv: Sequence[str] | None = None, description: str | None = None) -> T:
    """Parse `argv` into `cls`; a validation error in `cls` exits with its one sentence."""
    parser = _parser_for(cls, description)
    namespace = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    flat = vars(namespace)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        nested = _nested_fields(cls, f)
        if nested is not None:
            given = {k.split(".", 1)[1]: v for k, v in flat.items() if k.startswith(f.name + ".")}
            given = {k: tuple(v) if isinstance(v, list) else v for k, v in given.items()}
            values[f.name] = given if f.metadata.get("overrides") else _replace_default(f, given, parser)
        elif f.name in flat:
            value = flat[f.name]
            values[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        return cls(**values)
    except ValueError as error:  # configs validate in __post_init__ with one clear sentence
        parser.error(str(error))
        raise  # unreachable: parser.error exits


def run_command(
    name: str,
    cls: type[T],
    action: Callable[[T], R],
    errors: tuple[type[BaseException], ...],
    argv: Sequence[str] | None = None,
    description: str | None = None,
) -> R:
    """A command's main: INFO logging, the config parsed from `argv`, then `action(config)`; an error of
    one of the `errors` types exits with `name: its sentence`, never a traceback."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    config = parse_config(cls, argv, description=description)
    try:
        return action(config)
    except errors as error:
        raise SystemExit(f"{name}: {error}") from None


def _replace_default(f: dataclasses.Field, given: dict[str, Any], parser: argparse.ArgumentParser) -> Any:
    default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default  # type: ignore[misc]
    try:
        return dataclasses.replace(default, **given)
    except ValueError as error:
        parser.error(str(error))


def option(flag: str, value: Any) -> str:
    """One option as `parse_config` reads it back from a shell: `--flag value` (quoted where the shell would split or
    drop it), booleans as `--flag` / `--no-flag`."""
    if isinstance(value, bool):
        return f"--{flag}" if value else f"--no-{flag}"
    return f"--{flag} {shlex.quote(str(value))}"


def command_for(module: str, cls: type, values: dict[str, Any]) -> str:
    """`python -m module ...` for recorded `values` of the flat config dataclass `cls`: only the
    options that differ from the field defaults (the dataclass is not built, so no checks run)."""
    flags = []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if f.name in values and values[f.name] != default:
            flags.append(option(f.name.replace("_", "-"), values[f.name]))
    return " ".join([f"python -m {module}", *flags])
