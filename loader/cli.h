/*
** cli.h — the profdb command-line tool's subcommands (internal).
*/
#ifndef PROFDB_CLI_H
#define PROFDB_CLI_H

#include <sqlite3.h>
#include <stdio.h>

/* Each returns a profdb_exit code. */
int cli_load(int argc, char **argv);
int cli_query(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_diff(int argc, char **argv);

/* Open a database read-only with the profdb SQL functions registered.
** Prints "profdb: PATH: why" and returns NULL on failure. */
sqlite3 *cli_open_db(const char *path, int readonly);

/* 0 when db is a profdb database of this profdb's schema version, else
** prints why not (with what to do) and returns -1. */
int cli_check_schema(sqlite3 *db, const char *path);

/* Output formats of query results. */
typedef enum cli_format { FMT_TABLE, FMT_CSV, FMT_JSON } cli_format;

/* Run every statement of sql, printing rows in fmt.  Returns 0 or -1. */
int cli_print_query(sqlite3 *db, const char *sql, cli_format fmt, FILE *out);

#endif
