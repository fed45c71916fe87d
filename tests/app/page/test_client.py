"""Issue 42, item 3, without a browser: a phone's request gets the per-pass heatmaps stacked, each as wide as the
phone, the colour scale across the top; any other request keeps the grid. (tests/app/test_layout_phone_whole.py
measures the drawn page at 390 px.)"""

from __future__ import annotations

import numpy as np
import pytest

from app.page.client import is_phone
from app.tabs.attention.plots import PHONE_PLOT_PX, head_heatmaps_figure

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


@pytest.mark.parametrize("count", [9, 18, 24, 48, 128])
def test_a_phones_heatmap_labels_every_character_up_to_the_token_limit(count: int) -> None:
    """Issue 54: a 中文 phone's heatmaps labelled every other character of an 18-token sentence, and past 24 tokens
    still did. The columns' labels shrink (to 7 px at least); past that the map is drawn wider than the phone (its
    box scrolls sideways), 10 px a token, so no character goes unlabelled up to the token limit (128)."""
    maps = np.random.default_rng(0).random((2, 1, count, count))
    tokens = [f"字{i}" for i in range(count)]
    layout = head_heatmaps_figure(maps, tokens, 0, "zh", narrow=True).to_dict()["layout"]
    x_axis = layout["xaxis"]
    assert x_axis["tickvals"] == list(range(count))
    assert 7 <= x_axis["tickfont"]["size"] <= 11
    assert layout["yaxis"]["tickvals"] == list(range(count))  # rows: every token
    plot_width = layout.get("width", PHONE_PLOT_PX) - layout["margin"]["l"] - layout["margin"]["r"]
    assert plot_width / count >= x_axis["tickfont"]["size"] + 3  # room for each turned label
    assert ("width" in layout) is (count > 24)  # drawn wider than the phone only when it must
    titles = [(title["x"], title["xanchor"]) for title in layout["annotations"]]
    assert all(title == ((0, "left") if count > 24 else (0.5, "center")) for title in titles)  # on screen unscrolled


@pytest.mark.parametrize("count, every", [(12, 1), (48, 1), (73, 1), (128, 2)])
def test_a_desktops_heatmaps_take_fewer_maps_a_row_before_a_token_goes_unlabelled(count: int, every: int) -> None:
    maps = np.random.default_rng(0).random((6, 1, count, count))
    layout = head_heatmaps_figure(maps, [f"w{i}" for i in range(count)], 0, "en").to_dict()["layout"]
    assert layout["xaxis"]["tickvals"] == list(range(count))[::every]
    per_row = len({round(layout[f"xaxis{i if i > 1 else ''}"]["domain"][0], 2) for i in range(1, 7)})
    assert per_row == (3 if count <= 24 else 1)
