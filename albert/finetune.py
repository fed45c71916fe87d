"""`python -m albert.finetune`: the command's short name; the command itself is `albert.commands.finetune`."""

from albert.commands.finetune import main

if __name__ == "__main__":
    main()
