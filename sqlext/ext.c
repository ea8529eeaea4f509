/*
** ext.c — entry point of the profdb SQLite extension.
**
** Built twice: as the loadable module profdb.so (SQLite derives the entry
** point sqlite3_profdb_init from the file name) and, with SQLITE_CORE, into
** the profdb CLI.  Each function family lives in its own file and exports
** <family>_init(db); this file only calls them.
**
**   sqlite> .load ./build/profdb
**   >>> con.enable_load_extension(True); con.load_extension("./build/profdb")
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "families.h"
#include "profdb/ext.h"

#include <stddef.h>

const char *profdb_ext_ordinal(int i) {
  static const char *const names[] = {"0th", "1st", "2nd", "3rd", "4th", "5th"};
  return i >= 0 && i <= 5 ? names[i] : "nth";
}

int profdb_ext_register(sqlite3 *db, char **err) {
  static int (*const families[])(sqlite3 *) = {
      profdb_category_init,     profdb_opfamily_init,      profdb_memreplay_init,
      profdb_intervals_init,    profdb_stats_init,         profdb_format_init,
      profdb_frames_init,       profdb_flops_init,         profdb_hta_init,
      profdb_longest_path_init, profdb_critical_path_init, profdb_replay_init};
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
    int rc = families[i](db);
    if (rc != SQLITE_OK) {
      if (err) *err = sqlite3_mprintf("profdb extension: %s", sqlite3_errmsg(db));
      return rc;
    }
  }
  return SQLITE_OK;
}

/* The only symbol profdb.so exports (the module is built with hidden
** visibility): a generic name such as stats_init, exported by another
** extension loaded first, would otherwise be bound in its place. */
#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
    int sqlite3_profdb_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  return profdb_ext_register(db, err);
}
