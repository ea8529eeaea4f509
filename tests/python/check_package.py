#!/usr/bin/env python3
"""The Python package (pyproject.toml, python/profdb), installed as a user
would, checked against the CLI on the public DLRM job (8 ranks).

    check_package.py PROFDB SOURCE_DIR PUBLIC_DATA WORK_DIR

  * a fresh venv of Debian's /usr/bin/python3 (--system-site-packages, for
    Debian's pandas) takes `pip install --no-build-isolation --no-index
    SOURCE_DIR` (no network; the C library built from the C sources);
  * in it (tests/python/inner.py): python -m profdb runs the CLI; profdb.load() of the DLRM folder gives
    the database `profdb load` gives (same traces and kernels);
    db.sql("SELECT kernel_category(name) ...") equals `profdb query --json`
    (a pandas DataFrame, integers exact); db.report()["findings"] and the
    whole dict equal `profdb report --json` (also --scope hta and one
    section); db.section(ID) is that section's rows; profdb.diff(a, b,
    gate=...) equals `profdb diff --json` with the gate verdict; a writing
    statement is refused; docstrings, type hints, _repr_html_;
  * README's "From Python" example runs as written;
  * the same installed package imported from the other python3 on PATH
    (the pyenv build, without sqlite3.enable_load_extension) gives the same
    rows (a DataFrame when it has pandas, else the list of dicts).
Exit 77 (skipped) without the public data or without Debian's python3 with
venv, pip, setuptools, wheel and pandas.
"""
import os
import shutil
import subprocess
import sys

profdb, source, public, work = sys.argv[1:5]
dlrm = os.path.join(public, "facebookresearch__param", "dlrm_kineto")
SYS_PY = "/usr/bin/python3"
if not os.path.isdir(dlrm):
    print(f"skipped: no {dlrm}")
    sys.exit(77)
probe = subprocess.run([SYS_PY, "-c", "import setuptools, wheel, venv, ensurepip, pip, pandas"],
                       capture_output=True)
if probe.returncode:
    print(f"skipped: {SYS_PY} lacks venv/pip/setuptools/wheel/pandas (apt install "
          "python3-venv python3-pip python3-setuptools python3-wheel python3-pandas)")
    sys.exit(77)

os.makedirs(work, exist_ok=True)
venv = os.path.join(work, "venv")
shutil.rmtree(venv, ignore_errors=True)
subprocess.run([SYS_PY, "-m", "venv", "--system-site-packages", venv], check=True)
vpy = os.path.join(venv, "bin", "python")
p = subprocess.run([vpy, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                    "--no-cache-dir", source], capture_output=True, text=True)
if p.returncode:
    print(p.stdout[-5000:], p.stderr[-5000:])
    print("FAIL: pip install --no-build-isolation --no-index failed")
    sys.exit(1)
print("pip install: ok")

site = subprocess.run([vpy, "-c", "import profdb, os; print(os.path.dirname(os.path.dirname("
                       "profdb.__file__)))"], capture_output=True, text=True, check=True,
                      cwd=work).stdout.strip()
inner = os.path.join(source, "tests", "python", "inner.py")
rc = subprocess.run([vpy, inner, profdb, dlrm, work, "full"], cwd=work).returncode
if rc:
    sys.exit(rc)

# README's "From Python" example, as written, from the top of a checkout
readme = open(os.path.join(source, "README.md")).read()
block = readme.split("<!-- python-example:begin -->")[1].split("<!-- python-example:end -->")[0]
example = block.split("```python")[1].split("```")[0]
top = os.path.join(work, "checkout")
shutil.rmtree(top, ignore_errors=True)
os.makedirs(top)
os.symlink(os.path.join(source, "docs"), os.path.join(top, "docs"))
p = subprocess.run([vpy, "-c", example], cwd=top, capture_output=True, text=True)
if p.returncode or "GEMM" not in p.stdout or not p.stdout.rstrip().endswith("True"):
    print(p.stdout[-3000:], p.stderr[-3000:])
    print("FAIL: README's From Python example")
    sys.exit(1)
print("README example: ok")

# The same package from the other interpreter (pyenv's, on this machine):
# PYTHONPATH to the venv's site-packages only, none of Debian's.
others = []
for d in os.environ.get("PATH", "").split(os.pathsep):
    c = os.path.join(d, "python3")
    if os.access(c, os.X_OK) and os.path.realpath(c) != os.path.realpath(SYS_PY) and \
            "venv" not in c:
        others.append(c)
        break
for other in others:
    env = dict(os.environ, PYTHONPATH=site)
    rc = subprocess.run([other, inner, profdb, dlrm, work, "same-rows"], cwd=work,
                        env=env).returncode
    if rc:
        sys.exit(rc)
if not others:
    print("note: no other python3 on PATH; the cross-interpreter check ran in the venv only")
print("python package: ok")
