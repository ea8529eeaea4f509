"""``python -m profdb COMMAND ...``: the profdb command line (load, query,
report, diff, export, mcp) from the installed package, for machines that
have the package but not the profdb executable.  ``python -m profdb
--help`` lists the commands from the CLI's own table (cli/cli_commands.c)."""
import ctypes
import sys

from profdb._cli import main

if __name__ == "__main__":
    code = main(sys.argv[1:])
    ctypes.CDLL(None).fflush(None)
    sys.exit(code)
