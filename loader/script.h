/*
** script.h — run a script of SQL statements (an embedded .sql file of
** profdb_sql.h, or a query file) on a connection (script.c).  The one
** script runner of the loader, the exports and the report: each caller
** binds its named parameters (:trace_id, :run, ...) through a binder.
*/
#ifndef PROFDB_SCRIPT_H
#define PROFDB_SCRIPT_H

#include <sqlite3.h>

/* Binds what the statement asks for (sqlite3_bind_parameter_index) from
** arg; a parameter left unbound is NULL.  Returns 0, or non-zero to stop
** the script before this statement runs (a check of the statement failed;
** the binder says why). */
typedef int ld_binder(sqlite3_stmt *st, const void *arg);

/* Run every statement of script in order, each bound by bind(st, arg)
** (bind NULL: none), its rows discarded.  0, or -1 at the first statement
** that fails to prepare, bind or run (sqlite3_errmsg(db) says why unless
** the binder refused it; nothing printed, the statements after it not
** run). */
int ld_run_script(sqlite3 *db, const char *script, ld_binder *bind, const void *arg);

#endif
