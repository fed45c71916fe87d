"""The *Parameters* tab: the calculator (counts, presets, paper sweep), compute and memory, timing."""
