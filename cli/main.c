/*
** main.c — the profdb command-line tool.
**
**   profdb load INPUT... -o DB [--label L] [--replace] [--strict] [-q]
**   profdb query DB [--csv | --json | --table] [SQL]
**   profdb report DB|INPUT... [--md FILE] [--json FILE] [--section ID] ...
**   profdb diff BEFORE.db AFTER.db [--md FILE] [--json FILE]
**   profdb export DB|INPUT... -o DIR [--files LIST --index I] [--rank N]
**   profdb mcp --allow DIR...   (Model Context Protocol server over stdio)
**
** Exit codes (profdb_exit): 0 ok, 1 invalid input, 2 usage or system
** error, 3 truncated input loaded partially, 4 pickle refused, 5 out of
** memory, 10 a `profdb diff` gate check failed.
*/
#include "cli.h"

#include "oom.h"
#include "profdb/profdb.h"

#include <malloc.h>
#include <sys/resource.h>

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
    "  export DB|INPUT -o DIR   write a Parquet dataset (one rank per task)\n"
    "  mcp --allow DIR...       Model Context Protocol server (stdio) for agents\n"
    "\n"
    "run 'profdb <command> --help' for the options of a command.\n"
    "exit codes: 0 ok, 1 invalid input, 2 usage/system error,\n"
    "            3 truncated input loaded partially, 4 pickle refused,\n"
    "            5 out of memory,\n"
    "            10 a 'profdb diff' gate check (--fail-if, --gate) failed\n";

/* SQLite's allocator, with one policy for memory running out: the same as
** every other allocation of profdb's (ld_oom: a message, the temporary
** files removed, exit PROFDB_EXIT_NOMEM), not an "out of memory" error
** surfacing from whichever statement met it. */
static sqlite3_mem_methods sqlite_mem;

static void *sqlite_malloc(int n) {
  void *p = sqlite_mem.xMalloc(n);
  if (!p && n > 0) ld_oom();
  return p;
}

static void *sqlite_realloc(void *p, int n) {
  void *q = sqlite_mem.xRealloc(p, n);
  if (!q && n > 0) ld_oom();
  return q;
}

static void memory_policy(void) {
  sqlite3_mem_methods ours;
  if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_mem) == SQLITE_OK) {
    ours = sqlite_mem;
    ours.xMalloc = sqlite_malloc;
    ours.xRealloc = sqlite_realloc;
    sqlite3_config(SQLITE_CONFIG_MALLOC, &ours);
  }
  /* Under an address-space limit (ulimit -v), glibc cannot reserve a 64 MB
  ** heap per thread and falls back to an mmap per allocation: a load ran
  ** 20x slower.  One arena for the three threads keeps it at full speed. */
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) mallopt(M_ARENA_MAX, 1);
}

int main(int argc, char **argv) {
  /* No global allocation statistics: their mutex serializes every malloc
  ** of concurrent connections (the loader's writer, the report's second
  ** connection). */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  memory_policy();
  cli_safe_stderr();
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
  if (!strcmp(cmd, "export")) return cli_export(argc - 1, argv + 1);
  if (!strcmp(cmd, "mcp")) return cli_mcp(argc - 1, argv + 1);
  fprintf(stderr, "profdb: unknown command '%s'\n\n%s", cmd, usage);
  return PROFDB_EXIT_USAGE;
}
