"""The C library of the package (_native.c built with profdb's C sources),
loaded with ctypes, and a minimal SQLite client over the sqlite3_* symbols
reached through it: the connection has profdb's SQL functions registered by
C, so no interpreter needs ``sqlite3.enable_load_extension``."""
from __future__ import annotations

import ctypes
import glob
import os
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_void_p
from typing import Any, List, Optional, Sequence, Tuple, Union

HERE = os.path.dirname(os.path.abspath(__file__))

SQLITE_OK, SQLITE_ROW, SQLITE_DONE = 0, 100, 101
SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL = 1, 2, 3, 4, 5
SQLITE_TRANSIENT = c_void_p(-1)


class Error(Exception):
    """An error from SQLite or profdb (the message names the cause)."""


def library_path() -> str:
    """Where the package's C library is (profdb/_clib*.so)."""
    found = sorted(glob.glob(os.path.join(HERE, "_clib*.so")))
    if not found:
        raise ImportError(
            f"profdb: the C library is missing from {HERE}: install the package "
            "with pip (pip install --no-build-isolation --no-index .) rather than "
            "importing it from the source tree")
    return found[0]


_lib: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """The loaded library, its functions' signatures declared."""
    global _lib
    if _lib is not None:
        return _lib
    so = ctypes.CDLL(library_path())
    sig = {
        "profdb_py_version": (c_char_p, []),
        "profdb_py_open": (c_void_p, [c_char_p, c_int, POINTER(c_void_p)]),
        "profdb_py_cli": (c_int, [c_int, POINTER(c_char_p)]),
        "profdb_py_report_options": (c_void_p, []),
        "profdb_py_free": (None, [c_void_p]),
        "sqlite3_close_v2": (c_int, [c_void_p]),
        "sqlite3_free": (None, [c_void_p]),
        "sqlite3_errmsg": (c_char_p, [c_void_p]),
        "sqlite3_prepare_v2": (c_int, [c_void_p, c_void_p, c_int, POINTER(c_void_p),
                                       POINTER(c_void_p)]),
        "sqlite3_step": (c_int, [c_void_p]),
        "sqlite3_finalize": (c_int, [c_void_p]),
        "sqlite3_column_count": (c_int, [c_void_p]),
        "sqlite3_column_name": (c_char_p, [c_void_p, c_int]),
        "sqlite3_column_type": (c_int, [c_void_p, c_int]),
        "sqlite3_column_int64": (c_int64, [c_void_p, c_int]),
        "sqlite3_column_double": (c_double, [c_void_p, c_int]),
        "sqlite3_column_text": (c_void_p, [c_void_p, c_int]),
        "sqlite3_column_blob": (c_void_p, [c_void_p, c_int]),
        "sqlite3_column_bytes": (c_int, [c_void_p, c_int]),
        "sqlite3_bind_parameter_count": (c_int, [c_void_p]),
        "sqlite3_bind_parameter_name": (c_char_p, [c_void_p, c_int]),
        "sqlite3_bind_int64": (c_int, [c_void_p, c_int, c_int64]),
        "sqlite3_bind_double": (c_int, [c_void_p, c_int, c_double]),
        "sqlite3_bind_text": (c_int, [c_void_p, c_int, c_char_p, c_int, c_void_p]),
        "sqlite3_bind_blob": (c_int, [c_void_p, c_int, c_char_p, c_int, c_void_p]),
        "sqlite3_bind_null": (c_int, [c_void_p, c_int]),
        "sqlite3_libversion": (c_char_p, []),
    }
    for name, (res, args) in sig.items():
        f = getattr(so, name)
        f.restype, f.argtypes = res, args
    _lib = so
    return so


_options: Optional[List[dict]] = None


def report_options() -> List[dict]:
    """The report's and the diff's options (report/report_params.c, the one
    definition the CLI and the MCP server use too): each a dict with name
    (the keyword), flag (the CLI option), type ("integer", "number",
    "string" with choices, "boolean"), min, max (0: none), min_exclusive,
    need (what a bad value is told) and report / diff (which take it)."""
    global _options
    if _options is None:
        import json

        p = lib().profdb_py_report_options()
        try:
            _options = json.loads(ctypes.string_at(p).decode("utf-8"))
        finally:
            lib().profdb_py_free(p)
    return _options


Params = Union[None, Sequence[Any], dict]


class Connection:
    """One SQLite connection with profdb's SQL functions (kernel_category,
    op_family, mem_*, interval_*, ...).  Read-only unless opened with
    readonly=False; TEMP tables work either way."""

    def __init__(self, path: str, readonly: bool = True) -> None:
        self._db: Optional[int] = None
        err = c_void_p()
        db = lib().profdb_py_open(os.fsencode(path), 1 if readonly else 0, byref(err))
        if not db:
            msg = ctypes.string_at(err.value).decode("utf-8", "replace") if err.value else path
            lib().sqlite3_free(err)
            raise Error(f"profdb: {msg}")
        self._db = db

    def close(self) -> None:
        if self._db:
            lib().sqlite3_close_v2(self._db)
            self._db = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _error(self, what: str) -> Error:
        msg = lib().sqlite3_errmsg(self._db) or b"?"
        return Error(f"{what}: {msg.decode('utf-8', 'replace')}")

    def _bind(self, st: int, params: Params) -> None:
        L = lib()
        n = L.sqlite3_bind_parameter_count(st)
        for i in range(1, n + 1):
            if isinstance(params, dict):
                name = L.sqlite3_bind_parameter_name(st, i)
                key = name.decode()[1:] if name else None
                if key not in params:
                    raise Error(f"no value for parameter {name!r}")
                v = params[key]
            else:
                if params is None or i > len(params):
                    raise Error(f"the statement has {n} parameter(s), "
                                f"{0 if params is None else len(params)} given")
                v = params[i - 1]
            if v is None:
                rc = L.sqlite3_bind_null(st, i)
            elif isinstance(v, bool) or isinstance(v, int):
                rc = L.sqlite3_bind_int64(st, i, int(v))
            elif isinstance(v, float):
                rc = L.sqlite3_bind_double(st, i, v)
            elif isinstance(v, (bytes, bytearray, memoryview)):
                b = bytes(v)
                rc = L.sqlite3_bind_blob(st, i, b, len(b), SQLITE_TRANSIENT)
            else:
                b = str(v).encode("utf-8")
                rc = L.sqlite3_bind_text(st, i, b, len(b), SQLITE_TRANSIENT)
            if rc != SQLITE_OK:
                raise self._error(f"binding parameter {i}")

    def execute(self, sql: str, params: Params = None) -> Tuple[List[str], List[list]]:
        """Run every statement of sql; returns (column names, rows) of the
        last statement that has result columns.  Integers stay Python ints
        (exact ns and bytes), text is str, blobs bytes, NULL None."""
        if not self._db:
            raise Error("the connection is closed")
        L = lib()
        data = sql.encode("utf-8")
        buf = ctypes.create_string_buffer(data)
        base = ctypes.addressof(buf)
        off, names, rows = 0, [], []
        while off < len(data):
            st, tail = c_void_p(), c_void_p()
            if L.sqlite3_prepare_v2(self._db, base + off, len(data) - off, byref(st),
                                    byref(tail)) != SQLITE_OK:
                raise self._error("SQL error")
            off = (tail.value - base) if tail.value else len(data)
            if not st.value:  # whitespace or a comment
                continue
            try:
                self._bind(st.value, params)
                ncol = L.sqlite3_column_count(st.value)
                cols = [L.sqlite3_column_name(st.value, i).decode("utf-8", "replace")
                        for i in range(ncol)]
                got = []
                step = L.sqlite3_step
                ctype, cint, cdouble = (L.sqlite3_column_type, L.sqlite3_column_int64,
                                        L.sqlite3_column_double)
                ctext, cblob, cbytes = (L.sqlite3_column_text, L.sqlite3_column_blob,
                                        L.sqlite3_column_bytes)
                string_at, sv = ctypes.string_at, st.value
                cols_range = range(ncol)
                while True:
                    rc = step(sv)
                    if rc == SQLITE_DONE:
                        break
                    if rc != SQLITE_ROW:
                        raise self._error("SQL error")
                    row = []
                    for i in cols_range:
                        t = ctype(sv, i)
                        if t == SQLITE_INTEGER:
                            row.append(cint(sv, i))
                        elif t == SQLITE_FLOAT:
                            row.append(cdouble(sv, i))
                        elif t == SQLITE_TEXT:
                            p = ctext(sv, i)
                            row.append(string_at(p, cbytes(sv, i)).decode("utf-8", "replace"))
                        elif t == SQLITE_BLOB:
                            p = cblob(sv, i)
                            row.append(string_at(p, cbytes(sv, i)) if p else b"")
                        else:
                            row.append(None)
                    got.append(row)
                if ncol:
                    names, rows = cols, got
            finally:
                L.sqlite3_finalize(st.value)
        return names, rows
