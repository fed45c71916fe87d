"""The *Sentence order* tab: one pair shown to an SOP model and an NSP model, side by side."""
