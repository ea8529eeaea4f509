/*
** export_chrome.c — a slice of a loaded database as a Chrome trace-event
** JSON file (see export_chrome.h).
**
**   profdb export run.db --format chrome --step 12 -o step12.json
**   profdb export run.db --format chrome --rank 3 --from +120ms --to +150ms -o w.json
**
** HOW IT WORKS
**   The traces of the database are listed by export/dataset/_traces.sql
**   (the runs and event-id ranges the Parquet export uses); those that
**   --run and --rank select go to the TEMP table _cx_trace
**   (export_chrome/_setup.sql).  _window.sql gives each its window (the
**   step's span for --step, narrowed by --from/--to) and its output pid,
**   and numbers its threads and GPU streams (_cx_thread).  header.sql
**   gives the top-level keys; meta.sql, slices.sql, gpu.sql, instants.sql
**   and flows.sql give the events, each row its ts and dur in integer ns
**   and the rest of the event as a JSON object, which is written as it
**   comes (Requirement 2).
**
** Requirements
**   1. Exact: ts and dur are written as decimal µs with every ns digit
**      ("1694128201427784.123"), so that a slice loaded back has the same
**      integer-ns times.
**   2. Flat memory: rows are streamed from SQLite to the file; nothing
**      grows with the slice.
**   3. Events are never shortened: one that crosses the window's edge is
**      kept whole, its args marked "profdb.cut".
*/
#include "export_chrome.h"

#include "export.h"
#include "buf.h"
#include "oom.h"
#include "profdb_sql.h"
#include "publish.h"
#include "script.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct ec_out {
  FILE *f;
  int64_t events;
  int first;           /* no event written yet */
  long long max_bytes; /* stop past this size (0: never) */
  int too_big;         /* stopped: past max_bytes */
} ec_out;

/* ns as decimal µs, every ns digit kept (Requirement 1). */
static void put_us(FILE *f, long long ns) {
  unsigned long long a = ns < 0 ? 0ULL - (unsigned long long)ns : (unsigned long long)ns;
  if (ns < 0) fputc('-', f);
  if (a % 1000)
    fprintf(f, "%llu.%03llu", a / 1000, a % 1000);
  else
    fprintf(f, "%llu", a / 1000);
}

int ec_parse_time(const char *s, long long *ns, int *rel) {
  *rel = 0;
  if (*s == '+') {
    *rel = 1;
    s++;
  }
  int neg = *s == '-';
  if (neg) s++;
  unsigned long long whole = 0, frac = 0;
  int fdigits = 0, digits = 0;
  for (; *s >= '0' && *s <= '9'; s++, digits++) {
    if (whole > 900000000000000000ULL / 10) return -1;
    whole = whole * 10 + (unsigned)(*s - '0');
  }
  if (*s == '.') {
    for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
      if (fdigits < 9) {
        frac = frac * 10 + (unsigned)(*s - '0');
        fdigits++;
      } else if (*s != '0') {
        return -1; /* finer than a nanosecond */
      }
    }
  }
  if (!digits) return -1;
  long long scale; /* ns per unit */
  if (!*s || !strcmp(s, "us"))
    scale = 1000;
  else if (!strcmp(s, "ns"))
    scale = 1;
  else if (!strcmp(s, "ms"))
    scale = 1000000;
  else if (!strcmp(s, "s"))
    scale = 1000000000;
  else
    return -1;
  /* frac has fdigits digits: frac * scale / 10^fdigits must be whole */
  long long p10 = 1;
  for (int i = 0; i < fdigits; i++) p10 *= 10;
  if (whole > (unsigned long long)(9000000000000000000LL / scale)) return -1;
  if (((long long)frac * scale) % p10) return -1;
  long long v = (long long)whole * scale + (long long)frac * scale / p10;
  *ns = neg ? -v : v;
  return 0;
}

int ec_parse_window_option(const char *opt, const char *v, long long *ns, int *rel, int *have) {
  if (ec_parse_time(v, ns, rel)) {
    fprintf(stderr,
            "profdb: export: %s %s: not a time (a number with ns, us, ms or s;"
            " '+' for relative)\n",
            opt, v);
    return -1;
  }
  *have = 1;
  return 0;
}

/* The binder of every query of the chrome export (script.h). */
static int bind_all(sqlite3_stmt *st, const void *arg) {
  const ec_options *o = arg;
  int i;
  if ((i = sqlite3_bind_parameter_index(st, ":step")) && o->have_step)
    sqlite3_bind_int64(st, i, o->step);
  if ((i = sqlite3_bind_parameter_index(st, ":from")) && o->have_from)
    sqlite3_bind_int64(st, i, o->from_ns);
  if ((i = sqlite3_bind_parameter_index(st, ":to")) && o->have_to)
    sqlite3_bind_int64(st, i, o->to_ns);
  if ((i = sqlite3_bind_parameter_index(st, ":from_rel"))) sqlite3_bind_int(st, i, o->from_rel);
  if ((i = sqlite3_bind_parameter_index(st, ":to_rel"))) sqlite3_bind_int(st, i, o->to_rel);
  if ((i = sqlite3_bind_parameter_index(st, ":version")))
    sqlite3_bind_int(st, i, EC_EXPORT_VERSION);
  if ((i = sqlite3_bind_parameter_index(st, ":run")) && o->run)
    sqlite3_bind_text(st, i, o->run, -1, SQLITE_STATIC);
  if ((i = sqlite3_bind_parameter_index(st, ":finding")) && o->finding)
    sqlite3_bind_text(st, i, o->finding, -1, SQLITE_STATIC);
  return 0;
}

/* Run every statement of sql.  0 or -1 (printed). */
static int exec_script(sqlite3 *db, const char *sql, const ec_options *o) {
  if (ld_run_script(db, sql, bind_all, o) == 0) return 0;
  fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
  return -1;
}

/* Fill _cx_trace with the traces --run and --rank select. */
static int select_traces(sqlite3 *db, const ec_options *o) {
  sqlite3_stmt *st, *ins;
  if (sqlite3_prepare_v2(db, profdb_export__traces, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "INSERT INTO _cx_trace(trace_id, rank, run, label, base, last)"
                         " VALUES (?, ?, ?, ?, ?, ?)",
                         -1, &ins, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *label = (const char *)sqlite3_column_text(st, 1);
    const char *run = (const char *)sqlite3_column_text(st, 2);
    long long rank = sqlite3_column_int64(st, 4); /* trace.rank, decided at load */
    if (o->run && strcmp(o->run, run)) continue;
    if (o->nranks) {
      int hit = 0;
      for (int i = 0; i < o->nranks; i++) hit |= o->ranks[i] == rank;
      if (!hit) continue;
    }
    sqlite3_bind_int64(ins, 1, sqlite3_column_int64(st, 0));
    sqlite3_bind_int64(ins, 2, rank);
    sqlite3_bind_text(ins, 3, run, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 4, label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 5, sqlite3_column_int64(st, 5));
    sqlite3_bind_int64(ins, 6, sqlite3_column_int64(st, 6));
    if (sqlite3_step(ins) != SQLITE_DONE) {
      fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
      rc = -1;
    }
    sqlite3_reset(ins);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(ins);
  return rc;
}

/* Write the rows (ts, dur, body) of one events query.  0 or -1. */
static int put_events(sqlite3 *db, ec_out *w, const char *sql, const ec_options *o) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  bind_all(st, o);
  int src;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    const char *body = (const char *)sqlite3_column_text(st, 2);
    if (!body || body[0] != '{') continue;
    fputs(w->first ? "\n" : ",\n", w->f);
    w->first = 0;
    fputc('{', w->f);
    int more = body[1] != '}';
    if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
      fputs("\"ts\":", w->f);
      put_us(w->f, sqlite3_column_int64(st, 0));
      if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
        fputs(",\"dur\":", w->f);
        put_us(w->f, sqlite3_column_int64(st, 1));
      }
      if (more) fputc(',', w->f);
    }
    fputs(body + 1, w->f);
    /* the size guard: checked every 4096 events, so it stops within ~MBs */
    if (++w->events % 4096 == 0 && w->max_bytes && ftell(w->f) > w->max_bytes) {
      w->too_big = 1;
      break;
    }
  }
  sqlite3_finalize(st);
  if (w->too_big) return -1;
  if (src != SQLITE_DONE) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

static int count_rows(sqlite3 *db, const char *sql, long long *n) {
  sqlite3_stmt *st;
  *n = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  if (sqlite3_step(st) == SQLITE_ROW) *n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return 0;
}

/* When o asks for it (longest_step, no step given): the step whose span is
** longest on the selected traces (_cx_trace) into o->step. */
static void longest_step(sqlite3 *db, ec_options *o) {
  if (!o->longest_step || o->have_step) return;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, profdb_chrome__longest_step, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    o->have_step = 1;
    o->step = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
}

int ec_select(sqlite3 *db, ec_options *o) {
  int rc = exec_script(db, profdb_chrome__setup, o);
  if (rc == 0) rc = select_traces(db, o);
  if (rc == 0) longest_step(db, o);
  return rc;
}

int ec_export(sqlite3 *db, const ec_options *o, ec_result *res) {
  memset(res, 0, sizeof *res);
  /* One read transaction: the database cannot change meanwhile. */
  sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  ec_options local = *o;
  int rc = ec_select(db, &local);
  o = &local;
  long long n = 0;
  if (rc == 0 && (count_rows(db, "SELECT count(*) FROM _cx_trace", &n) || n == 0)) {
    fprintf(stderr, "profdb: export: no trace matches --run/--rank\n");
    rc = -1;
  }
  if (rc == 0) rc = exec_script(db, profdb_chrome__window, o);
  if (rc == 0 && (count_rows(db, "SELECT count(*) FROM _cx_trace", &n) || n == 0)) {
    fprintf(stderr, "profdb: export: no selected trace has step %lld\n", o->step);
    rc = -1;
  }
  res->ranks = n;
  FILE *f = NULL;
  pub_file out = {.fd = -1}; /* -o FILE: written atomically (publish.h) */
  int to_stdout = !strcmp(o->out, "-");
  if (rc == 0) {
    f = to_stdout ? stdout : pub_open(&out, o->out, PUB_USER) ? NULL : pub_stream(&out);
    if (!f) {
      fprintf(stderr, "profdb: export: %s: %s\n", o->out, strerror(errno));
      res->retryable = ex_retryable(errno);
      if (!to_stdout) pub_abort(&out);
      rc = -1;
    }
  }
  if (rc == 0) {
    sqlite3_stmt *st;
    fputc('{', f);
    if (sqlite3_prepare_v2(db, profdb_chrome_header, -1, &st, NULL) != SQLITE_OK) {
      fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
      rc = -1;
    } else {
      bind_all(st, o);
      while (sqlite3_step(st) == SQLITE_ROW)
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
          fprintf(f, "\n\"%s\":%s,", (const char *)sqlite3_column_text(st, 0),
                  (const char *)sqlite3_column_text(st, 1));
      sqlite3_finalize(st);
    }
    fputs("\n\"traceEvents\":[", f);
    ec_out w = {f, 0, 1, to_stdout ? 0 : o->max_bytes, 0};
    const char *const queries[] = {profdb_chrome_meta, profdb_chrome_slices, profdb_chrome_gpu,
                                   profdb_chrome_instants, profdb_chrome_flows};
    for (int q = 0; rc == 0 && q < 5; q++) rc = put_events(db, &w, queries[q], o);
    fputs("\n]}\n", f);
    res->events = w.events;
    if (w.max_bytes && ftell(f) > w.max_bytes) w.too_big = 1; /* the last < 4096 events */
    if ((res->too_big = w.too_big)) {
      rc = -1;
      fprintf(stderr,
              "profdb: export: %s: the slice passes %lld MB (%lld ranks): nothing written;"
              " narrow it: fewer ranks (--max-ranks, --rank), one step (--step), a window"
              " (--from/--to), or raise --max-mb\n",
              o->out, o->max_bytes / 1000000, (long long)res->ranks);
    }
    if (fflush(f) || ferror(f)) {
      fprintf(stderr, "profdb: export: %s: %s\n", o->out, strerror(errno));
      res->retryable = ex_retryable(errno);
      rc = -1;
    }
    res->bytes = f != stdout ? ftell(f) : 0;
    if (f != stdout && rc == 0 && pub_commit(&out)) {
      fprintf(stderr, "profdb: export: %s: %s\n", o->out, strerror(errno));
      res->retryable = ex_retryable(errno);
      rc = -1;
    } else if (f != stdout && rc)
      pub_abort(&out);
  }
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  return rc;
}

int ec_selected_traces(sqlite3 *db, char ***paths, int *n, int *plain) {
  sqlite3_stmt *st;
  *paths = NULL;
  *n = 0;
  *plain = 1;
  if (sqlite3_prepare_v2(db, profdb_chrome__selected, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  int room = 0, src;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    if (*n + 1 >= room) {
      char **more = realloc(*paths, (size_t)(room = 2 * room + 8) * sizeof *more);
      if (!more) ld_oom();
      *paths = more;
    }
    if (!((*paths)[*n] = strdup((const char *)sqlite3_column_text(st, 0)))) ld_oom();
    (*paths)[++*n] = NULL;
    *plain &= sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  if (src == SQLITE_DONE) return 0;
  fprintf(stderr, "profdb: %s\n", sqlite3_errmsg(db));
  while (*n) free((*paths)[--*n]);
  free(*paths);
  *paths = NULL;
  return -1;
}

/* The step finding f names, if any (_finding.sql). */
static int finding_step(sqlite3 *db, ec_finding *f) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, profdb_chrome__finding, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":subjects"), f->subjects, -1,
                    SQLITE_STATIC);
  int src = sqlite3_step(st);
  if (src == SQLITE_ROW && !f->have_step) {
    f->have_step = 1;
    f->step = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return src == SQLITE_ROW || src == SQLITE_DONE ? 0 : -1;
}

/* The rule id as JSON text: only the characters a rule id has. */
static void put_rule(ld_buf *b, const char *rule) {
  ld_buf_put(b, "{\"rule\":\"", 9);
  for (const char *p = rule ? rule : ""; *p; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        *p == '_' || *p == '-')
      ld_buf_put(b, p, 1);
  ld_buf_put(b, "\"", 1);
}

int ec_finding_select(sqlite3 *db, ec_finding *f) {
  sqlite3_stmt *st;
  f->nranks = 0;
  f->meta = NULL;
  if (finding_step(db, f) ||
      sqlite3_prepare_v2(db, profdb_chrome__finding_ranks, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: export: --finding: %s\n", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":subjects"), f->subjects, -1,
                    SQLITE_STATIC);
  sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":rule"), f->rule, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":evidence"), f->evidence, -1,
                    SQLITE_STATIC);
  sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":max"), f->max_ranks);
  ld_buf b = {0};
  char item[96];
  int src, named = 0;
  put_rule(&b, f->rule);
  ld_buf_put(&b, ",\"shown\":[", 10);
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    long long rank = sqlite3_column_int64(st, 0);
    if (sqlite3_column_int(st, 2) && f->nranks < EC_MAX_FINDING_RANKS) {
      f->ranks[f->nranks] = rank; /* rows come shown first */
      snprintf(item, sizeof item, "%s{\"rank\":%lld,\"role\":\"%s\"}", f->nranks ? "," : "",
               rank, (const char *)sqlite3_column_text(st, 1));
      f->nranks++;
    } else
      snprintf(item, sizeof item, "%s%lld", named++ ? "," : "],\"not_shown\":[", rank);
    ld_buf_put(&b, item, strlen(item));
  }
  ld_buf_put(&b, named ? "]}" : "],\"not_shown\":[]}", named ? 2 : 17);
  sqlite3_finalize(st);
  if (src != SQLITE_DONE) {
    fprintf(stderr, "profdb: export: --finding: %s\n", sqlite3_errmsg(db));
    ld_buf_free(&b);
    return -1;
  }
  f->not_shown = named;
  if (!(f->meta = strdup(ld_buf_cstr(&b)))) ld_oom();
  ld_buf_free(&b);
  return 0;
}
