/*
** cli_load.c — profdb load: option parsing for the loading library, and
** the closing line in words ("8 traces: ranks 0-7 of 8, 8x Tesla
** V100-SXM2-32GB, step 10 - next: profdb report run.db", from the loader's
** load_summary.h); each file's key=value figures with --verbose.
*/
#include "cli.h"
#include "load_summary.h"
#include "progress.h"

#include "profdb/profdb.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first bytes of path: what kind of file it is, for messages. */
static const char *file_kind(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL; /* never read a FIFO */
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char head[16] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (n == 0) return "empty";
  if (n == 16 && !memcmp(head, "SQLite format 3", 16)) return "sqlite";
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return "a gzip file (a trace?)";
  if (head[0] == '{' || head[0] == '[') return "a JSON file (a trace or snapshot?)";
  if (head[0] == 0x80) return "a pickle";
  return "another kind of file";
}

/* "profdb: run.db: 8 traces: ... - next: profdb report run.db" */
static void summary_line(const char *db_path) {
  sqlite3 *db = cli_open_db(db_path, 1);
  char *text = db ? ld_load_summary(db) : NULL;
  if (text)
    fprintf(stderr, "profdb: %s: %s \xE2\x80\x94 next: profdb report %s\n", db_path, text,
            db_path);
  sqlite3_free(text);
  if (db) sqlite3_close(db);
}

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
    "  --run NAME         the inputs are ranks of run NAME (ranks are compared only\n"
    "                     within a run; default: grouped by world size and time)\n"
    "  --rank N           the rank of the one input file when its distributedInfo\n"
    "                     has none.  A trace's rank is distributedInfo.rank, else\n"
    "                     --rank, else the number after 'rank' or 'worker' in its\n"
    "                     file name, else in its folder's name, else 0\n"
    "                     (trace.rank_source says which; docs/definitions.md#ranks)\n"
    "  --replace          reload inputs whose content is already loaded\n"
    "  --strict           refuse truncated inputs instead of keeping their\n"
    "                     complete events\n"
    "  -q, --quiet        print warnings and errors only\n"
    "  -v, --verbose      also each file's figures (events per kind, ...)\n"
    "  --progress         show the progress line even when stderr is not a terminal\n"
    "                     (else a plain line every 10 s there, for a log:\n"
    "                     $PROFDB_PROGRESS_SECONDS)\n"
    "  --no-progress      never show progress\n"
    "  --threads N        1 = parse and write on one thread (default 2)\n"
    "  --chunk-size N     bytes per read, at most 1 GiB (testing aid;\n"
    "                     default 262144)\n";

/* A positive count up to max (zlib and the read buffer take 32-bit sizes). */
static int parse_size(const char *s, size_t *out, unsigned long long max) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (!*s || *end || v == 0 || errno || v > max || s[0] == '-') {
    fprintf(stderr, "profdb: load: '%s' is not a number from 1 to %llu\n", s, max);
    return -1;
  }
  *out = (size_t)v;
  return 0;
}

int cli_parse_rank(const char *command, const char *s, long long *rank) {
  char *end;
  errno = 0;
  *rank = strtoll(s, &end, 10);
  if (s[0] >= '0' && s[0] <= '9' && !*end && !errno && *rank <= 100000000) return 0;
  fprintf(stderr, "profdb: %s: --rank %s: not a rank (a number from 0)\n", command, s);
  return -1;
}

int cli_load(int argc, char **argv) {
  profdb_load_options opt = {0};
  const char *db = NULL;
  const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
  int n = 0, progress = -1, verbose = 0;
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
    } else if (!strcmp(a, "--run") && i + 1 < argc) {
      opt.run = argv[++i];
    } else if (!strcmp(a, "--rank") && i + 1 < argc) {
      if (cli_parse_rank("load", argv[++i], &opt.rank)) goto bad;
      opt.have_rank = 1;
    } else if (!strcmp(a, "--replace")) {
      opt.replace = 1;
    } else if (!strcmp(a, "--strict")) {
      opt.strict = 1;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      opt.quiet = 1;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      verbose = 1;
    } else if (!strcmp(a, "--progress")) {
      progress = 1;
    } else if (!strcmp(a, "--no-progress")) {
      progress = 0;
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      size_t t;
      if (parse_size(argv[++i], &t, 1024)) goto bad;
      opt.threads = (int)t;
    } else if (!strcmp(a, "--chunk-size") && i + 1 < argc) {
      if (parse_size(argv[++i], &opt.chunk_size, 1ULL << 30)) goto bad;
    } else if (a[0] == '-' && a[1] && i + 1 == argc && strcmp(a, "--progress") &&
               strcmp(a, "--no-progress") && strcmp(a, "--replace") && strcmp(a, "--strict")) {
      fprintf(stderr, "profdb: load: %s needs a value\n", a);
      goto bad;
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
  /* The file after -o is written: refuse one that is no database (most
  ** often a trace, with the arguments swapped). */
  const char *kind = file_kind(db);
  if (kind && strcmp(kind, "sqlite") && strcmp(kind, "empty")) {
    fprintf(stderr,
            "profdb: %s: not an SQLite database but %s (refusing to replace it);"
            " -o names the database to write: profdb load TRACE... -o DB\n",
            db, kind);
    free(inputs);
    return PROFDB_EXIT_USAGE;
  }
  int quiet = opt.quiet;
  opt.quiet = quiet || !verbose;                    /* per-file figures only with --verbose */
  opt.progress = progress_mode(progress, quiet, 2); /* a log's lines off a terminal */
  /* A closed pipe on stderr (`2>&1 | head`) must not kill the load between
  ** its messages and the rename: a failed write of a message is harmless. */
  signal(SIGPIPE, SIG_IGN);
  int rc = profdb_load(db, inputs, n, &opt);
  if (!quiet && (rc == PROFDB_EXIT_OK || rc == PROFDB_EXIT_TRUNCATED)) summary_line(db);
  free(inputs);
  return rc;
bad:
  fputs(load_usage, stderr);
  free(inputs);
  return PROFDB_EXIT_USAGE;
}
