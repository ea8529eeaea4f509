/*
** cli_export.c — `profdb export`: a database, or one rank's trace as one
** task of a job array, written as a Parquet dataset (export/export.c).
**
**   profdb export run.db -o DIR                 every trace and snapshot
**   profdb export rank3.pt.trace.json.gz -o DIR one rank (a task)
**   profdb export --files LIST -o DIR           line I of LIST, I from
**       --index, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX
**
** A task loads its input into a temporary database in $TMPDIR (removed
** afterwards, also on SIGINT / SIGTERM / SIGHUP) and exports it: the same
** files `profdb export DB` writes for that rank, whatever the order and
** the concurrency of the tasks.  Exit codes: 0 ok, 3 ok with warnings
** (a truncated input, a value that did not fit its column), 75 an I/O error a retry may cure, 1 invalid input,
** 2 usage or any other error, 4 a pickle refused.
*/
#include "cli.h"
#include "progress.h"
#include "oom.h"

#include "export.h"
#include "parquet.h"
#include "profdb/profdb.h"
#include "publish.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char export_usage[] =
    "usage: profdb export DB|INPUT... -o DIR [options]\n"
    "       profdb export --files LIST [--index I] -o DIR [options]\n"
    "\n"
    "Write a Parquet dataset: DIR/<table>/run=<run>/rank=<rank>/part-NNNN.parquet\n"
    "(docs/export.md).  DB exports every trace and snapshot in it; trace or\n"
    "snapshot files are loaded into a temporary database in $TMPDIR first (one\n"
    "rank: one task of a job array).\n"
    "\n"
    "  -o, --output DIR     the dataset's folder (created when missing)\n"
    "  --format parquet     the output format (default); --format chrome writes a\n"
    "                       Chrome-trace slice: profdb export --format chrome -h;\n"
    "                       --format memory_viz a memory-snapshot window for\n"
    "                       PyTorch's memory viewer: profdb export --format memory_viz -h\n"
    "  --files LIST         a file with one input path a line; the task exports\n"
    "                       line I (0-based, blank lines and '#' lines skipped)\n"
    "  --index I            the line of LIST; default $SLURM_ARRAY_TASK_ID, else\n"
    "                       $JOB_COMPLETION_INDEX (Kubernetes indexed Job)\n"
    "  --run NAME           the run of every input (default: load --run, else\n"
    "                       ws<world_size>-<n> from overlapping time windows)\n"
    "  --rank N             the rank of the one input file when its\n"
    "                       distributedInfo has none (default: the number after\n"
    "                       'rank' or 'worker' in its file name, else its\n"
    "                       folder's, else 0: as profdb load --rank; a database\n"
    "                       keeps the ranks of its load; docs/definitions.md#ranks)\n"
    "  --table NAME         export only this table (repeatable)\n"
    "  --compression zstd|none   page compression (default zstd)\n"
    "  --file-bytes N       close a file at the first row group past N bytes and\n"
    "                       go on in the next part (default 1073741824: 1 GiB)\n"
    "  --group-rows N       rows per row group at most (1 to 1048576, the default)\n"
    "  --threads N          1 = load on one thread (default 2; 1 when\n"
    "                       $SLURM_CPUS_PER_TASK is 1)\n"
    "  --force              export inputs the dataset already holds (by default a\n"
    "                       task whose every input it holds, same content and\n"
    "                       options, is skipped)\n"
    "  -q, --quiet          no summary line, no progress (else off a terminal a\n"
    "                       line every 10 s: $PROFDB_PROGRESS_SECONDS)\n"
    "\n"
    "exit codes: 0 ok, 3 ok with warnings, 75 I/O error worth a retry,\n"
    "            1 invalid input, 2 usage or other error, 4 pickle refused\n";

/* The temporary database of a task: $TMPDIR/profdb-export-<pid>-XXXXXX
** (publish.h: removed on exit and on signals; after SIGKILL, by the next
** export or report once its process is gone). */
static char tmp_dir[4096];

static void remove_tmp(void) {
  if (tmp_dir[0]) pub_tmpdir_remove(tmp_dir);
  tmp_dir[0] = 0;
}

static int is_sqlite(const char *path) {
  char head[16] = {0};
  const char *why;
  FILE *f = ld_fopen_regular(path, &why); /* a FIFO: not a database */
  if (!f) return 0;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return n == 16 && !memcmp(head, "SQLite format 3", 16);
}

/* Line index (0-based, blank and '#' lines skipped) of LIST; malloc'd. */
static char *list_line(const char *list, long long index) {
  const char *why;
  FILE *f = ld_fopen_regular(list, &why); /* a FIFO would block for ever */
  if (!f) {
    fprintf(stderr, "profdb: export: %s: %s\n", list, why);
    return NULL;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  long long i = 0;
  while ((n = getline(&line, &cap, f)) >= 0) {
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
      line[--n] = 0;
    if (n == 0 || line[0] == '#') continue;
    if (i++ == index) {
      fclose(f);
      return line;
    }
  }
  fclose(f);
  free(line);
  fprintf(stderr, "profdb: export: %s: no line %lld (it lists %lld inputs)\n", list, index, i);
  return NULL;
}

static int parse_ll(const char *s, long long *v) {
  char *end;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return s[0] && !*end && !errno && *v >= 0 ? 0 : -1;
}

/* Load the task's inputs into a temporary database; its path or NULL. */
static const char *load_task(const char *const *inputs, int n, const ex_options *o, int threads,
                             int quiet, int *rc) {
  static char tmp_db[4200];
  if (pub_tmpdir("profdb-export", tmp_dir, sizeof tmp_dir)) {
    const char *t = getenv("TMPDIR");
    fprintf(stderr, "profdb: export: cannot create a temporary folder in %s: %s\n",
            t && *t ? t : "/tmp", strerror(errno));
    tmp_dir[0] = 0;
    *rc = EX_EXIT_RETRY;
    return NULL;
  }
  static const char *const files[] = {"", "-journal", "-wal"};
  for (int i = 0; i < 3; i++) { /* the database a signal removes */
    snprintf(tmp_db, sizeof tmp_db, "%s/run.db%s", tmp_dir, files[i]);
    pub_keep(tmp_db, 0);
  }
  snprintf(tmp_db, sizeof tmp_db, "%s/run.db", tmp_dir);
  static int at_exit;
  if (!at_exit++) atexit(remove_tmp);
  profdb_load_options opt = {.quiet = 1,
                             .run = o->run,
                             .threads = threads,
                             .progress = progress_mode(-1, quiet, 2),
                             .have_rank = o->have_rank,
                             .rank = o->rank};
  /* Without --threads: one core per task unless the scheduler gave more. */
  const char *cpus = getenv("SLURM_CPUS_PER_TASK");
  if (!threads && cpus && atoi(cpus) == 1) opt.threads = 1;
  *rc = profdb_load(tmp_db, inputs, n, &opt);
  if (*rc != PROFDB_EXIT_OK && *rc != PROFDB_EXIT_TRUNCATED) return NULL;
  return tmp_db;
}

/* What the command line asks for, besides the export's own options. */
typedef struct ex_args {
  const char **inputs; /* traces, snapshots or one database */
  int n;
  const char **only;             /* --table names (o->only points here) */
  const char *files, *index_arg; /* --files LIST, --index I */
  int quiet;                     /* -q */
  int force;                     /* --force: no skipping */
  long long threads;             /* --threads N, 0 when not given */
  int skipped;                   /* every input was in the dataset already */
} ex_args;

/* An option that takes a value: the value into o or a; -1 (message
** printed) when it is not valid. */
static int value_option(const char *a, const char *v, ex_options *o, ex_args *x) {
  if (!strcmp(a, "-o") || !strcmp(a, "--output"))
    o->dir = v;
  else if (!strcmp(a, "--format")) {
    if (strcmp(v, "parquet")) {
      fprintf(stderr, "profdb: export: --format %s: 'parquet', 'chrome' or 'memory_viz'\n", v);
      return -1;
    }
  } else if (!strcmp(a, "--files"))
    x->files = v;
  else if (!strcmp(a, "--index"))
    x->index_arg = v;
  else if (!strcmp(a, "--run"))
    o->run = v;
  else if (!strcmp(a, "--rank")) {
    if (cli_parse_rank("export", v, &o->rank)) return -1;
    o->have_rank = 1;
  } else if (!strcmp(a, "--table"))
    x->only[o->nonly++] = v;
  else if (!strcmp(a, "--threads")) {
    if (parse_ll(v, &x->threads) || x->threads < 1 || x->threads > 1024) {
      fprintf(stderr, "profdb: export: --threads %s: a number from 1 to 1024\n", v);
      return -1;
    }
  } else if (!strcmp(a, "--file-bytes") || !strcmp(a, "--group-rows")) {
    long long n;
    int rows = !strcmp(a, "--group-rows");
    if (parse_ll(v, &n) || n < 1 || (rows && n > PQ_GROUP_ROWS)) {
      if (rows)
        fprintf(stderr, "profdb: export: %s %s: a number from 1 to %d\n", a, v, PQ_GROUP_ROWS);
      else
        fprintf(stderr, "profdb: export: %s %s: a number of bytes from 1 to %lld\n", a, v,
                (long long)INT64_MAX);
      return -1;
    }
    *(rows ? &o->group_rows : &o->file_bytes) = n;
  } else if (!strcmp(a, "--compression")) {
    if (!strcmp(v, "none"))
      o->uncompressed = 1;
    else if (strcmp(v, "zstd")) {
      fprintf(stderr, "profdb: export: --compression %s: zstd or none\n", v);
      return -1;
    }
  }
  return 0;
}

/* Parse argv into o and x: 0, 1 for --help (printed), -1 for a usage
** error (printed). */
static int parse_args(int argc, char **argv, ex_options *o, ex_args *x) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(export_usage, stdout);
      return 1;
    }
    int takes = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--format") ||
                !strcmp(a, "--files") || !strcmp(a, "--index") || !strcmp(a, "--run") ||
                !strcmp(a, "--rank") || !strcmp(a, "--table") || !strcmp(a, "--compression") ||
                !strcmp(a, "--file-bytes") || !strcmp(a, "--group-rows") ||
                !strcmp(a, "--threads");
    if (takes && !v) {
      fprintf(stderr, "profdb: export: %s needs a value\n\n%s", a, export_usage);
      return -1;
    }
    if (takes) {
      if (value_option(a, v, o, x)) return -1;
      i++;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      x->quiet = 1;
    } else if (!strcmp(a, "--force")) {
      x->force = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: export: unknown option %s\n\n%s", a, export_usage);
      return -1;
    } else {
      x->inputs[x->n++] = a;
    }
  }
  if (!o->dir) {
    fprintf(stderr, "profdb: export: -o DIR is required\n\n%s", export_usage);
    return -1;
  }
  struct stat sb; /* before any load: a file there cannot become the dataset */
  if (stat(o->dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "profdb: export: -o %s: not a folder\n", o->dir);
    return -1;
  }
  return 0;
}

/* The job-array task's input: line I of --files LIST (I from --index,
** $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX) appended to x->inputs,
** *listed its malloc'd text.  Returns 0, or an exit code (printed). */
static int task_input(ex_args *x, char **listed) {
  if (!x->files) {
    if (!x->index_arg) return PROFDB_EXIT_OK;
    fprintf(stderr, "profdb: export: --index goes with --files LIST\n");
    return PROFDB_EXIT_USAGE;
  }
  if (x->n) {
    fprintf(stderr, "profdb: export: give inputs or --files LIST, not both\n");
    return PROFDB_EXIT_USAGE;
  }
  const char *idx = x->index_arg ? x->index_arg : getenv("SLURM_ARRAY_TASK_ID");
  if (!idx || !*idx) idx = getenv("JOB_COMPLETION_INDEX");
  long long index;
  if (!idx || !*idx || parse_ll(idx, &index)) {
    fprintf(stderr,
            "profdb: export: --files needs --index I, $SLURM_ARRAY_TASK_ID or"
            " $JOB_COMPLETION_INDEX (a number from 0)\n");
    return PROFDB_EXIT_USAGE;
  }
  if (!(*listed = list_line(x->files, index))) return PROFDB_EXIT_USAGE;
  x->inputs[x->n++] = *listed;
  return PROFDB_EXIT_OK;
}

/* A task whose every input the dataset holds already (same content, same
** options and build, every file there: export_record.c) has nothing to
** do: 1 and *rc its exit code (3 when the export it skips warned), each
** input's line printed; else 0, also when any input is not held.  A
** database is never skipped. */
static int already_exported(const ex_options *o, const ex_args *x, int *rc) {
  char key[1024];
  *rc = PROFDB_EXIT_OK;
  /* Without --run, inputs loaded together may derive other runs than each
  ** alone: only a single input is looked up (as the run it derives). */
  if (ex_options_key(o, key, sizeof key) || (!o->run && x->n > 1)) return 0;
  ex_record_match *m = calloc((size_t)x->n, sizeof *m);
  if (!m) ld_oom();
  int all = 1;
  for (int i = 0; all && i < x->n; i++)
    all = ex_record_find(o->dir, x->inputs[i], key, !o->run, &m[i]);
  for (int i = 0; all && i < x->n; i++) {
    if (m[i].warnings) *rc = PROFDB_EXIT_TRUNCATED;
    if (!x->quiet)
      fprintf(stderr,
              "profdb: export: %s: already in %s as the %s of run %s, rank %lld (same"
              " content and options%s): skipped (--force exports it again)\n",
              x->inputs[i], o->dir, m[i].kind, m[i].run, m[i].rank,
              m[i].warnings ? "; its export warned" : "");
  }
  free(m);
  return all;
}

/* An export without --run derives the run from the inputs: a task that
** derives another run than the job's tasks before it (a rerun of a job
** whose clock moved, other world sizes) adds a second run, which profdb
** report DIR would report beside the first.  Said, with the way out. */
static int count_runs(const char *dir) {
  char **runs;
  int n = ex_dataset_runs(dir, &runs);
  ex_free_runs(runs, n);
  return n;
}

/* Said when this export (without --run) added a run to a dataset that held
** some already (runs_before of them). */
static void warn_runs(const char *dir, int runs_before) {
  int n = count_runs(dir);
  if (n < 2 || n <= runs_before) return;
  char text[1024];
  ex_runs_text(dir, text, sizeof text);
  fprintf(stderr,
          "profdb: export: warning: %s now holds %d runs (%s): this export, without --run,"
          " added one; profdb report %s covers them all (--run NAME selects one). Give every"
          " task of a job the same --run NAME\n",
          dir, n, text, dir);
}

/* Export the database, or the inputs loaded into a temporary one. */
static int export_inputs(ex_options *o, ex_args *x, ex_result *res, int *load_rc) {
  int rc = PROFDB_EXIT_OK;
  const char *db_path;
  if (x->n == 1 && is_sqlite(x->inputs[0]) && o->have_rank) {
    fprintf(stderr,
            "profdb: export: --rank %lld: %s was loaded already, and its ranks with it:"
            " --rank names the rank of one trace file to load (profdb load FILE --rank N)\n",
            o->rank, x->inputs[0]);
    return PROFDB_EXIT_USAGE;
  } else if (x->n == 1 && is_sqlite(x->inputs[0]))
    db_path = x->inputs[0];
  else if (ex_check_tables(o))
    return PROFDB_EXIT_USAGE;
  else if (!x->force && (x->skipped = already_exported(o, x, &rc)))
    return rc;
  else if (!(db_path = load_task(x->inputs, x->n, o, (int)x->threads, x->quiet, load_rc)))
    return *load_rc;
  else
    o->record_inputs = 1; /* loaded by this build: its records are exact */
  sqlite3 *db = cli_open_db(db_path, 1);
  if (!db || cli_check_schema(db, db_path)) rc = PROFDB_EXIT_USAGE;
  progress_start(stderr, progress_mode(-1, x->quiet, 2));
  if (rc == PROFDB_EXIT_OK && ex_export(db, o, res))
    rc = res->retryable ? EX_EXIT_RETRY : PROFDB_EXIT_USAGE;
  progress_stop();
  sqlite3_close(db);
  return rc;
}

int cli_export(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--format") && !strcmp(argv[i + 1], "chrome"))
      return cli_export_chrome(argc, argv);
    else if (!strcmp(argv[i], "--format") && !strcmp(argv[i + 1], "memory_viz"))
      return cli_export_memviz(argc, argv);
  ex_options o = {0};
  const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
  const char **only = calloc((size_t)argc + 1, sizeof *only);
  if (!inputs || !only) ld_oom();
  o.only = only;
  ex_args x = {.inputs = inputs, .only = only};
  char *listed = NULL;
  int rc = parse_args(argc, argv, &o, &x);
  if (rc) {
    free(inputs);
    free(only);
    return rc > 0 ? PROFDB_EXIT_OK : PROFDB_EXIT_USAGE;
  }
  if (!o.nonly) o.only = NULL;
  rc = task_input(&x, &listed);
  if (rc == PROFDB_EXIT_OK && !x.n) {
    fprintf(stderr, "profdb: export: nothing to export\n\n%s", export_usage);
    rc = PROFDB_EXIT_USAGE;
  }
  if (rc != PROFDB_EXIT_OK) {
    free(listed);
    free(inputs);
    free(only);
    return rc;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int load_rc = PROFDB_EXIT_OK;
  ex_result res = {0};
  int runs_before = count_runs(o.dir);
  rc = export_inputs(&o, &x, &res, &load_rc);
  remove_tmp();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc == PROFDB_EXIT_OK && (res.warnings || load_rc == PROFDB_EXIT_TRUNCATED))
    rc = PROFDB_EXIT_TRUNCATED;
  if (!x.quiet && !x.skipped && (rc == PROFDB_EXIT_OK || rc == PROFDB_EXIT_TRUNCATED))
    fprintf(stderr, "profdb: export: %s: %lld files, %lld rows, %.1f MB in %.2f s%s\n", o.dir,
            (long long)res.files, (long long)res.rows, res.bytes / 1e6,
            (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
            rc == PROFDB_EXIT_TRUNCATED ? " (with warnings)" : "");
  if (!o.run && !x.skipped && (rc == PROFDB_EXIT_OK || rc == PROFDB_EXIT_TRUNCATED))
    warn_runs(o.dir, runs_before);
  free(listed);
  free(inputs);
  free(only);
  return rc;
}
