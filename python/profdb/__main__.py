"""``python -m profdb COMMAND ...``: the profdb command line (load, query,
report, diff, mcp) from the installed package, for machines that have the
package but not the profdb executable."""
import ctypes
import sys

from profdb._cli import main

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: python -m profdb load|query|report|diff|mcp ...  "
              "(python -m profdb COMMAND --help for its options)")
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    code = main(sys.argv[1:])
    ctypes.CDLL(None).fflush(None)
    sys.exit(code)
