/*
** main.c — the profdb command-line tool.
**
**   profdb load INPUT... -o DB [--label L] [--replace] [--strict] [-q]
**   profdb query DB [--csv | --json | --table] [SQL]
**   profdb report DB|INPUT... [--md FILE] [--json FILE] [--section ID] ...
**   profdb diff BEFORE.db AFTER.db [--md FILE] [--json FILE]
**   profdb mcp --allow DIR...   (Model Context Protocol server over stdio)
**
** Exit codes (profdb_exit): 0 ok, 1 invalid input, 2 usage or system
** error, 3 truncated input loaded partially, 4 pickle refused, 10 a
** `profdb diff` gate check failed.
*/
#include "cli.h"

#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: profdb <command> [options]\n"
    "\n"
    "Turn PyTorch profiler traces and CUDA memory snapshots into SQLite.\n"
    "\n"
    "commands:\n"
    "  load INPUT... -o DB      load traces (.json, .json.gz), memory snapshots\n"
    "                           (JSON) or folders of them into DB\n"
    "  query DB [SQL]           run SQL (or SQL from stdin) and print the rows\n"
    "  report DB|INPUT...       write the resource report (Markdown/JSON)\n"
    "  diff BEFORE AFTER        compare two databases\n"
    "  mcp --allow DIR...       Model Context Protocol server (stdio) for agents\n"
    "\n"
    "run 'profdb <command> --help' for the options of a command.\n"
    "exit codes: 0 ok, 1 invalid input, 2 usage/system error,\n"
    "            3 truncated input loaded partially, 4 pickle refused,\n"
    "            10 a 'profdb diff' gate check (--fail-if, --gate) failed\n";

int main(int argc, char **argv) {
  /* No global allocation statistics: their mutex serializes every malloc
  ** of concurrent connections (the loader's writer, the report's second
  ** connection). */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  if (argc < 2) {
    fputs(usage, stderr);
    return PROFDB_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    fputs(usage, stdout);
    return PROFDB_EXIT_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("profdb %s (schema %d, SQLite %s)\n", PROFDB_VERSION, PROFDB_SCHEMA_VERSION,
           sqlite3_libversion());
    return PROFDB_EXIT_OK;
  }
  if (!strcmp(cmd, "load")) return cli_load(argc - 1, argv + 1);
  if (!strcmp(cmd, "query")) return cli_query(argc - 1, argv + 1);
  if (!strcmp(cmd, "report")) return cli_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "diff")) return cli_diff(argc - 1, argv + 1);
  if (!strcmp(cmd, "mcp")) return cli_mcp(argc - 1, argv + 1);
  fprintf(stderr, "profdb: unknown command '%s'\n\n%s", cmd, usage);
  return PROFDB_EXIT_USAGE;
}
