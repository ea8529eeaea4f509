/*
** cli_runner.c — what `profdb report` and `profdb diff` share: their
** common options, turning inputs into databases (loading trace and
** snapshot files into temporary ones), choosing sections, and writing the
** Markdown / JSON files.
*/
#include "cli.h"
#include "export.h"
#include "loader.h"
#include "report.h"
#include "utf8.h"
#include "progress.h"
#include "publish.h"

#include "profdb/profdb.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rp_cli_init(rp_cli *o, int argc, unsigned command) {
  memset(o, 0, sizeof *o);
  o->command = command;
  rpo_defaults(&o->opts);
  o->progress = -1;
  o->only = calloc((size_t)argc + 1, sizeof *o->only);
  return o->only ? 0 : -1;
}

/* argv[*i] as one of the command's options of report_params.c: 1 taken,
** 0 none of them, -1 not valid (said). */
static int report_option(rp_cli *o, int argc, char **argv, int *i) {
  int id = rpo_find_flag(argv[*i], o->command);
  char why[600];
  if (id < 0) return 0;
  if (rpo_table[id].type == RPO_FLAG) {
    o->opts.i[id] = o->opts.set[id] = 1;
    return 1;
  }
  if (*i + 1 >= argc) {
    fprintf(stderr, "profdb: %s needs a value\n", argv[*i]);
    return -1;
  }
  if (rpo_parse(&o->opts, id, argv[*i + 1], why, sizeof why)) {
    fprintf(stderr, "profdb: %s: %s %s\n", o->command == RPO_DIFF ? "diff" : "report", argv[*i],
            why);
    return -1;
  }
  ++*i;
  return 1;
}

int rp_cli_option(rp_cli *o, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  int more = *i + 1 < argc;
  static const char *const with_value[] = {"--md",      "--json", "--html", "--section",
                                           "--queries", "--csv",  "--run",  NULL};
  for (const char *const *w = with_value; *w && !more; w++)
    if (!strcmp(a, *w)) {
      fprintf(stderr, "profdb: %s needs a value\n", a);
      return -1;
    }
  int taken = report_option(o, argc, argv, i);
  if (taken) return taken;
  if (!strcmp(a, "--md") && more)
    o->md = argv[++*i];
  else if (!strcmp(a, "--json") && more)
    o->json = argv[++*i];
  else if (!strcmp(a, "--html") && more)
    o->html = argv[++*i];
  else if (!strcmp(a, "--csv") && more)
    o->csv = argv[++*i];
  else if (!strcmp(a, "--list"))
    o->list = 1;
  else if (!strcmp(a, "--section") && more)
    o->only[o->nonly++] = argv[++*i];
  else if (!strcmp(a, "--queries") && more)
    o->queries = argv[++*i];
  else if (!strcmp(a, "--run") && more) {
    if (o->nrun == (o->command == RPO_DIFF ? 2 : 1)) {
      fprintf(stderr, "profdb: --run: given %s\n",
              o->command == RPO_DIFF ? "more than twice (BEFORE's, AFTER's)" : "twice");
      return -1;
    }
    o->run[o->nrun++] = argv[++*i];
  } else if (!strcmp(a, "--progress"))
    o->progress = 1;
  else if (!strcmp(a, "--no-progress"))
    o->progress = 0;
  else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
    o->quiet = 1;
  else
    return 0;
  return 1;
}

static int is_sqlite_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char head[16] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return n == 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

/* A temporary folder for a database made from inputs,
** $TMPDIR/profdb-<pid>-XXXXXX (publish.h: flock()ed while this process
** lives, so that the next report removes it after a SIGKILL; removed with
** what the load leaves in it on a signal or when memory runs out), with
** the database's path in db.  0, or -1 (errno). */
static int make_tmpdir(char *dir, size_t ndir, char *db, size_t ndb) {
  const char *t = getenv("TMPDIR");
  pub_sweep(t && *t ? t : "/tmp", "profdb-export"); /* export tasks' (cli_export.c), killed */
  if (pub_tmpdir("profdb", dir, ndir)) return -1;
  static const char *const files[] = {"-journal", "-wal", "-shm", "-summary", ""};
  size_t len = strlen(dir); /* < ndir, and db is 104 bytes longer */
  memcpy(db, dir, len);
  for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
    snprintf(db + len, ndb - len, "/run.db%s", files[k]);
    pub_keep(db, PUB_KEEP_FILE);
  }
  return 0;
}

/* A file of 0 bytes: what SIGKILL during a first load into a new path
** leaves.  Not a trace, snapshot or database; say so (exit 1). */
static int is_empty_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

/* A new temporary folder's database path (rp_cli_free removes it), or NULL
** with *rc set and why printed. */
static char *tmp_database(rp_cli *o, int *rc) {
  if (o->ntmp == (int)(sizeof o->tmpdir / sizeof o->tmpdir[0])) {
    *rc = PROFDB_EXIT_USAGE;
    return NULL;
  }
  char *db = o->tmpdb[o->ntmp];
  if (make_tmpdir(o->tmpdir[o->ntmp], sizeof o->tmpdir[0], db, sizeof o->tmpdb[0])) {
    fprintf(stderr, "profdb: cannot create a temporary directory: %s\n", strerror(errno));
    *rc = PROFDB_EXIT_USAGE;
    return NULL;
  }
  o->ntmp++;
  return db;
}

/* The run --run names for side (a diff's BEFORE 0, AFTER 1): its own, else
** the one given for both; NULL without --run. */
static const char *run_of(const rp_cli *o, int side) {
  return o->nrun ? o->run[side < o->nrun ? side : 0] : NULL;
}

const char *rp_cli_database(rp_cli *o, const char *const *inputs, int n, int side, int *rc) {
  const char *run = run_of(o, side);
  if (run && n == 1 && is_sqlite_file(inputs[0])) {
    fprintf(stderr,
            "profdb: --run %s: %s is a database: --run selects a run of a dataset (profdb"
            " export), or names the run of trace files; a database's traces: --trace ID\n",
            run, inputs[0]);
    *rc = PROFDB_EXIT_USAGE;
    return NULL;
  }
  if (o->have_rank && n == 1 && (is_sqlite_file(inputs[0]) || ex_is_dataset(inputs[0]))) {
    fprintf(stderr,
            "profdb: --rank %lld: %s was loaded already, and its ranks with it: --rank"
            " names the rank of one trace file to load (profdb load FILE --rank N)\n",
            o->rank, inputs[0]);
    *rc = PROFDB_EXIT_USAGE;
    return NULL;
  }
  if (n == 1 && is_sqlite_file(inputs[0])) return inputs[0];
  size_t len0 = strlen(inputs[0]);
  struct stat st0;
  int regular0 = stat(inputs[0], &st0) == 0 && S_ISREG(st0.st_mode); /* a folder: its traces */
  if (n == 1 && len0 > 3 && !strcmp(inputs[0] + len0 - 3, ".db") && regular0 &&
      access(inputs[0], R_OK) == 0 && !is_empty_file(inputs[0])) {
    fprintf(stderr,
            "profdb: %s: not an SQLite database (damaged, or not made by profdb"
            " load)\n",
            inputs[0]);
    *rc = PROFDB_EXIT_DATA;
    return NULL;
  }
  for (int i = 0; i < n; i++)
    if (is_empty_file(inputs[i])) {
      fprintf(stderr,
              "profdb: %s: empty file: not a trace, snapshot or profdb database"
              " (an interrupted first load leaves one; load again)\n",
              inputs[i]);
      *rc = PROFDB_EXIT_DATA;
      return NULL;
    }
  char *db = tmp_database(o, rc);
  if (!db) return NULL;
  if (n == 1 && ex_is_dataset(inputs[0])) { /* profdb export's dataset: its summaries */
    progress_start(stderr, progress_mode(o->progress, o->quiet, 2));
    int traces, mrc = ex_merge_summaries(inputs[0], run, db, &traces, NULL);
    progress_stop();
    if (mrc != PROFDB_EXIT_OK) {
      *rc = mrc;
      return NULL;
    }
    return db;
  }
  /* The load of a large trace takes seconds: show it as `profdb load` does. */
  profdb_load_options opt = {.quiet = 1,
                             .progress = progress_mode(o->progress, o->quiet, 2),
                             .have_rank = o->have_rank,
                             .rank = o->rank,
                             .run = run};
  int lrc = profdb_load(db, inputs, n, &opt);
  if (lrc != PROFDB_EXIT_OK && lrc != PROFDB_EXIT_TRUNCATED) {
    *rc = lrc;
    return NULL;
  }
  return db;
}

/* One dataset's merge into a temporary database, on either thread; the
** first to fail stops the other (its error is the one said). */
typedef struct side_merge {
  const char *dir, *run;
  const char *db;
  int rc, first;      /* first: this side failed first (its exit code is said) */
  atomic_int *failed; /* shared by both sides */
} side_merge;

static void *merge_side(void *arg) {
  side_merge *m = arg;
  int traces;
  m->rc = ex_merge_summaries(m->dir, m->run, m->db, &traces, m->failed);
  if (m->rc != PROFDB_EXIT_OK) m->first = atomic_exchange(m->failed, 1) == 0;
  return NULL;
}

int rp_cli_database_pair(rp_cli *o, const char *const *pos, const char *db[2], int *rc) {
  db[0] = db[1] = NULL;
  if (o->have_rank || sysconf(_SC_NPROCESSORS_ONLN) < 2 || !ex_is_dataset(pos[0]) ||
      !ex_is_dataset(pos[1])) {
    db[0] = rp_cli_database(o, &pos[0], 1, 0, rc);
    if (db[0]) db[1] = rp_cli_database(o, &pos[1], 1, 1, rc);
    return db[1] ? 0 : -1;
  }
  side_merge m[2];
  atomic_int failed = 0;
  for (int side = 0; side < 2; side++) {
    m[side] = (side_merge){pos[side], run_of(o, side), tmp_database(o, rc), PROFDB_EXIT_OK,
                           0,         &failed};
    if (!m[side].db) return -1;
  }
  ld_timing(); /* (read PROFDB_TIMING before a second thread could) */
  progress_start(stderr, progress_mode(o->progress, o->quiet, 2));
  pthread_t thread;
  int threaded = pthread_create(&thread, NULL, merge_side, &m[0]) == 0;
  if (!threaded) merge_side(&m[0]);
  merge_side(&m[1]);
  if (threaded) pthread_join(thread, NULL);
  progress_stop();
  for (int side = 0; side < 2; side++)
    if (m[side].first) {
      *rc = m[side].rc;
      return -1;
    }
  db[0] = m[0].db;
  db[1] = m[1].db;
  return 0;
}

int rp_cli_sections(rp_report *r, rp_cli *o) {
  /* --csv - writes one section to stdout (as --json -): a folder named "-"
  ** is never what was meant. */
  if (o->csv && !strcmp(o->csv, "-") && (o->nonly != 1 || (o->json && !strcmp(o->json, "-")))) {
    fprintf(stderr,
            "profdb: --csv -: %s; --csv DIR writes one SECTION.csv per section into DIR\n",
            o->nonly != 1 ? "stdout takes one section's CSV: give one --section ID"
                          : "--json - writes to stdout already");
    return -1;
  }
  /* --section SUMMARY (findings, verdict) asks for the summary; other
  ** --section options leave it out. */
  int all = o->nonly == 0;
  r->with_findings = all;
  for (int k = 0; k < o->nonly; k++)
    if (!strcmp(o->only[k], r->kind->summary_key)) {
      r->with_findings = 1;
      o->only[k--] = o->only[--o->nonly];
    }
  if (!all && o->nonly == 0) return 0; /* the summary only */
  return rp_load_sections(r, o->only, o->nonly);
}

/* Render with a writer ('m'arkdown, 'j'son, 'h'tml) into memory, then
** write the file atomically, or to stdout when path is NULL.  Markdown and
** HTML go through utf8_put_visible(): names from a trace must not reach a
** terminal as escape sequences. */
static int write_to(const char *path, rp_report *r, const char *const *charts, int n,
                    int format) {
  char *data = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&data, &size);
  if (!m) return -1;
  if (format == 'j')
    rp_write_json(r, m);
  else if (format == 'h')
    rp_write_html(r, m);
  else
    rp_write_markdown(r, m, charts, n);
  fclose(m);
  /* Markdown and HTML may be printed to a terminal; JSON escapes control
  ** characters itself. */
  int raw = format == 'j';
  ld_buf visible = {0};
  if (!raw) utf8_put_visible(&visible, data, size);
  const char *text = raw ? data : visible.p;
  size_t len = raw ? size : visible.n;
  int rc =
      path ? rp_write_file(path, text, len) : (fwrite(text, 1, len, stdout) == len ? 0 : -1);
  ld_buf_free(&visible);
  free(data);
  return rc;
}

int rp_cli_output(rp_report *r, rp_cli *o, int with_charts) {
  int rc = PROFDB_EXIT_OK;
  if (o->md) {
    char names[16][256];
    const char *charts[16];
    int n = with_charts ? rp_write_charts(r, o->md, names, 16) : 0;
    if (n < 0) return PROFDB_EXIT_USAGE;
    for (int i = 0; i < n; i++) charts[i] = names[i];
    if (write_to(o->md, r, charts, n, 'm')) rc = PROFDB_EXIT_USAGE;
  } else if ((!o->json || strcmp(o->json, "-")) && !o->html && !o->csv) {
    write_to(NULL, r, NULL, 0, 'm');
  }
  if (o->json) {
    if (!strcmp(o->json, "-"))
      rp_write_json(r, stdout);
    else if (write_to(o->json, r, NULL, 0, 'j'))
      rc = PROFDB_EXIT_USAGE;
  }
  if (o->html && write_to(o->html, r, NULL, 0, 'h')) rc = PROFDB_EXIT_USAGE;
  if (o->csv && !strcmp(o->csv, "-")) { /* the one section (rp_cli_sections) */
    ld_buf b = {0};
    rp_section_csv(r->nsections ? &r->sections[0] : &r->findings, &b);
    if (fwrite(b.p ? b.p : "", 1, b.n, stdout) != b.n) rc = PROFDB_EXIT_USAGE;
    ld_buf_free(&b);
  } else if (o->csv && rp_write_csv_dir(r, o->csv) < 0)
    rc = PROFDB_EXIT_USAGE;
  return rc;
}

int rp_cli_list(const rp_kind *kind, rp_cli *o) {
  rp_report r = {0};
  rp_section summary = {0};
  char path[8192];
  int rc = PROFDB_EXIT_USAGE;
  r.kind = kind;
  r.queries_dir = o->queries_dir;
  snprintf(path, sizeof path, "%s/%s", o->queries_dir, kind->summary);
  if (rp_parse_file(path, kind->summary_key, &summary) || rp_load_sections(&r, NULL, 0))
    goto done;
  int width = (int)strlen(kind->summary_key);
  for (int i = 0; i < r.nsections; i++)
    if ((int)strlen(r.sections[i].id) > width) width = (int)strlen(r.sections[i].id);
  printf("%-*s  %s\n", width, kind->summary_key, summary.title ? summary.title : "");
  for (int i = 0; i < r.nsections; i++)
    printf("%-*s  %s\n", width, r.sections[i].id,
           r.sections[i].title ? r.sections[i].title : "");
  rc = fflush(stdout) == 0 ? PROFDB_EXIT_OK : PROFDB_EXIT_USAGE;
done:
  rp_section_free(&summary);
  rp_free(&r);
  return rc;
}

int rp_cli_queries(rp_cli *o, const char *command) {
  char *looked = NULL;
  o->queries_dir = rp_find_queries(o->queries, &looked);
  if (o->queries_dir) return 0;
  fprintf(stderr,
          "profdb: %s: cannot find the query files; looked in:\n%s"
          "give --queries DIR or set PROFDB_QUERIES\n",
          command, looked ? looked : "");
  free(looked);
  return -1;
}

void rp_cli_progress(rp_cli *o, int on) {
  if (on)
    progress_start(stderr, progress_mode(o->progress, o->quiet, 2));
  else
    progress_stop();
}

void rp_cli_free(rp_cli *o) {
  for (int i = 0; i < o->ntmp; i++) pub_tmpdir_remove(o->tmpdir[i]);
  free(o->only);
  free(o->queries_dir);
}

int rp_cli_two_connections(const char *const *db_paths, int n) {
  const char *want = getenv("PROFDB_CONNECTIONS");
  if (!want || strcmp(want, "2") || sysconf(_SC_NPROCESSORS_ONLN) < 2) return 0;
  /* Each connection holds its own TEMP tables, about the size of the
  ** database: only where memory is plentiful. */
  double bytes = 0;
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (stat(db_paths[i], &st) == 0) bytes += (double)st.st_size;
  }
  double avail = (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  return avail > 4 * bytes;
}
