"""`python -m albert.tokenizer`: the command's short name; the command itself is `albert.commands.tokenizer`."""

from albert.commands.tokenizer import main

if __name__ == "__main__":
    main()
