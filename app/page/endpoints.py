"""Each endpoint of the lab declared once, in the tab module that owns it.

A tab module lists its endpoints in `ENDPOINTS`: the API name, the function it runs, its cost (the concurrency
group it runs in, `app.hosting.GROUPS`), the parameters a client sends (public ones, as docs/usage/api.md lists
them), and for a tab's main model event the button that runs it. The tab then wires it to its components with
`Endpoint.on` / `Endpoint.then`, or, for its main model event, `app.page.runs.wire_run`; the layout, the hosting's
groups, the API record (tests/app/test_api.py) and the example tables derive from these declarations.
"""

from __future__ import annotations

import functools
import inspect
import logging
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import gradio as gr

from app import hosting
from app.i18n import Translations, t
from app.inputs import language
from app.page.results import error_outputs

logger = logging.getLogger(__name__)
Cost = Literal["light", "model", "heavy", "measure", "language", "instant"]
"""A concurrency group of `app.hosting.GROUPS`, or "instant": run at once, outside the queue (a digest, a picked
number; nothing that computes)."""

BATCH = 16
"""`Endpoint.batch` of the short model events (masked words, sentence order, sentiment): up to 16 requests in one
call. A class of 32 sending at once fills two calls on the model group's two workers; each request is ~3–10 ms of
work, so a full batch answers within ~0.2 s of its start (benchmarks/serving_vs_peer.py)."""


@dataclass(frozen=True)
class Endpoint:
    """One endpoint: everything the page, the hosting and the API record need to know about it."""

    name: str
    """The API name (`/name`)."""
    view: Callable[..., Any]
    """The function it runs; it checks its own inputs (every event runs with `preprocess=False`)."""
    cost: Cost
    parameters: tuple[str, ...] | None = None
    """Only for a view that takes `*values`: the names of what it takes. Otherwise they are the view's own."""
    optional: tuple[Any, ...] = ()
    """The values of the last `len(optional)` parameters when a client leaves them out (a parameter added to a
    public endpoint later, so that older clients keep working)."""
    public: bool = True
    """Listed in the API page ("public"), or there for the page only ("undocumented")."""
    button: str | None = None
    """A tab's main model event: the string key of its button (`app.page.runs.wire_run` wires it)."""
    batch: int = 0
    """The most requests answered in one call (Gradio's `batch=True` with this `max_batch_size`,
    `app.hosting.in_batches`): a class's concurrent requests share one pass through the queue and the model. 0: one
    at a time. Only for a view whose answer is a NamedTuple that `app.page.results.error_outputs` can fill."""

    @property
    def takes(self) -> tuple[str, ...]:
        """The values a client sends, in order: the view's parameters (a public endpoint's, as docs/usage/api.md
        lists them; tests/app/page/test_endpoints.py holds that table to them)."""
        if self.parameters is not None:
            return self.parameters
        parameters = inspect.signature(self.view).parameters.values()
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
            raise TypeError(f"/{self.name}: its view takes *values; name them in `parameters`")
        return tuple(p.name for p in parameters)

    @functools.cached_property
    def fn(self) -> Callable[..., Any]:
        """The function Gradio calls, built once: the values checked, then the view, on its group's lane when the
        group has one (`app.hosting.served`; `lang` is the page's language switch wherever the view takes it)."""
        languages = tuple(i for i, name in enumerate(self.takes) if name == "lang")
        return hosting.served(self.view, self.cost, languages, self.refusal if self.batch else None)

    def refusal(self, message: str) -> Any:
        """The view's outputs for a refusal's sentence (a batched request refused among others)."""
        return error_outputs(message, typing.get_type_hints(self.view)["return"])

    def options(self, family: str = "") -> dict[str, Any]:
        """The event's name, visibility, group and batch: `family` names an event of its family (`<name>_<family>`)."""
        name = f"{self.name}_{family}" if family else self.name
        visibility = "public" if self.public and not family else "undocumented"
        batch = {"batch": True, "max_batch_size": self.batch} if self.batch else {}
        return {"api_name": name, "api_visibility": visibility, **hosting.queue_options(self.cost), **batch}

    def on(self, triggers: Sequence[Any] | Any, inputs: list[Any], outputs: list[Any], **options: Any) -> Any:
        """Wire the endpoint to `triggers` (one event listener or several, e.g. `[button.click, text.submit]`)."""
        family = options.pop("family", "")
        return gr.on(triggers, self.fn, inputs=inputs, outputs=outputs, **self.options(family), **options)

    def then(self, event: Any, inputs: list[Any], outputs: list[Any], family: str = "", **options: Any) -> Any:
        """Run the endpoint after `event`, as `<name>_<family>` (as `/name` itself without a family)."""
        return event.then(self.fn, inputs=inputs, outputs=outputs, **self.options(family), **options)


def endpoint_named(endpoints: Sequence[Endpoint], name: str) -> Endpoint:
    """The endpoint called `name` (KeyError when none is)."""
    for endpoint in endpoints:
        if endpoint.name == name:
            return endpoint
    raise KeyError(f"no endpoint named {name!r}")


def example_refusal(count: int, lang: str = "en") -> str:
    return t("examples.err.index", lang, last=count - 1)


@dataclass(frozen=True)
class ExampleTable:
    """A table of examples on the page (`example_table`), wired to its tab's run later (`app.page.runs.wire_run`)."""

    dataset: Any
    inputs: list[Any]
    samples: Callable[[str], list[list[Any]]]

    def pick(self, index: Any, page_lang: Any) -> Any:
        """A click on row `index` in the page's language: the values of that row, for the table's inputs. Anything
        but a row's number is refused with one sentence."""
        code = language(page_lang)
        rows = self.samples(code)
        if type(index) is not int or not 0 <= index < len(rows):
            logger.info("refused an example click: %.80r", index)
            raise gr.Error(example_refusal(len(rows), code), print_exception=False)
        row = list(rows[index])
        return row[0] if len(self.inputs) == 1 else tuple(row)


def example_table(
    tr: Translations,
    inputs: list[Any],
    label: str,
    samples: Callable[[str], list[list[Any]]],
    headers: tuple[str, ...] = (),
) -> ExampleTable:
    """A table of examples for `inputs`, its rows `samples(lang)`, label and headers following the language switch
    (`Translations.table`). A click fills the inputs with the row *in the page's language*: Gradio's `gr.Examples`
    filled them from the rows it was built with (the English ones), whatever the page showed."""
    return ExampleTable(tr.table(inputs, label=label, samples=samples, headers=headers), inputs, samples)
