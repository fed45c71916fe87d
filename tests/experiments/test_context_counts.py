"""The sceptic's count model (experiments/context_counts.py): its answers follow the counts and back off in order."""

import numpy as np

from experiments.context_counts import learn, predict

PAD, MASK, VOCAB = 0, 1, 20


def test_a_blank_between_two_seen_neighbours_takes_their_most_frequent_centre() -> None:
    examples = [np.array([5, 7, 9, 5, 7, 9]), np.array([5, 7, 9, PAD]), np.array([5, 8, 9, PAD])]
    counts = learn(examples, VOCAB, PAD)
    assert predict(counts, np.array([5, MASK, 9]), 1, {MASK, PAD}) == 7


def test_a_span_looks_past_its_own_blanks_with_their_distance() -> None:
    examples = [np.array([4, 10, 11, 12, 6])] * 3 + [np.array([4, 13, 6, 6, 6])]
    counts = learn(examples, VOCAB, PAD)
    query = np.array([4, MASK, MASK, MASK, 6])
    # 4 at distance 1 on the left and 6 at distance 3 on the right: the first piece of the three-piece span.
    assert predict(counts, query, 1, {MASK, PAD}) == 10
    assert predict(counts, query, 2, {MASK, PAD}) == 11
    assert predict(counts, query, 3, {MASK, PAD}) == 12


def test_an_unseen_pair_backs_off_to_the_left_then_the_right_then_the_most_frequent_piece() -> None:
    examples = [np.array([2, 3, 17, 17, 17, 17]), np.array([14, 15, 16, 17])]
    counts = learn(examples, VOCAB, PAD)
    assert counts.frequent == 17
    assert predict(counts, np.array([2, MASK, 16]), 1, {MASK, PAD}) == 3  # 2 → 3 on the left alone
    assert predict(counts, np.array([19, MASK, 16]), 1, {MASK, PAD}) == 15  # 19 unseen: the right's 15
    assert predict(counts, np.array([19, MASK, 18]), 1, {MASK, PAD}) == 17
    assert predict(counts, np.array([MASK, MASK]), 0, {MASK, PAD}) == 17


def test_taught_only_counts_the_centres_the_loss_asked_for_and_nothing_else() -> None:
    examples = [np.array([5, 7, 9, PAD]), np.array([5, 8, 9, PAD]), np.array([5, 8, 9, PAD])]
    taught = [np.array([False, True, False, False]), np.zeros(4, dtype=bool), np.zeros(4, dtype=bool)]
    counts = learn(examples, VOCAB, PAD, taught)
    # 8 is between 5 and 9 twice, 7 once, but only the 7 was a blank of the loss
    assert predict(counts, np.array([5, MASK, 9]), 1, {MASK, PAD}) == 7
    assert counts.frequent == 7
    assert predict(learn(examples, VOCAB, PAD), np.array([5, MASK, 9]), 1, {MASK, PAD}) == 8
