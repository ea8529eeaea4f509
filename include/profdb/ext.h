/*
** ext.h — register profdb's SQL functions on a connection.
**
** The same functions are available three ways: this call (the profdb CLI
** links them in), the loadable extension profdb.so (`.load profdb` in the
** sqlite3 shell, `load_extension` in Python), and `profdb query/report`.
*/
#ifndef PROFDB_EXT_H
#define PROFDB_EXT_H

#include <sqlite3.h>

/* Returns SQLITE_OK, or an error code with *err set (sqlite3_malloc'd). */
int profdb_ext_register(sqlite3 *db, char **err);

#endif
