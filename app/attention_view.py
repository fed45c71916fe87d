"""bertviz's head view and model view as a self-contained `<iframe srcdoc=…>`, working offline.

`gr.HTML` does not run `<script>`, so the view lives in an iframe whose document is escaped
into the `srcdoc` attribute. bertviz would fetch require.js, d3 5.7 and jQuery from a CDN;
here d3 comes from the `mpld3` package (which ships d3 v5.7.0), jQuery from `xstatic-jquery`,
and require.js is replaced by a ten-line stand-in of ours (`static/require_shim.js`). The app
serves those three files itself (`allowed_paths`, copied by `app.static_files` so their URLs name no
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
from functools import lru_cache
from pathlib import Path

import numpy as np
import orjson

from app.i18n import t
from app.static_files import publish, served_path

logger = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).resolve().parent / "static"
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
            "(pip install -r requirements.txt).")
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
    folder of this machine (see `app.static_files`)."""
    return publish(vendor_files()[name])


def _script_json(data: object) -> str:
    """JSON that is safe inside `<script>`: no `</script>`, no `<!--`, no line separators."""
    text = orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _attention_data(tokens: list[str], maps: np.ndarray, b_start: int | None) -> list[dict]:
    """bertviz's `attention` parameter: all tokens, plus the four A/B blocks for a sentence pair."""
    maps = np.round(maps.astype(np.float32), 3)
    shown = [tok.replace("▁", " ") for tok in tokens]  # as bertviz's prettify_tokens does
    data = [{"name": "All" if b_start else None, "attn": maps, "left_text": shown, "right_text": shown}]
    if b_start:
        a, b = slice(0, b_start), slice(b_start, len(tokens))
        for name, left, right in (("Sentence A -> Sentence A", a, a), ("Sentence B -> Sentence B", b, b),
                                  ("Sentence A -> Sentence B", a, b), ("Sentence B -> Sentence A", b, a)):
            data.append({"name": name, "attn": np.ascontiguousarray(maps[:, :, left, right]),
                         "left_text": shown[left], "right_text": shown[right]})
    return data


def _bertviz_js(kind: str) -> str:
    import bertviz

    source = (Path(bertviz.__file__).resolve().parent / f"{kind}_view.js").read_text(encoding="utf-8")
    # Its require.config names CDN URLs; the stand-in ignores them, and the page is clearer without them.
    return re.sub(r"require\.config\(\{.*?\}\);", "/* d3 and jQuery are loaded locally */", source, count=1,
                  flags=re.S)


def bertviz_document(kind: str, tokens: list[str], maps: np.ndarray, b_start: int | None = None,
                     lang: str = "en") -> str:
    """A complete HTML document drawing bertviz's `head` or `model` view of `maps` (L, A, T, T)."""
    if kind not in ("head", "model"):
        raise ValueError(f"kind must be 'head' or 'model', got {kind!r}.")
    vis_id = f"bertviz-{uuid.uuid4().hex}"
    attention = _attention_data(tokens, maps, b_start)
    layers, heads = int(maps.shape[0]), int(maps.shape[1])
    options = "".join(f'<option value="{i}">{html.escape(str(d["name"]))}</option>' for i, d in enumerate(attention))
    select = f'{html.escape(t("attention.filter", lang))} <select id="filter">{options}</select>' if b_start else ""
    if kind == "head":
        params = {"attention": attention, "default_filter": "0", "root_div_id": vis_id, "layer": None,
                  "heads": None, "include_layers": list(range(layers))}
        controls = f'{html.escape(t("attention.layer", lang))} <select id="layer"></select> {select}'
    else:
        params = {"attention": attention, "default_filter": "0", "display_mode": "light", "root_div_id": vis_id,
                  "include_layers": list(range(layers)), "include_heads": list(range(heads)), "total_heads": heads}
        controls = select
    script = _bertviz_js(kind).replace("PYTHON_PARAMS", _script_json(params))
    return (
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
        f"<script src=\"{vendor_url('d3')}\"></script>"
        f"<script src=\"{vendor_url('jquery')}\"></script>"
        f"<script src=\"{vendor_url('require')}\"></script>"
        f"<style>body{{margin:28px 8px 8px;background:#fff;{_FONT}}} select{{margin:0 6px 6px 2px}}</style>"
        "</head><body>"
        f"<div id=\"{vis_id}\" style=\"{_FONT}\"><span style=\"user-select:none\">{controls}</span>"
        "<div id=\"vis\"></div></div>"
        f"<script>{script}</script></body></html>"
    )


def iframe(document: str, height: int, title: str) -> str:
    """`document` inside a sandboxed iframe; everything escaped into the `srcdoc` attribute."""
    return (f'<iframe class="lab-iframe" sandbox="allow-scripts" title="{html.escape(title, quote=True)}" '
            f'style="width:100%;height:{int(height)}px" srcdoc="{html.escape(document, quote=True)}"></iframe>')


def view_height(kind: str, layers: int, heads: int, tokens: int) -> int:
    """A height that shows the whole view without scrolling, within reason (bertviz's own sizes)."""
    if kind == "head":
        return min(60 + tokens * 23, 1600)
    thumbnail = tokens * 7 * 12 / max(heads, 1) + 10
    return int(min(60 + layers * thumbnail, 1600))
