"""The *Attention* tab: bertviz views, one head across every pass, shared against not shared."""
