"""Page mechanics shared by the tabs: input checks, fresh results, framing lines, examples, figures, files."""
