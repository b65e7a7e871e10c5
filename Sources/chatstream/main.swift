// chatstream: the command-line tool. Subcommands arrive with their issues.
print("usage: chatstream <replay|serve|chat|conversations|messages> ...")
