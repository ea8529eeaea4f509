/*
** main.c — the profdb command-line tool.
**
**   profdb load INPUT... -o DB [--label L] [--replace] [--strict] [-q]
**   profdb query DB [--csv | --json | --table] [SQL]
**   profdb report DB|INPUT... [--md FILE] [--json FILE] [--section ID] ...
**   profdb diff BEFORE.db AFTER.db [--md FILE] [--json FILE]
**
** Exit codes (profdb_exit): 0 ok, 1 invalid input, 2 usage or system
** error, 3 truncated input loaded partially, 4 pickle refused.
*/
#include "cli.h"

#include "profdb/ext.h"
#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  "\n"
  "run 'profdb <command> --help' for the options of a command.\n"
  "exit codes: 0 ok, 1 invalid input, 2 usage/system error,\n"
  "            3 truncated input loaded partially, 4 pickle refused\n";

static const char load_usage[] =
  "usage: profdb load INPUT... -o DB [options]\n"
  "\n"
  "Load profiler traces and memory snapshots into the SQLite database DB\n"
  "(created if missing).  INPUT is a file (JSON, or gzip-compressed JSON:\n"
  "detected from the content) or a directory, whose *.json and *.json.gz\n"
  "files are loaded in name order.  The load is atomic: on any error DB is\n"
  "left exactly as it was.\n"
  "\n"
  "options:\n"
  "  -o, --output DB    database to load into (required)\n"
  "  --label NAME       label of the artifact (one input only)\n"
  "  --replace          reload inputs whose content is already loaded\n"
  "  --strict           refuse truncated inputs instead of keeping their\n"
  "                     complete events\n"
  "  -q, --quiet        print warnings and errors only\n"
  "  --progress         show progress even when stderr is not a terminal\n"
  "  --no-progress      never show progress\n"
  "  --threads N        1 = parse and write on one thread (default 2)\n"
  "  --chunk-size N     bytes per read (testing aid; default 262144)\n";

static int parse_size(const char *s, size_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (!*s || *end || v == 0) return -1;
  *out = (size_t)v;
  return 0;
}

int cli_load(int argc, char **argv) {
  profdb_load_options opt = {0};
  const char *db = NULL;
  const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
  int n = 0, progress = -1;
  if (!inputs) return PROFDB_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(load_usage, stdout);
      free(inputs);
      return PROFDB_EXIT_OK;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
      db = argv[++i];
    } else if (!strcmp(a, "--label") && i + 1 < argc) {
      opt.label = argv[++i];
    } else if (!strcmp(a, "--replace")) {
      opt.replace = 1;
    } else if (!strcmp(a, "--strict")) {
      opt.strict = 1;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      opt.quiet = 1;
    } else if (!strcmp(a, "--progress")) {
      progress = 1;
    } else if (!strcmp(a, "--no-progress")) {
      progress = 0;
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      size_t t;
      if (parse_size(argv[++i], &t)) goto bad;
      opt.threads = (int)t;
    } else if (!strcmp(a, "--chunk-size") && i + 1 < argc) {
      if (parse_size(argv[++i], &opt.chunk_size)) goto bad;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: load: unknown option '%s'\n", a);
      goto bad;
    } else {
      inputs[n++] = a;
    }
  }
  if (!db || n == 0) {
    fprintf(stderr, "profdb: load: %s\n", !db ? "missing -o DB" : "missing INPUT");
    goto bad;
  }
  if (opt.label && n > 1) {
    fprintf(stderr, "profdb: load: --label needs exactly one input\n");
    goto bad;
  }
  opt.progress = progress >= 0 ? progress : (!opt.quiet && isatty(2));
  int rc = profdb_load(db, inputs, n, &opt);
  free(inputs);
  return rc;
bad:
  fputs(load_usage, stderr);
  free(inputs);
  return PROFDB_EXIT_USAGE;
}

sqlite3 *cli_open_db(const char *path, int readonly) {
  sqlite3 *db;
  if (access(path, F_OK) != 0) {
    fprintf(stderr, "profdb: %s: no such database\n", path);
    return NULL;
  }
  int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: cannot open: %s\n", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 10000);
  char *err = NULL;
  if (profdb_ext_register(db, &err) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: cannot register SQL functions: %s\n", path,
            err ? err : "?");
    sqlite3_free(err);
    sqlite3_close(db);
    return NULL;
  }
  /* A file that is not SQLite fails on the first read; say so now. */
  if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: %s\n", path, err ? err : sqlite3_errmsg(db));
    sqlite3_free(err);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

int cli_check_schema(sqlite3 *db, const char *path) {
  sqlite3_stmt *st;
  long long version = -1;
  if (sqlite3_prepare_v2(db, "SELECT value FROM _profdb WHERE key = 'schema_version'", -1, &st,
                         NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  if (version < 0) {
    fprintf(stderr, "profdb: %s: not a profdb database (no _profdb table)\n", path);
    return -1;
  }
  if (version != PROFDB_SCHEMA_VERSION) {
    fprintf(stderr, "profdb: %s: written with database schema %lld; this profdb reads schema"
            " %d: load the traces and snapshots again into a new database\n", path, version,
            PROFDB_SCHEMA_VERSION);
    return -1;
  }
  return 0;
}

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
    printf("profdb %s (schema %d, SQLite %s)\n", PROFDB_VERSION,
           PROFDB_SCHEMA_VERSION, sqlite3_libversion());
    return PROFDB_EXIT_OK;
  }
  if (!strcmp(cmd, "load")) return cli_load(argc - 1, argv + 1);
  if (!strcmp(cmd, "query")) return cli_query(argc - 1, argv + 1);
  if (!strcmp(cmd, "report")) return cli_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "diff")) return cli_diff(argc - 1, argv + 1);
  fprintf(stderr, "profdb: unknown command '%s'\n\n%s", cmd, usage);
  return PROFDB_EXIT_USAGE;
}
