/*
** sql.h — the loader's SQL scripts: loader/sql/NAME.sql as profdb_sql_NAME,
** the schema (loader/schema_*.sql, views_*.sql) as profdb_schema_sql and
** loader/run_check.sql as profdb_run_check_sql, all in the registry that
** CMakeLists.txt generates (profdb_embed_sql(): profdb_sql.h).  Each is
** NUL-terminated; a script runs with ld_run_script() (script.h).
*/
#ifndef PROFDB_SQL_H
#define PROFDB_SQL_H

#include "profdb_sql.h"

#endif
