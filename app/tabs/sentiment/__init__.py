"""The *Sentiment* tab: the shipped fine-tuned classifier, its verdict and the passes' attention."""
