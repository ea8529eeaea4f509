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
** The commands are the table of cli_commands.c.
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
  /* Buffers of 4 MB and more (the sorts' 16 MB buffers, their radix
  ** arrays, SQLite's sorter) are mmapped, so each goes back to the system
  ** when freed.  glibc's default raises the threshold to the size of the
  ** last such buffer freed; the next ones then came from the heap and
  ** stayed in it: a 1.2 GB load peaked at 121 MB of RSS, 88 MB with this. */
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
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
  return cli_main(argc - 1, argv + 1); /* cli_commands.c */
}
