"""The Sharing modes tab's summary of the recorded sharing arms is computed from summary.csv (issue 15): it names
each arm with its size and held-out masked words, and says which intervals are apart, in English and 中文."""

from __future__ import annotations

import io

import pandas as pd

from app.models.runs import sharing_family, sharing_runs_text

HEADER = "run,sharing,objective,embedding_size,seed,parameters,tokens,mlm_accuracy,mlm_low,mlm_high"
SUMMARY = f"""{HEADER},order_accuracy,order_low,order_high
albert-lab-all,all,sop,64,0,756098,20192986,0.1545,0.15,0.1591,0.4993,0.4813,0.5173
albert-lab-base,all,sop,128,0,1289026,59988603,0.2043,0.1993,0.2094,0.5068,0.4888,0.5248
albert-lab-ffn,ffn,sop,64,0,1087618,20192986,0.1637,0.1591,0.1684,0.5075,0.4895,0.5255
albert-lab-none,none,sop,64,0,1747458,20192986,0.1612,0.1566,0.1658,0.4892,0.4712,0.5072
albert-lab-none-s1,none,sop,64,1,1747458,20192986,0.30,0.29,0.31,0.49,0.47,0.51
albert-lab-nsp,all,nsp,64,0,756098,20336003,0.113,0.1091,0.1171,0.5683,0.5503,0.5863
"""


def _summary(text: str = SUMMARY) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


def test_the_family_is_the_first_seeds_sop_arms_at_the_shared_embedding_size() -> None:
    assert list(sharing_family(_summary())["run"]) == ["albert-lab-all", "albert-lab-ffn", "albert-lab-none"]
    assert sharing_family(None).empty


def test_touching_intervals_are_no_difference() -> None:
    text = sharing_runs_text("en", _summary())
    assert "(E 64, 20.2M tokens each on 2 CPU cores, seed 0)" in text
    assert (
        "\n- all (756,098 parameters): 15.4% [15.0%, 15.9%]\n- ffn (1,087,618 parameters): 16.4% [15.9%, 16.8%]\n"
        in text
    )
    assert "under the protocol no arm differs from another yet" in text  # ffn's 15.91% meets all's 15.91%
    assert "Prefers the true order on held-out pairs, each asked both ways: 48.9%–50.7% (chance: 50%)." in text
    assert "Every interval holds 50% or lies under it: no arm reads sentence order." in text  # the NSP arm is not one
    above = _summary(SUMMARY.replace("0.5075,0.4895,0.5255", "0.5575,0.5395,0.5755"))
    assert "over 50%, on both draws of pairs where two were scored): ffn." in sharing_runs_text("en", above)
    assert "两组都如此）：仅前馈。" in sharing_runs_text("zh", above)
    # a second draw at chance takes the verdict back
    unreplicated = above.assign(order_replication_low=0.47)
    assert "no arm reads sentence order" in sharing_runs_text("en", unreplicated)


def test_intervals_apart_are_named_in_both_languages() -> None:
    summary = _summary(SUMMARY.replace("0.1637,0.1591,0.1684", "0.17,0.165,0.175"))
    assert "Intervals apart, a difference under the protocol: ffn > all; every other pair overlaps." in (
        sharing_runs_text("en", summary)
    )
    chinese = sharing_runs_text("zh", summary)
    assert "区间不重叠（按实验方案算作差异）：仅前馈 > 全部共享（ALBERT）" in chinese
    assert "（词嵌入 E 64，各在 2 个 CPU 核上训练 2,019 万个词元，种子 0）" in chinese and "parameters" not in chinese
    assert "(E 64, 20.2M tokens each on 2 CPU cores, seed 0)" in sharing_runs_text("en", summary)


def test_a_summary_without_intervals_or_sizes_still_reads() -> None:
    summary = _summary("run,sharing,objective,parameters,tokens,mlm_accuracy\nb,all,sop,12000,1638400,0.18\n")
    assert sharing_runs_text("en", summary) == (
        "Our recorded runs (1.6M tokens each on 2 CPU cores, seed 0), held-out masked words:\n"
        "- all (12,000 parameters): 18.0%"
    )
    assert sharing_runs_text("en", pd.DataFrame()) == "No recorded runs of the sharing modes yet."


SEED_ONE = """albert-lab-all-s1,all,sop,64,1,756098,20192986,{all_s1},{all_s1_low},{all_s1_high},0.5,0.48,0.52
albert-lab-none-s1,none,sop,64,1,1747458,20192986,{none_s1},{none_s1_low},{none_s1_high},0.5,0.48,0.52
"""


def _with_second_seed(all_s1: tuple[float, float, float], none_s1: tuple[float, float, float]) -> pd.DataFrame:
    rows = SUMMARY.replace("albert-lab-none-s1,none,sop,64,1,1747458,20192986,0.30,0.29,0.31,0.49,0.47,0.51\n", "")
    fields = dict(zip(("all_s1", "all_s1_low", "all_s1_high"), all_s1, strict=True)) | dict(
        zip(("none_s1", "none_s1_low", "none_s1_high"), none_s1, strict=True)
    )
    return _summary(rows + SEED_ONE.format(**fields))


def test_the_second_seed_is_reported_and_one_seed_alone_says_nothing() -> None:
    assert "by seed" not in sharing_runs_text("en", _summary())  # seed 1 has no all-shared arm
    text = sharing_runs_text("en", _with_second_seed((0.150, 0.146, 0.154), (0.162, 0.158, 0.166)))
    assert (
        "Not shared against all-shared, held-out masked words, by seed (none − all): seed 0: +0.7 points, intervals "
        "overlap; seed 1: +1.2 points, intervals apart." in text
    )
    assert text.endswith("which asks for intervals apart with the same sign under every seed.")


def test_apart_with_the_same_sign_under_both_seeds_is_a_difference_in_both_languages() -> None:
    summary = _with_second_seed((0.150, 0.146, 0.154), (0.162, 0.158, 0.166))
    summary.loc[summary["run"] == "albert-lab-none", ["mlm_accuracy", "mlm_low", "mlm_high"]] = [0.17, 0.165, 0.175]
    assert sharing_runs_text("en", summary).endswith("a difference under the protocol.")
    assert "种子 1：+1.2 个百分点，区间不重叠" in sharing_runs_text("zh", summary)
    opposite = _with_second_seed((0.170, 0.166, 0.174), (0.150, 0.146, 0.154))
    opposite.loc[opposite["run"] == "albert-lab-none", ["mlm_accuracy", "mlm_low", "mlm_high"]] = [0.17, 0.165, 0.175]
    assert sharing_runs_text("en", opposite).endswith("with the same sign under every seed.")  # +1.5 then −2.0
