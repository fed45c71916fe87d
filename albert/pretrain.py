"""`python -m albert.pretrain`: the command's short name; the command itself is `albert.commands.pretrain`."""

from albert.commands.pretrain import main

if __name__ == "__main__":
    main()
