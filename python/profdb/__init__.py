"""profdb from Python: PyTorch profiler traces and CUDA memory snapshots in
SQLite, queried into pandas DataFrames.

    import profdb
    db = profdb.load("run1/", "run1.db")          # traces, snapshots, folders
    db.sql("SELECT kernel_category(name) AS category, sum(dur) AS ns "
           "FROM kernel GROUP BY 1 ORDER BY 2 DESC")   # a DataFrame
    rep = db.report()                             # the dict of `profdb report --json`
    rep["findings"][0]["title"]
    db.section("gpu_idle")                        # one section as a DataFrame
    d = profdb.diff("before.db", "after.db", gate=["step_time > +5%"])
    d["gate"]["passed"]

The package carries its own SQLite connection with profdb's SQL functions
registered in C (kernel_category, op_family, mem_timeline, mem_peak,
mem_live_at, interval_union, ...), so it works on interpreters built without
``sqlite3.enable_load_extension`` (pyenv, some distributions and macOS).
Loading, the report and the diff run profdb's own C code (the CLI's), so
their results are those of ``profdb report --json`` / ``profdb diff --json``
byte for byte.  Without pandas, DataFrames become lists of dicts.
"""
from __future__ import annotations

import builtins
import html as _html
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from profdb._native import Connection, Error, Params, lib, report_options

__all__ = ["load", "open", "diff", "trace_handler", "Database", "Report", "Error",
           "__version__"]

__version__: str = lib().profdb_py_version().decode()

PathLike = Union[str, "os.PathLike[str]"]
Frame = Any  # a pandas.DataFrame, or a list of dicts without pandas

_HERE = os.path.dirname(os.path.abspath(__file__))


def _pandas():
    try:
        import pandas  # noqa: F401

        return pandas
    except ImportError:
        return None


def _frame(columns: List[str], rows: List[list], frame: Optional[bool]) -> Frame:
    """rows as a DataFrame (frame None: when pandas is there), else dicts."""
    pd = _pandas() if frame is not False else None
    if frame and pd is None:
        raise ImportError("profdb: frame=True needs pandas (apt install python3-pandas)")
    if pd is not None:
        return pd.DataFrame.from_records(rows, columns=columns)
    return [dict(zip(columns, r)) for r in rows]


def _in_notebook() -> bool:
    return "ipykernel" in sys.modules


def _run(args: List[str], progress: Optional[bool] = None, ok=(0,)) -> int:
    """Run `profdb ARGS` from the package's library in a child process.
    Progress (stderr) is relayed when asked, or in a notebook, or when
    stderr is a terminal.  Raises Error with the CLI's message when the exit
    code is not in ok; returns it otherwise."""
    if progress is None:
        progress = _in_notebook() or sys.stderr.isatty()
    if args[0] in ("load", "report", "diff"):
        args = args + ["--progress" if progress else "--no-progress"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(_HERE) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.Popen([sys.executable, "-m", "profdb._cli", *args],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env)
    chunks = []
    assert p.stderr is not None
    while True:
        b = p.stderr.read1(65536) if hasattr(p.stderr, "read1") else p.stderr.read(4096)
        if not b:
            break
        chunks.append(b)
        if progress:
            sys.stderr.write(b.decode("utf-8", "replace"))
            sys.stderr.flush()
    rc = p.wait()
    text = b"".join(chunks).decode("utf-8", "replace")
    if rc not in ok:
        # the last line of the progress redraws is not the message
        lines = [l.split("\r")[-1] for l in text.splitlines()]
        msg = "\n".join(l for l in lines if l.strip()) or f"exit code {rc}"
        raise Error(f"profdb {args[0]} failed (exit {rc}): {msg}")
    return rc


class Report(dict):
    """The report (or diff) as the dict ``profdb report --json`` writes
    (docs/report-schema.md): "sections", "findings" (a diff: "verdict",
    "gate"), ...  In a notebook it shows as profdb's HTML report."""

    html: str = ""

    def frame(self, section_id: str, frame: Optional[bool] = None) -> Frame:
        """One section's rows as a DataFrame (its declared columns, in
        order; integers in ns and bytes).  "findings" / "verdict" too."""
        for s in self.get("sections", []):
            if s["id"] == section_id:
                return _frame([c["name"] for c in s["columns"]],
                              [[r.get(c["name"]) for c in s["columns"]] for r in s["rows"]],
                              frame)
        for key in ("findings", "verdict"):
            if section_id == key and key in self:
                rows = self[key]
                cols = list(rows[0].keys()) if rows else []
                return _frame(cols, [[r[c] for c in cols] for r in rows], frame)
        known = [s["id"] for s in self.get("sections", [])]
        raise KeyError(f"no section {section_id!r} in this report; sections: {known}")

    @property
    def findings(self) -> List[Dict[str, Any]]:
        """The findings (a diff: the verdict lines), first first."""
        return self.get("findings", self.get("verdict", []))

    def _repr_html_(self) -> str:
        if not self.html:
            return "<pre>" + _html.escape(json.dumps(self, indent=1)[:20000]) + "</pre>"
        # profdb's own page (self-contained: no fetches), isolated in a frame
        return ('<iframe style="width:100%;height:720px;border:1px solid #ccc" '
                f'srcdoc="{_html.escape(self.html, quote=True)}"></iframe>')


def _report(args: List[str], progress: Optional[bool], ok=(0,), with_html: bool = True) -> Report:
    with tempfile.TemporaryDirectory(prefix="profdb-py-") as tmp:
        js, ht = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.html")
        extra = ["--json", js] + (["--html", ht] if with_html else [])
        _run(args + extra, progress, ok)
        with builtins.open(js, encoding="utf-8") as f:
            rep = Report(json.load(f))
        if with_html and os.path.exists(ht):
            with builtins.open(ht, encoding="utf-8") as f:
                rep.html = f.read()
    return rep


def _valid(o: Dict[str, Any], v: Any) -> Optional[str]:
    """v as the command line's text for option o, or None when not valid."""
    t = o["type"]
    if t == "integer" and isinstance(v, int) and not isinstance(v, bool):
        x: float = v
        text = str(v)
    elif t == "number" and isinstance(v, (int, float)) and not isinstance(v, bool):
        x, text = float(v), repr(float(v))
    elif t == "string" and v in o["choices"]:
        return str(v)
    else:
        return None
    low_ok = x > o["min"] if o["min_exclusive"] else x >= o["min"]
    return text if low_ok and (not o["max"] or x <= o["max"]) else None


def _options(command: str, values: Dict[str, Any]) -> List[str]:
    """The CLI options of command ("report" or "diff") for the keyword
    values given (None, False: not given), checked as the CLI checks them
    (report/report_params.c): ValueError names a bad one."""
    args: List[str] = []
    for o in report_options():
        if not o[command]:
            continue
        if o["name"] not in values:  # a new option of report_params.c: add its keyword
            raise TypeError(f"profdb: {command}() has no keyword for the option {o['name']!r}")
        v = values[o["name"]]
        if v is None or v is False:
            continue
        if o["type"] == "boolean":
            if v is not True:
                raise ValueError(f"profdb: {command}: {o['name']} is True or False, got {v!r}")
            args.append(o["flag"])
            continue
        text = _valid(o, v)
        if text is None:
            raise ValueError(f"profdb: {command}: {o['name']} needs {o['need']}, got {v!r}")
        args += [o["flag"], text]
    return args


def _sections(sections: Union[None, str, Iterable[str]]) -> List[str]:
    if sections is None:
        return []
    if isinstance(sections, str):
        sections = [sections]
    out: List[str] = []
    for s in sections:
        out += ["--section", s]
    return out


def _is_dataset(path: str) -> bool:
    """A Parquet dataset of profdb export: a folder with a _summary folder
    or <table>/run=R folders (export_merge.c's ex_is_dataset)."""
    if os.path.isdir(os.path.join(path, "_summary")):
        return True
    try:
        subs = [e for e in os.scandir(path) if e.is_dir() and not e.name.startswith(".")]
    except OSError:
        return False
    return any(f.name.startswith("run=") for d in subs for f in os.scandir(d.path))


class Database:
    """A profdb database: ``sql()`` for any query (every profdb SQL
    function available), ``report()``, ``section()`` and ``findings()``
    for the canned report.  Opened read-only (TEMP tables, e.g.
    kernel_category_rule, still work; ATTACH and VACUUM INTO, which write
    files, need readonly=False).

    A Parquet dataset of ``profdb export`` (its folder) opens too
    (``dataset`` is True): report(), section(), findings() and diff() read
    its summaries as ``profdb report DIR`` does (the same JSON); sql()
    over its Parquet files needs a Parquet engine (DuckDB), named in the
    error it raises."""

    def __init__(self, path: PathLike, readonly: bool = True) -> None:
        self.path: str = os.fspath(path)
        self.dataset: bool = False
        self._con: Optional[Connection] = None
        if not os.path.exists(self.path):
            raise Error(f"profdb: {self.path}: no such database")
        if os.path.isdir(self.path):
            if not _is_dataset(self.path):
                raise Error(f"profdb: {self.path}: a folder, not a database; load its traces"
                            f" first (profdb.load({self.path!r}, 'run.db')); a Parquet dataset"
                            " of profdb export is a folder with _summary/ in it")
            self.dataset = True
            return
        self._con = Connection(self.path, readonly=readonly)

    def sql(self, query: str, params: Params = None, *, frame: Optional[bool] = None) -> Frame:
        """Run query (several statements: the rows of the last one that
        returns columns) and return a pandas DataFrame, or a list of dicts
        without pandas (or with frame=False).  params binds ``?`` (a
        sequence) or ``:name`` (a dict).  Integers stay exact (ns, bytes).
        On a dataset: raises Error naming DuckDB, the way to query its
        Parquet files."""
        if self._con is None:
            glob_ = os.path.join(self.path, "kernel", "*", "*", "*.parquet")
            raise Error(
                f"profdb: {self.path}: a Parquet dataset of profdb export: SQL over its Parquet"
                " files needs a Parquet engine, e.g. DuckDB (pip install duckdb): "
                f"duckdb.sql(\"SELECT rank, sum(dur) FROM '{glob_}' GROUP BY rank\").df()"
                " (tables and columns: docs/export.md); report(), section(), findings()"
                " and diff() work on the dataset itself")
        cols, rows = self._con.execute(query, params)
        return _frame(cols, rows, frame)

    def report(self, sections: Union[None, str, Iterable[str]] = None, scope: str = "steps", *,
               top: Optional[int] = None, include_warmup: bool = False,
               gpu_gb: Optional[float] = None, trace: Optional[int] = None,
               snapshot: Optional[int] = None, link_gbps: Optional[float] = None,
               html: bool = True, progress: Optional[bool] = None,
               run: Optional[str] = None) -> Report:
        """The report as ``profdb report DB --json`` writes it (the same
        dict: findings identical).  sections: ids of ``profdb report
        --list`` ("findings" included; default all); scope: "steps",
        "trace" or "hta"; the other options are the CLI's (``profdb report
        --help``; profdb._native.report_options() lists them).  html=True
        keeps the HTML report for the notebook display
        (Report._repr_html_).  run: a dataset's run (``--run``; default
        every run)."""
        options = _options("report", dict(top=top, include_warmup=include_warmup, scope=scope,
                                          gpu_gb=gpu_gb, trace=trace, snapshot=snapshot,
                                          link_gbps=link_gbps))
        args = ["report", self.path] + options + _sections(sections)
        if run is not None:
            args += ["--run", run]
        return _report(args, progress, with_html=html)

    def section(self, section_id: str, scope: str = "steps", *, frame: Optional[bool] = None,
                **options: Any) -> Frame:
        """One report section (an id of ``profdb report --list``, or
        "findings") as a DataFrame with its declared columns."""
        rep = self.report(sections=[section_id], scope=scope, html=False, **options)
        return rep.frame(section_id, frame)

    def findings(self, scope: str = "steps", **options: Any) -> List[Dict[str, Any]]:
        """The report's findings (the "findings" of ``profdb report
        --json``), first first; options as report()'s."""
        return self.report(sections=["findings"], scope=scope, html=False, **options).findings

    def close(self) -> None:
        """Close the connection."""
        if self._con is not None:
            self._con.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"profdb.Database({self.path!r})"

    def _repr_html_(self) -> str:
        if self._con is None:
            return (f"<b>profdb dataset</b> <code>{_html.escape(self.path)}</code>: report(),"
                    " section(), findings() and diff() read its summaries")
        try:
            traces = self.sql("SELECT trace_id, label, rank, world_size, events FROM trace",
                              frame=False)
        except Error:
            traces = []
        rows = "".join("<tr>" + "".join(f"<td>{_html.escape(str(v))}</td>" for v in t.values()) +
                       "</tr>" for t in traces)
        return (f"<b>profdb database</b> <code>{_html.escape(self.path)}</code>: "
                f"{len(traces)} trace(s)<table><tr><th>trace_id</th><th>label</th><th>rank</th>"
                f"<th>world_size</th><th>events</th></tr>{rows}</table>")


def open(path: PathLike, readonly: bool = True) -> Database:  # noqa: A001 (as sqlite3.connect)
    """Open an existing profdb database, or a Parquet dataset of profdb
    export (its folder: report, sections, findings and diff)."""
    return Database(path, readonly=readonly)


def load(inputs: Union[PathLike, Sequence[PathLike]], db: PathLike, *,
         label: Optional[str] = None, run: Optional[str] = None, replace: bool = False,
         strict: bool = False, threads: Optional[int] = None,
         progress: Optional[bool] = None) -> Database:
    """Load traces (.json, .json.gz), memory snapshots (JSON) or folders of
    them into db (created when missing; appended to otherwise), as
    ``profdb load INPUTS -o DB`` does, atomically.  Progress shows in a
    notebook or a terminal (progress=True/False to choose).  Returns the
    database, open.  A truncated input is kept partially with a warning (as
    the CLI's exit 3) unless strict=True; any other failure raises Error."""
    if isinstance(inputs, (str, bytes)) or hasattr(inputs, "__fspath__"):
        inputs = [inputs]  # type: ignore[list-item]
    args = ["load", *[os.fspath(i) for i in inputs], "-o", os.fspath(db)]  # type: ignore[union-attr]
    if label is not None:
        args += ["--label", label]
    if run is not None:
        args += ["--run", run]
    if replace:
        args.append("--replace")
    if strict:
        args.append("--strict")
    if threads is not None:
        args += ["--threads", str(int(threads))]
    _run(args, progress, ok=(0, 3))
    return Database(db)


def _db_path(x: Union[PathLike, Database]) -> str:
    return x.path if isinstance(x, Database) else os.fspath(x)


def diff(before: Union[PathLike, Database], after: Union[PathLike, Database],
         gate: Union[None, str, Sequence[str]] = None, *,
         sections: Union[None, str, Iterable[str]] = None, top: Optional[int] = None,
         include_warmup: bool = False, line_tolerance: Optional[int] = None, html: bool = True,
         progress: Optional[bool] = None, allow_missing: bool = False,
         run: Optional[str] = None) -> Report:
    """Compare two runs as ``profdb diff BEFORE AFTER --json`` does:
    databases (paths or Database handles) or trace files / folders.  gate:
    checks such as ``["step_time > +5%", "ooms > 0"]`` (each a --fail-if),
    or the path of a gate file (--gate).  The dict has "verdict",
    "sections" and, with a gate, "gate": {"passed": bool, "checks": [...]};
    a failing gate does not raise.  A category[NAME] / kernel[NAME] check
    whose NAME is in neither run raises (profdb exits 2, naming the closest
    names) unless allow_missing (--allow-missing: not evaluated).  run: the
    run of both datasets (--run; default every run)."""
    args = ["diff", _db_path(before), _db_path(after)] + _sections(sections)
    if run is not None:
        args += ["--run", run]
    if isinstance(gate, str):
        gate = [gate]
    for g in gate or []:
        args += ["--gate", g] if os.path.isfile(g) else ["--fail-if", g]
    args += _options("diff", dict(top=top, include_warmup=include_warmup,
                                  line_tolerance=line_tolerance))
    if allow_missing:
        args.append("--allow-missing")
    return _report(args, progress, ok=(0, 10), with_html=html)


def _rank_of_process() -> int:
    """This process's rank: torch.distributed's when it is initialized,
    else $RANK (torchrun), else 0."""
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except Exception:  # noqa: BLE001 (a half-initialized process group)
        pass
    try:
        return int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0


def trace_handler(target: PathLike, *, run: Optional[str] = None,
                  trace_dir: Optional[PathLike] = None, keep_traces: bool = False,
                  progress: Optional[bool] = False):
    """A handler for ``torch.profiler.profile(on_trace_ready=...)``, as
    ``torch.profiler.tensorboard_trace_handler``: each time the profiler
    has a trace ready, it is written (``prof.export_chrome_trace``) and
    loaded into the database ``target`` (a path ending in ``.db`` or an
    existing database: ``profdb load``, appended, atomic) or exported into
    the Parquet dataset folder ``target`` (``profdb export``: one run per
    profiling cycle, ``RUN-1``, ``RUN-2``, ... with RUN ``run`` or
    ``profile``, the rank from the trace or this process's rank)::

        with torch.profiler.profile(schedule=torch.profiler.schedule(
                wait=1, warmup=1, active=3, repeat=2),
                on_trace_ready=profdb.trace_handler("run.db")) as prof:
            for batch in loader:
                train_step(batch)
                prof.step()

    The trace JSON goes to ``trace_dir`` (default: a temporary folder) and
    is removed once loaded unless ``keep_traces``.  A failing load or
    export does not stop training: it is warned about (warnings.warn) and
    its trace kept, named in the warning.  Several ranks may share one
    database (loads wait for each other) or one dataset."""
    import warnings

    target = os.fspath(target)
    to_db = target.endswith(".db") or os.path.isfile(target)
    state = {"cycle": 0}

    def handle(prof: Any) -> None:
        state["cycle"] += 1
        rank = _rank_of_process()
        folder = os.fspath(trace_dir) if trace_dir is not None else tempfile.mkdtemp(
            prefix="profdb-trace-")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"rank{rank}.cycle{state['cycle']}.pt.trace.json")
        prof.export_chrome_trace(path)
        try:
            if to_db:
                load([path], target, run=run, progress=progress)
            else:
                name = f"{run or 'profile'}-{state['cycle']}"
                _run(["export", path, "-o", target, "--run", name, "-q"], progress, ok=(0, 3))
        except Error as e:
            warnings.warn(f"profdb.trace_handler: {e} (the trace is kept: {path})",
                          RuntimeWarning, stacklevel=2)
            return
        if not keep_traces:
            os.unlink(path)
            if trace_dir is None:
                os.rmdir(folder)

    return handle
