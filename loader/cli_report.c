/*
** cli_report.c — `profdb report`: run the canned SQL report.
**
**   profdb report run1.db                           Markdown to stdout
**   profdb report run1.db --md r.md --json r.json   files (+ SVG next to r.md)
**   profdb report run1.db --section gpu_kernel_sum --top 30
**   profdb report trace.json.gz memory_snapshot.json   load into a temporary
**                                                      database, then report
**
** The sections are the files listed in queries/report.list; the runner
** binds :top, :include_warmup, :gpu_bytes, :trace_id, :snapshot_id.
*/
#include "cli.h"
#include "report.h"

#include "profdb/profdb.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char report_usage[] =
  "usage: profdb report DB | INPUT... [options]\n"
  "\n"
  "Write the resource report of a profdb database (or of traces and memory\n"
  "snapshots, loaded into a temporary database first): findings first, then\n"
  "one section per file of queries/report.list.  Markdown goes to stdout\n"
  "unless --md is given.\n"
  "\n"
  "options:\n"
  "  --md FILE          write Markdown to FILE, and SVG charts next to it\n"
  "  --json FILE        write JSON to FILE ('-' for stdout)\n"
  "  --section ID       only this section (repeatable): an ID of queries/report.list,\n"
  "                     or 'findings'\n"
  "  --top N            rows of the top-N tables (default 15)\n"
  "  --include-warmup   analyse the first ProfilerStep too (default: excluded)\n"
  "  --gpu-gb X         device memory in GB (1e9 bytes), for OOM risk; default:\n"
  "                     the trace's deviceProperties\n"
  "  --trace ID         only this trace (default: all)\n"
  "  --snapshot ID      only this snapshot (default: all)\n"
  "  --queries DIR      query files to use (default: installed, else source tree)\n";

static int is_sqlite_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char head[16] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return n == 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

/* "label: steps 3-7 analysed (5), step 2 excluded as warm-up; ..." */
static char *scope_note(sqlite3 *db) {
  sqlite3_stmt *st;
  ld_buf b = {0};
  const char *sql =
      "SELECT w.label, w.steps, w.warmup_excluded,"
      " (SELECT min(step) FROM report_step s WHERE s.trace_id = w.trace_id),"
      " (SELECT max(step) FROM report_step s WHERE s.trace_id = w.trace_id),"
      " (SELECT group_concat(step, ', ') FROM report_step_all s WHERE s.trace_id = w.trace_id"
      "   AND s.warmup AND NOT s.empty),"
      " (SELECT group_concat(step, ', ') FROM report_step_all s WHERE s.trace_id = w.trace_id"
      "   AND s.empty), w.all_steps"
      " FROM report_window w ORDER BY w.rank, w.trace_id";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    char line[1024];
    const char *label = (const char *)sqlite3_column_text(st, 0);
    int steps = sqlite3_column_int(st, 1), excluded = sqlite3_column_int(st, 2);
    const char *warm = (const char *)sqlite3_column_text(st, 5);
    const char *empty = (const char *)sqlite3_column_text(st, 6);
    int n = 0;
    if (sqlite3_column_int(st, 7) == 0)
      n = snprintf(line, sizeof line, "%s: no ProfilerStep ranges, the whole trace is analysed", label);
    else if (steps == 0)
      n = snprintf(line, sizeof line, "%s: no step analysed", label);
    else
      n = snprintf(line, sizeof line, "%s: steps %d-%d analysed (%d)", label,
                   sqlite3_column_int(st, 3), sqlite3_column_int(st, 4), steps);
    if (excluded && warm && n < (int)sizeof line)
      n += snprintf(line + n, sizeof line - (size_t)n, ", step %s excluded as warm-up", warm);
    if (empty && n < (int)sizeof line)
      snprintf(line + n, sizeof line - (size_t)n,
               ", step %s skipped (no time of its own: cut short while earlier GPU work ran)", empty);
    if (b.n) ld_buf_put(&b, "; ", 2);
    ld_buf_put(&b, line, strlen(line));
  }
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, "SELECT s.label, group_concat(d.device, ', ') FROM report_mem_device d"
                         " JOIN snapshot s USING (snapshot_id) GROUP BY d.snapshot_id"
                         " ORDER BY d.snapshot_id", -1, &st, NULL) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      char line[512];
      snprintf(line, sizeof line, "snapshot %s: device(s) %s",
               (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
      if (b.n) ld_buf_put(&b, "; ", 2);
      ld_buf_put(&b, line, strlen(line));
    }
    sqlite3_finalize(st);
  }
  if (!b.n) return NULL;
  ld_buf_cstr(&b);
  return b.p;
}

/* Remove the temporary directory and what the load left in it (the
** database, and a journal if the load failed). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* Render with a writer into memory, then write the file atomically. */
static int write_md(rp_report *r, const char *path, const char *const *charts, int n) {
  char *data = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&data, &size);
  if (!m) return -1;
  rp_write_markdown(r, m, charts, n);
  fclose(m);
  int rc = rp_write_file(path, data, size);
  free(data);
  return rc;
}

static int write_json(rp_report *r, const char *path) {
  if (!strcmp(path, "-")) {
    rp_write_json(r, stdout);
    return 0;
  }
  char *data = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&data, &size);
  if (!m) return -1;
  rp_write_json(r, m);
  fclose(m);
  int rc = rp_write_file(path, data, size);
  free(data);
  return rc;
}

int cli_report(int argc, char **argv) {
  const char *md = NULL, *json = NULL, *queries = NULL;
  const char **only = calloc((size_t)argc + 1, sizeof *only);
  const char **pos = calloc((size_t)argc + 1, sizeof *pos);
  int nonly = 0, npos = 0, rc = PROFDB_EXIT_USAGE;
  long long top = 15, trace_id = -1, snapshot_id = -1;
  int include_warmup = 0;
  double gpu_gb = -1;
  char tmpdir[4096] = "", tmpdb[4200] = "";
  sqlite3 *db = NULL;
  rp_report r = {0};
  if (!only || !pos) goto done;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    char *end = NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(report_usage, stdout);
      rc = PROFDB_EXIT_OK;
      goto done;
    } else if (!strcmp(a, "--md") && more) md = argv[++i];
    else if (!strcmp(a, "--json") && more) json = argv[++i];
    else if (!strcmp(a, "--section") && more) only[nonly++] = argv[++i];
    else if (!strcmp(a, "--queries") && more) queries = argv[++i];
    else if (!strcmp(a, "--include-warmup")) include_warmup = 1;
    else if (!strcmp(a, "--top") && more) {
      top = strtoll(argv[++i], &end, 10);
      if (*end || top < 1) goto bad;
    } else if (!strcmp(a, "--trace") && more) {
      trace_id = strtoll(argv[++i], &end, 10);
      if (*end || trace_id < 1) goto bad;
    } else if (!strcmp(a, "--snapshot") && more) {
      snapshot_id = strtoll(argv[++i], &end, 10);
      if (*end || snapshot_id < 1) goto bad;
    } else if (!strcmp(a, "--gpu-gb") && more) {
      gpu_gb = strtod(argv[++i], &end);
      if (*end || !(gpu_gb > 0)) goto bad;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: report: unknown option '%s'\n", a);
      goto bad;
    } else pos[npos++] = a;
  }
  if (npos == 0) goto bad;
  const char *qdir = rp_find_queries(queries);
  if (!qdir) {
    fprintf(stderr, "profdb: report: cannot find the query files%s%s; give --queries DIR\n",
            queries ? " in " : "", queries ? queries : "");
    goto done;
  }
  const char *db_path = pos[0];
  if (npos > 1 || !is_sqlite_file(pos[0])) {
    /* Inputs: load them into a temporary database. */
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/profdb-report-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
      fprintf(stderr, "profdb: report: cannot create a temporary directory: %s\n", strerror(errno));
      tmpdir[0] = 0;
      goto done;
    }
    snprintf(tmpdb, sizeof tmpdb, "%s/report.db", tmpdir);
    profdb_load_options opt = {.quiet = 1};
    int lrc = profdb_load(tmpdb, pos, npos, &opt);
    if (lrc != PROFDB_EXIT_OK && lrc != PROFDB_EXIT_TRUNCATED) {
      rc = lrc;
      goto done;
    }
    db_path = tmpdb;
  }
  db = cli_open_db(db_path, 1);
  if (!db) goto done;
  if (cli_check_schema(db, db_path)) {
    rc = PROFDB_EXIT_DATA;
    goto done;
  }
  rp_param params[] = {
      {"top", SQLITE_INTEGER, top, 0},
      {"include_warmup", SQLITE_INTEGER, include_warmup, 0},
      {"gpu_bytes", gpu_gb > 0 ? SQLITE_INTEGER : SQLITE_NULL, (long long)(gpu_gb * 1e9), 0},
      {"trace_id", trace_id > 0 ? SQLITE_INTEGER : SQLITE_NULL, trace_id, 0},
      {"snapshot_id", snapshot_id > 0 ? SQLITE_INTEGER : SQLITE_NULL, snapshot_id, 0},
  };
  r.db = db;
  r.queries_dir = qdir;
  r.params = params;
  r.nparams = (int)(sizeof params / sizeof params[0]);
  r.inputs = (char **)pos;
  r.ninputs = npos;
  /* --section findings asks for the findings; other --section options
  ** leave them out. */
  int all_sections = nonly == 0;
  r.with_findings = all_sections;
  for (int k = 0; k < nonly; k++)
    if (!strcmp(only[k], "findings")) {
      r.with_findings = 1;
      only[k--] = only[--nonly];
    }
  if ((all_sections || nonly > 0) && rp_load_sections(&r, only, nonly)) goto done;
  if (rp_run(&r)) goto done;
  r.scope_note = scope_note(db);
  rc = PROFDB_EXIT_OK;
  if (md) {
    char names[16][256];
    const char *charts[16];
    int n = rp_write_charts(&r, md, names, 16);
    if (n < 0) { rc = PROFDB_EXIT_USAGE; goto done; }
    for (int i = 0; i < n; i++) charts[i] = names[i];
    if (write_md(&r, md, charts, n)) rc = PROFDB_EXIT_USAGE;
  } else if (!json || strcmp(json, "-")) {
    rp_write_markdown(&r, stdout, NULL, 0);
  }
  if (json && write_json(&r, json)) rc = PROFDB_EXIT_USAGE;
  goto done;
bad:
  fputs(report_usage, stderr);
  rc = PROFDB_EXIT_USAGE;
done:
  rp_free(&r);
  if (db) sqlite3_close(db);
  if (tmpdir[0]) remove_dir(tmpdir);
  free(only);
  free(pos);
  return rc;
}
