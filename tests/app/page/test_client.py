"""Issue 42, item 3, without a browser: a phone's request gets the per-pass heatmaps stacked, each as wide as the
phone, the colour scale across the top; any other request keeps the grid. (tests/app/test_layout_phone_whole.py
measures the drawn page at 390 px.)"""

from __future__ import annotations

import numpy as np
import pytest

from app.page.client import is_phone
from app.tabs.attention.plots import head_heatmaps_figure

ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126 Mobile Safari"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126 Safari/537.36"


class Request:
    def __init__(self, **headers: str) -> None:
        self.headers = {key.replace("_", "-"): value for key, value in headers.items()}


@pytest.mark.parametrize(
    ("request_", "phone"),
    [
        (Request(user_agent=ANDROID), True),
        (Request(user_agent=IPHONE), True),
        (Request(user_agent=DESKTOP, sec_ch_ua_mobile="?1"), True),
        (Request(user_agent=DESKTOP, sec_ch_ua_mobile="?0"), False),
        (Request(user_agent=DESKTOP), False),
        (Request(), False),
        (None, False),  # outside an event: no request
        (object(), False),
    ],
)
def test_a_phone_is_told_by_its_own_headers(request_, phone: bool) -> None:
    assert is_phone(request_) is phone


def test_a_phone_gets_the_passes_stacked_the_rest_a_grid() -> None:
    maps = np.random.default_rng(0).random((6, 2, 9, 9))
    tokens = ["[CLS]", "the", "old", "sailor", "walked", "along", "the", "river", "[SEP]"]
    grid = head_heatmaps_figure(maps, tokens, 0, "en").to_dict()["layout"]
    stacked = head_heatmaps_figure(maps, tokens, 0, "en", narrow=True).to_dict()["layout"]
    domains = [stacked[f"xaxis{i if i > 1 else ''}"]["domain"] for i in range(1, 7)]
    assert all(d[0] == pytest.approx(0) and d[1] == pytest.approx(1) for d in domains)  # each pass as wide as the plot
    tops = [stacked[f"yaxis{i if i > 1 else ''}"]["domain"][1] for i in range(1, 7)]
    assert tops == sorted(tops, reverse=True) and len(set(tops)) == 6  # one under another, pass 1 on top
    lefts = sorted({round(grid[f"xaxis{i if i > 1 else ''}"]["domain"][0], 2) for i in range(1, 7)})
    assert len(lefts) == 3 and lefts[0] == 0  # the grid: three maps a row
    bar = stacked["coloraxis"]["colorbar"]
    assert bar["orientation"] == "h" and bar["y"] > 1  # across the top, above pass 1
    assert stacked["height"] > grid["height"] and stacked["margin"]["r"] < grid["margin"]["r"]
    assert "orientation" not in grid["coloraxis"]["colorbar"]


@pytest.mark.parametrize("count, every", [(9, 1), (18, 1), (24, 1), (48, 2)])
def test_a_phones_heatmap_labels_every_character_while_a_legible_label_fits(count: int, every: int) -> None:
    """Issue 54: a 中文 phone's heatmaps labelled every other character of an 18-token sentence. The columns' labels
    shrink (to 7 px at least) before any goes unlabelled."""
    maps = np.random.default_rng(0).random((2, 1, count, count))
    tokens = [f"字{i}" for i in range(count)]
    layout = head_heatmaps_figure(maps, tokens, 0, "zh", narrow=True).to_dict()["layout"]
    x_axis = layout["xaxis"]
    assert x_axis["tickvals"] == list(range(count))[::every]
    assert 7 <= x_axis["tickfont"]["size"] <= 11
    assert layout["yaxis"]["tickvals"] == list(range(count))  # rows: every token
