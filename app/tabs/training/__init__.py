"""The *Train it yourself* tab: two tiny ALBERTs trained side by side for a minute (sharing, sentence order)."""
