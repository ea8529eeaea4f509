/*
** ext.c — entry point of the profdb SQLite extension.
**
** Built twice: as the loadable module profdb.so (SQLite derives the entry
** point sqlite3_profdb_init from the file name) and, with SQLITE_CORE, into
** the profdb CLI.  Each function family lives in its own file and exports
** <family>_init(db); this file only calls them.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "profdb/ext.h"

#include <string.h>

#ifndef PROFDB_VERSION_STRING
#define PROFDB_VERSION_STRING "unknown"
#endif

/*
** SQL Function: profdb_version()
** Returns the profdb version string, e.g. '0.1.0'.
*/
static void version_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, PROFDB_VERSION_STRING, -1, SQLITE_STATIC);
}

int profdb_ext_register(sqlite3 *db, char **err) {
  int rc = sqlite3_create_function(db, "profdb_version", 0,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                   NULL, version_func, NULL, NULL);
  if (rc != SQLITE_OK && err) *err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  return rc;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_profdb_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  return profdb_ext_register(db, err);
}
