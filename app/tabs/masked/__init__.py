"""The *Masked words* tab: type [MASK] (or pick a word) and see the model's top-k guesses."""
