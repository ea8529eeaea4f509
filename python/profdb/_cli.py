"""``python -m profdb._cli COMMAND ARGS...``: the profdb command line run
from the package's C library (what profdb.load, Database.report and
profdb.diff run, in a child process so that the CLI's signal handlers and
exit paths never touch the caller's interpreter).  The exit code is the
CLI's."""
import ctypes
import os
import sys

from profdb._native import lib

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    # The report's query files ship inside the package.
    os.environ.setdefault("PROFDB_QUERIES", os.path.join(HERE, "queries"))
    args = [os.fsencode(a) for a in argv]
    arr = (ctypes.c_char_p * (len(args) + 1))(*args, None)
    sys.stdout.flush()
    rc = lib().profdb_py_cli(len(args), arr)
    return rc


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # the C side wrote through its own stdio: flush it before exiting
    ctypes.CDLL(None).fflush(None)
    sys.exit(code)
