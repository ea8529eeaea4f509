/*
** decoy.c — a SQLite extension that exports the generic names another
** extension may use for its own initialisers (sqlean defines stats_init,
** for one): the names profdb's function families once had.  Each does
** nothing.  Loaded before profdb.so into the same process (SQLite
** dlopens with RTLD_GLOBAL), it must not replace any of profdb's own
** initialisers: check_decoy.py asserts that every profdb function works.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#define DECOY(name)       \
  int name(sqlite3 *db) { \
    (void)db;             \
    return SQLITE_OK;     \
  }

DECOY(category_init)
DECOY(opfamily_init)
DECOY(memreplay_init)
DECOY(intervals_init)
DECOY(stats_init)
DECOY(format_init)
DECOY(frames_init)
DECOY(ext_register)
DECOY(profdb_ext_register)

int sqlite3_decoy_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)db;
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return SQLITE_OK;
}
