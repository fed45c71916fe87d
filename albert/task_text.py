"""`python -m albert.task_text`: the command's short name; the command itself is `albert.commands.task_text`."""

from albert.commands.task_text import main

if __name__ == "__main__":
    main()
