#!/usr/bin/env python3
"""HTA's parse + temporal breakdown of one trace: the peer that bench.py
--hta times next to profdb load + report (issue 24's end-to-end ratio).

    HTA_SRC=/path/to/HolisticTraceAnalysis hta_breakdown.py TRACE

HTA is not packaged for Debian: it runs from a source checkout with
Debian's python3-pandas, python3-plotly, python3-networkx and
python3-psutil (../shared/tools/README.md).  HTA reads a folder of rank
traces, so the trace is linked alone into a temporary folder.  Prints the
breakdown's first row (idle / compute / non-compute percentages)."""
import contextlib
import io
import logging
import os
import sys
import tempfile

sys.path.insert(0, os.environ["HTA_SRC"])
logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis  # noqa: E402

trace = os.path.abspath(sys.argv[1])
with tempfile.TemporaryDirectory() as d:
    os.symlink(trace, os.path.join(d, os.path.basename(trace)))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        breakdown = TraceAnalysis(trace_dir=d).get_temporal_breakdown(visualize=False)
print(breakdown.iloc[0].to_dict())
