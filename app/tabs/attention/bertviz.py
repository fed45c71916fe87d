"""bertviz's head view and model view as a self-contained `<iframe srcdoc=…>`, working offline.

`gr.HTML` does not run `<script>`, so the view lives in an iframe whose document is escaped
into the `srcdoc` attribute. bertviz would fetch require.js, d3 5.7 and jQuery from a CDN;
here d3 comes from the `mpld3` package (which ships d3 v5.7.0), jQuery from `xstatic-jquery`,
and require.js is replaced by a ten-line stand-in of ours (`static/require_shim.js`). The app
serves those three files itself (`allowed_paths`, copied by `app.page.static_files` so their URLs name no
folder of this machine), so nothing is fetched from outside.

Tokens never become markup: the attention data is JSON with `<`, `>` and `&` escaped as
`\\u003c`… inside the script, bertviz draws tokens with d3's `.text()`, and the iframe is
sandboxed (`allow-scripts` only, so it cannot reach the page around it).
"""

from __future__ import annotations

import html
import importlib.util
import logging
import re
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import orjson

from app.i18n import t
from app.page.static_files import publish, served_path

logger = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
_FONT = "font-family:'Helvetica Neue', Helvetica, Arial, 'Noto Sans SC', sans-serif;"


class VendorFileMissing(RuntimeError):
    """A JavaScript library bertviz needs is not installed; the message says which package to install."""


def _package_dir(name: str) -> Path | None:
    """A package's folder without importing it (mpld3 would import matplotlib)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@lru_cache(maxsize=1)
def vendor_files() -> dict[str, Path]:
    """Local paths of d3 (v5), jQuery and the require stand-in; raises when a package is missing."""
    mpld3 = _package_dir("mpld3")
    d3 = mpld3 / "js" / "d3.v5.min.js" if mpld3 else None
    jquery_pkg = _package_dir("xstatic.pkg.jquery")
    jquery = jquery_pkg / "data" / "jquery.min.js" if jquery_pkg else None
    files = {"d3": d3, "jquery": jquery, "require": STATIC_DIR / "require_shim.js"}
    missing = [name for name, path in files.items() if path is None or not path.is_file()]
    if missing:
        raise VendorFileMissing(
            f"bertviz needs {', '.join(missing)} served locally: install mpld3 (d3 v5) and xstatic-jquery "
            "(pip install -r requirements.txt)."
        )
    return {name: path for name, path in files.items() if path is not None}


def allowed_paths() -> list[str]:
    """The files the Gradio server may serve for the attention views (for `launch(allowed_paths=…)`)."""
    try:
        files = vendor_files()
    except VendorFileMissing as error:
        logger.warning("%s", error)
        return []
    for name in files:
        vendor_url(name)  # copies it into the served folder
    return [served_path(path.name) for path in files.values()]


def vendor_url(name: str) -> str:
    """URL of a vendored file on this server: relative (it also works under a proxy path), and naming no
    folder of this machine (see `app.page.static_files`)."""
    return publish(vendor_files()[name])


def _script_json(data: object) -> str:
    """JSON that is safe inside `<script>`: no `</script>`, no `<!--`, no line separators."""
    text = orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _attention_data(tokens: list[str], maps: np.ndarray, b_start: int | None, lang: str = "en") -> list[dict]:
    """bertviz's `attention` parameter: all tokens, plus the four A/B blocks for a sentence pair."""
    maps = np.round(maps.astype(np.float32), 3)
    shown = [tok.replace("▁", " ") for tok in tokens]  # as bertviz's prettify_tokens does
    data = [
        {
            "name": t("attention.filter.all", lang) if b_start else None,
            "attn": maps,
            "left_text": shown,
            "right_text": shown,
        }
    ]
    if b_start:
        a, b = slice(0, b_start), slice(b_start, len(tokens))
        for key, left, right in (("aa", a, a), ("bb", b, b), ("ab", a, b), ("ba", b, a)):
            data.append(
                {
                    "name": t(f"attention.filter.{key}", lang),
                    "attn": np.ascontiguousarray(maps[:, :, left, right]),
                    "left_text": shown[left],
                    "right_text": shown[right],
                }
            )
    return data


# bertviz 1.4.1 counts layers and heads from 0 and writes its labels in English; the app numbers passes and
# heads from 1 everywhere (the heatmaps, the slider) and speaks the interface's language. Each pair below is
# (bertviz's code, ours); a bertviz that no longer contains one is logged, and the view still draws.
_PATCHES = {
    "head": (
        (
            'layerEl.append($("<option />").val(layer).text(layer));',
            'layerEl.append($("<option />").val(layer).text(layer + 1));',
        ),
    ),
    "model": (
        ("const DIV_WIDTH = 970;", "const DIV_WIDTH = params.div_width;"),
        ("const DETAIL_BOX_HEIGHT = 18;", "const DETAIL_BOX_HEIGHT = params.detail_box_height;"),
        ("config.thumbnailBoxHeight = 7 * (12 / config.totalHeads);", "config.thumbnailBoxHeight = params.box_height;"),
        ('.text("Heads")', ".text(params.labels.heads)"),
        ('.text("Layers")', ".text(params.labels.layers)"),
        (".text(config.heads[i])", ".text(config.heads[i] + 1)"),
        (".text(config.layers[i])", ".text(config.layers[i] + 1)"),
        (
            """.text('Layer ' + config.layers[layerIndex] + ", Head " + config.heads[headIndex])""",
            ".text(params.labels.detail.replace('{layer}', config.layers[layerIndex] + 1)"
            ".replace('{head}', config.heads[headIndex] + 1))",
        ),
        ('console.log("x", x, y)', ""),
        (  # the detail box never leaves the view on the left (it opens over the grid in a narrow view)
            "x = leftPos + THUMBNAIL_PADDING - DETAIL_WIDTH + 8;",
            "x = Math.max(MIN_X, Math.min(leftPos + THUMBNAIL_PADDING - DETAIL_WIDTH + 8, maxX - DETAIL_WIDTH));",
        ),
    ),
}


@lru_cache(maxsize=2)
def _bertviz_js(kind: str) -> str:
    import bertviz

    source = (Path(bertviz.__file__).resolve().parent / f"{kind}_view.js").read_text(encoding="utf-8")
    # Its require.config names CDN URLs; the stand-in ignores them, and the page is clearer without them.
    source = re.sub(
        r"require\.config\(\{.*?\}\);", "/* d3 and jQuery are loaded locally */", source, count=1, flags=re.S
    )
    for old, new in _PATCHES[kind]:
        if old not in source:
            logger.warning("bertviz's %s view has changed: %r not found; its numbering or labels may differ", kind, old)
        source = source.replace(old, new)
    return source


@dataclass(frozen=True)
class ViewSize:
    """A bertviz view's natural size in CSS pixels (the document's, margins included)."""

    width: int
    height: int


_BODY_MARGIN_TOP, _BODY_MARGIN_SIDE, _CONTROLS = 28, 8, 30
_MODEL_AXIS, _MODEL_DETAIL_WIDTH, _THUMBNAIL_WIDTH = 38, 300, 90
_DETAIL_FRAME = 2 * 15 + 25
"""The model view's detail box beyond its rows: bertviz's padding above and below, and its heading."""


def model_view_layout(layers: int, heads: int, tokens: int) -> dict[str, float]:
    """Sizes for bertviz's model view: its thumbnails made about 90 px square whatever the number of heads (it
    scales them by 12 / heads: 42 px per token and ~3,400 px for a 2-head model), and the view as wide as the
    grid, at least the 300 px detail box (which opens over the grid when a thumbnail is clicked, as in bertviz's
    own 12-head view), at most bertviz's 970 px. Narrow on purpose (issue 54, item 7): a 2-head model's view is
    326 px wide and draws at 0.92 in a 390 px phone's 300 px frame (its 13 px labels at 12 px), where grid and detail
    side by side (~530 px) drew at 0.57; a 4-head one draws at 0.72 (9.4 px)."""
    div_width = min(max(_MODEL_AXIS + heads * _THUMBNAIL_WIDTH, _MODEL_DETAIL_WIDTH + 10), 970)
    thumbnail_width = (div_width - _MODEL_AXIS) / heads
    box_height = min(7.0, max(2.0, min(thumbnail_width, _THUMBNAIL_WIDTH) / max(tokens, 1)))
    grid_height = layers * (tokens * box_height + 10) + _MODEL_AXIS
    # the detail box's rows (bertviz: 18 px) close up to 14 px before the view grows past the grid for them
    detail_box_height = min(18.0, max(14.0, (grid_height - _DETAIL_FRAME) / max(tokens, 1)))
    return {
        "div_width": div_width,
        "box_height": box_height,
        "detail_box_height": detail_box_height,
        "height": max(grid_height, tokens * detail_box_height + _DETAIL_FRAME),
    }


def view_size(kind: str, layers: int, heads: int, tokens: int) -> ViewSize:
    """The document size of a view, from bertviz's own constants (head view: 22.5 px a token, 2 × 110 px of
    tokens around 115 px of lines; model view: `model_view_layout`)."""
    if kind == "head":
        return ViewSize(
            2 * 110 + 115 + 30 + 2 * _BODY_MARGIN_SIDE,
            int(_BODY_MARGIN_TOP + _CONTROLS + tokens * 22.5 + 30 + _BODY_MARGIN_SIDE + 8),
        )
    layout = model_view_layout(layers, heads, tokens)
    return ViewSize(
        int(layout["div_width"]) + 2 * _BODY_MARGIN_SIDE,
        int(_BODY_MARGIN_TOP + _CONTROLS + layout["height"] + _BODY_MARGIN_SIDE + 8),
    )


def _fit_rule(width: int) -> str:
    """The document's zoom for a view `width` px wide: its frame's width over that, never above 1."""
    return f"min(1, calc(100vw / {int(width)}px))"


def _fit_style(width: int) -> str:
    """Scales the document down (never up) to the frame's width, so nothing is cut off or scrolls sideways: in CSS,
    so that layout does it whenever the frame's width changes. A script that set the zoom on `resize` left a phone's
    view at the width its frame had when it was drawn (406 px in a 300 px frame): Chromium holds back an off-screen
    sandboxed frame's `resize` events (a fresh-clone CI run measured it)."""
    return f"html{{zoom:{_fit_rule(width)}}}"


def _fit_script(width: int) -> str:
    """The same scaling for a browser whose CSS cannot divide a length by a length: set on `resize`."""
    return (
        f";(function () {{ if (window.CSS && CSS.supports('zoom', '{_fit_rule(width)}')) return; var W = {int(width)}; "
        "function fit() { document.documentElement.style.zoom = Math.min(1, window.innerWidth / W); } fit(); "
        "window.addEventListener('resize', fit); })();"
    )


def bertviz_document(
    kind: str, tokens: list[str], maps: np.ndarray, b_start: int | None = None, lang: str = "en"
) -> str:
    """A complete HTML document drawing bertviz's `head` or `model` view of `maps` (L, A, T, T), passes and heads
    numbered from 1, labels in `lang`, scaled to the width of its frame."""
    if kind not in ("head", "model"):
        raise ValueError(f"kind must be 'head' or 'model', got {kind!r}.")
    vis_id = f"bertviz-{uuid.uuid4().hex}"
    attention = _attention_data(tokens, maps, b_start, lang)
    layers, heads = int(maps.shape[0]), int(maps.shape[1])
    options = "".join(f'<option value="{i}">{html.escape(str(d["name"]))}</option>' for i, d in enumerate(attention))
    select = f'{html.escape(t("attention.filter", lang))} <select id="filter">{options}</select>' if b_start else ""
    if kind == "head":
        params = {
            "attention": attention,
            "default_filter": "0",
            "root_div_id": vis_id,
            "layer": None,
            "heads": None,
            "include_layers": list(range(layers)),
        }
        controls = f'{html.escape(t("attention.layer", lang))} <select id="layer"></select> {select}'
    else:
        sizes = model_view_layout(layers, heads, len(tokens))
        params = {
            "attention": attention,
            "default_filter": "0",
            "display_mode": "light",
            "root_div_id": vis_id,
            "include_layers": list(range(layers)),
            "include_heads": list(range(heads)),
            "total_heads": heads,
            "div_width": sizes["div_width"],
            "box_height": sizes["box_height"],
            "detail_box_height": sizes["detail_box_height"],
            "labels": {
                "heads": t("attention.bv.heads", lang),
                "layers": t("attention.bv.layers", lang),
                "detail": t("attention.bv.detail", lang),
            },
        }
        controls = select
    size = view_size(kind, layers, heads, len(tokens))
    script = _bertviz_js(kind).replace("PYTHON_PARAMS", _script_json(params)) + _fit_script(size.width)
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f'<script src="{vendor_url("d3")}"></script>'
        f'<script src="{vendor_url("jquery")}"></script>'
        f'<script src="{vendor_url("require")}"></script>'
        f"<style>body{{margin:{_BODY_MARGIN_TOP}px {_BODY_MARGIN_SIDE}px {_BODY_MARGIN_SIDE}px;background:#fff;"
        f"{_FONT}}} select{{margin:0 6px 6px 2px}}{_fit_style(size.width)}</style>"
        "</head><body>"
        f'<div id="{vis_id}" style="{_FONT}"><div style="user-select:none;min-height:{_CONTROLS - 6}px">'
        f'{controls}</div><div id="vis"></div></div>'
        f"<script>{script}</script></body></html>"
    )


def iframe(document: str, size: ViewSize | int, title: str) -> str:
    """`document` inside a sandboxed iframe; everything escaped into the `srcdoc` attribute.

    With a `ViewSize` the frame keeps the view's proportions (CSS aspect-ratio) up to its natural height, and the
    document scales itself to the frame's width (`_fit_style`): the whole view shows, without scroll bars, from
    a phone to a wide screen. A bare height gives a fixed-height frame."""
    if isinstance(size, ViewSize):
        style = f"width:100%;aspect-ratio:{size.width} / {size.height};max-height:{size.height}px;height:auto"
    else:
        style = f"width:100%;height:{int(size)}px"
    return (
        f'<iframe class="lab-iframe" sandbox="allow-scripts" title="{html.escape(title, quote=True)}" '
        f'style="{style}" srcdoc="{html.escape(document, quote=True)}"></iframe>'
    )
