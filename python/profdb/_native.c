/*
** _native.c — the C side of the Python package (python/profdb): a plain
** shared library, no Python API, so one build serves any interpreter and
** none of them needs sqlite3.enable_load_extension.  The package loads it
** with ctypes.
**
**   profdb_py_open(path, readonly, &err)   a connection of the SQLite this
**                                          library links, with profdb's SQL
**                                          functions registered; queried
**                                          through the sqlite3_* symbols
**                                          reached from the same handle
**   profdb_py_cli(argc, argv)              `profdb load/query/report/diff/mcp`,
**                                          the CLI's own code (cli),
**                                          run by python -m profdb._cli in
**                                          a child process (python -m profdb:
**                                          the CLI for pip-only installs)
**   profdb_py_version()                    PROFDB_VERSION
**
** HOW IT WORKS: CMake builds this file with the CLI's sources (all but
** main.c) and the static loader, report and SQL-function libraries into
** libprofdbpy.so (target profdbpy, not built by default); setup.py runs that
** build and installs the library as profdb/_clib*.so.  The report JSON,
** CSV and HTML come from the report library, exactly as from the CLI.
*/
#include "cli.h"

#include "profdb/ext.h"
#include "profdb/profdb.h"
#include "profdb/version.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PY_EXPORT __attribute__((visibility("default")))

PY_EXPORT const char *profdb_py_version(void) {
  return PROFDB_VERSION;
}

/* The report's and the diff's options (report/report_params.c) as JSON:
** the package's keywords are checked and turned into options with it.
** malloc'd; free with profdb_py_free. */
PY_EXPORT char *profdb_py_report_options(void) {
  return rpo_table_json();
}

PY_EXPORT void profdb_py_free(void *p) {
  free(p);
}

/* Opens path (read-only unless readonly is 0: then no ATTACH nor VACUUM
** INTO either; never creates it) with a 10 s busy timeout and profdb's SQL
** functions.  NULL with *err set
** (sqlite3_malloc'd: free with sqlite3_free) on failure. */
PY_EXPORT sqlite3 *profdb_py_open(const char *path, int readonly, char **err) {
  sqlite3 *db = NULL;
  *err = NULL;
  int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
    *err = sqlite3_mprintf("%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 1);
  /* Read-only means no file written either: VACUUM INTO attaches its
  ** target as one more database, so no room for one is left (ATTACH is
  ** refused too; readonly=False allows both). */
  if (readonly) sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  char *why = NULL;
  if (profdb_ext_register(db, &why) != SQLITE_OK) {
    *err = sqlite3_mprintf("%s: cannot register SQL functions: %s", path, why ? why : "?");
    sqlite3_free(why);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* argv[0] is the command (load, query, report, diff, mcp, export; or
** --help), as after `profdb`.  Returns the CLI's exit code. */
PY_EXPORT int profdb_py_cli(int argc, char **argv) {
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* as main.c: before any use */
  cli_safe_stderr();                          /* a child process of its own: as main.c */
  return cli_main(argc, argv);                /* the command table of cli/cli_commands.c */
}
