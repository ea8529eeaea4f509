/*
** cp_rows.c — the rows of a span for the critical path's functions
** (profdb_critical_path, profdb_critical_path_sum, profdb_replay,
** profdb_replay_each: their rows are described in critical_path.c's
** header): each row read and checked (cp_step), kept in the span, and the
** span made ready for its graph (cp_span_prepare: the what-ifs by kind
** made per event, the threads left out dropped).  The graph and the
** walks: critical_path.c, replay.c (cp_graph.h).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "cp_graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const cp_type_name[] = {"operator", "dependency", "launch", "kernel_kernel",
                                    "sync"};

int cp_grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 1;
  size_t c = *cap ? *cap * 2 : 1024;
  void *q = c < ((size_t)-1) / size ? realloc(*p, c * size) : NULL;
  if (!q) return 0;
  *p = q, *cap = c;
  return 1;
}

static int key_of(sqlite3_value *v, key *k) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: k->sort_class = KEY_NULL; return 1;
    case SQLITE_INTEGER:
      k->sort_class = KEY_NUMBER, k->is_int = 1, k->ival = sqlite3_value_int64(v);
      k->num = (double)k->ival;
      return 1;
    case SQLITE_FLOAT: k->sort_class = KEY_NUMBER, k->num = sqlite3_value_double(v); return 1;
    default: {
      const char *t = (const char *)sqlite3_value_text(v);
      k->sort_class = KEY_TEXT;
      k->text = strdup(t ? t : "");
      return k->text != NULL;
    }
  }
}

int cp_key_cmp(const key *a, const key *b) {
  if (a->sort_class != b->sort_class) return a->sort_class < b->sort_class ? -1 : 1;
  if (a->sort_class == KEY_NUMBER && a->is_int && b->is_int)
    return a->ival < b->ival ? -1 : a->ival > b->ival;
  if (a->sort_class == KEY_NUMBER) return a->num < b->num ? -1 : a->num > b->num;
  if (a->sort_class == KEY_TEXT) return strcmp(a->text, b->text);
  return 0;
}

void cp_span_free(span *s) {
  for (size_t i = 0; i < s->nev; i++)
    free(s->ev[i].pid.text), free(s->ev[i].tid.text), free(s->ev[i].domain.text);
  for (size_t i = 0; i < s->nscen; i++) free(s->scen[i]);
  for (size_t i = 0; i < s->nkinds; i++) free(s->kinds[i]);
  for (size_t i = 0; i < s->nks; i++) free(s->ks[i].scen_text);
  for (size_t i = 0; i < s->nidle; i++) free(s->idle[i].text);
  free(s->scen), free(s->kinds), free(s->ks), free(s->idle), free(s->idle_kinds);
  free(s->ev), free(s->ge), free(s->sc), free(s->wt);
}

/* The error msg, after "NAME(): " (the function's name, its user data);
** msg NULL: out of memory. */
void cp_result_error(sqlite3_context *ctx, const char *msg) {
  char *text =
      msg ? sqlite3_mprintf("%s(): %s", (const char *)sqlite3_user_data(ctx), msg) : NULL;
  if (text)
    sqlite3_result_error(ctx, text, -1);
  else
    sqlite3_result_error_nomem(ctx);
  sqlite3_free(text);
}

static void fail(sqlite3_context *ctx, span *s, const char *msg) {
  cp_result_error(ctx, msg);
  s->failed = 1;
}

static int is_int(sqlite3_value *v) {
  return sqlite3_value_numeric_type(v) == SQLITE_INTEGER;
}

/* An edge type's index in type_name, or -1. */
static int edge_type(sqlite3_value *v) {
  const char *type = (const char *)sqlite3_value_text(v);
  for (int i = 0; type && i < 5; i++)
    if (!strcmp(type, cp_type_name[i])) return i;
  return -1;
}

/* An event's kind K as 1 + its index in s->kinds, each text once (a span
** has a few kinds and many events); 0 for NULL, -1 on failure. */
static int kind_of(sqlite3_context *ctx, span *s, sqlite3_value *v) {
  const char *text = (const char *)sqlite3_value_text(v);
  if (sqlite3_value_type(v) == SQLITE_NULL) return 0;
  if (!text) return fail(ctx, s, NULL), -1;
  /* (rows come grouped by kind: the last one found first) */
  if (s->last_kind && !strcmp(s->kinds[s->last_kind - 1], text)) return s->last_kind;
  for (size_t i = s->nkinds; i-- > 0;)
    if (!strcmp(s->kinds[i], text)) return s->last_kind = (int)i + 1;
  if (s->nkinds >= 4096) return fail(ctx, s, "more than 4096 kinds"), -1;
  char *copy = strdup(text);
  if (!copy || !cp_grow((void **)&s->kinds, &s->capkinds, s->nkinds, sizeof *s->kinds)) {
    free(copy);
    return fail(ctx, s, NULL), -1;
  }
  s->kinds[s->nkinds++] = copy;
  return s->last_kind = (int)s->nkinds;
}

/* ROW 'ev'. */
/* Whether e is on a thread left out (ROW 'idle'). */
static int is_idle(const span *s, const event *e) {
  for (size_t i = 0; !e->gpu && i < s->nidle; i += 2)
    if (!cp_key_cmp(&e->pid, &s->idle[i]) && !cp_key_cmp(&e->tid, &s->idle[i + 1])) return 1;
  return 0;
}

/* Kind k (0: none) noted as one a left-out thread's event has; 0: out of
** memory. */
static int note_idle_kind(span *s, int k) {
  for (size_t i = 0; k && i < s->nidle_kinds; i++)
    if (s->idle_kinds[i] == k) return 1;
  if (!k) return 1;
  if (!cp_grow((void **)&s->idle_kinds, &s->capidle_kinds, s->nidle_kinds,
               sizeof *s->idle_kinds))
    return 0;
  s->idle_kinds[s->nidle_kinds++] = k;
  return 1;
}

/* ROW 'ev'.  The event of a thread left out by an earlier 'idle' row is
** not kept (nor counted toward CP_MAX_EVENTS): only its kinds, which name
** scenarios (cp_span_prepare drops those whose 'idle' row came later). */
static void add_event(sqlite3_context *ctx, span *s, int argc, sqlite3_value **argv) {
  if (!is_int(argv[1]) || !is_int(argv[2]) || !is_int(argv[3])) {
    fail(ctx, s, "an event's id, start and end must be integers");
    return;
  }
  event ev, *e = &ev;
  memset(e, 0, sizeof *e);
  e->id = sqlite3_value_int64(argv[1]);
  e->ts = sqlite3_value_int64(argv[2]);
  e->end = sqlite3_value_int64(argv[3]);
  i64 dur;
  if (__builtin_sub_overflow(e->end, e->ts, &dur)) {
    fail(ctx, s, "an event's duration passes 64 bits");
    return;
  }
  e->gpu = sqlite3_value_int(argv[4]) != 0;
  e->lock = sqlite3_value_int(argv[7]) != 0;
  e->blocking = sqlite3_value_int(argv[8]) != 0;
  e->has_parent = sqlite3_value_type(argv[9]) != SQLITE_NULL;
  e->parent = sqlite3_value_int64(argv[9]);
  if (argc > 12 && strcmp((const char *)sqlite3_user_data(ctx), "profdb_critical_path_sum")) {
    /* profdb_replay, profdb_replay_each: its two kinds */
    if ((e->kind = kind_of(ctx, s, argv[11])) < 0 ||
        (e->whatif = kind_of(ctx, s, argv[12])) < 0)
      return;
  } else if (argc > 12) { /* profdb_critical_path_sum: its kind and name */
    if ((e->kind = kind_of(ctx, s, argv[11])) < 0) return;
    if (sqlite3_value_type(argv[12]) != SQLITE_NULL && !is_int(argv[12])) {
      fail(ctx, s, "an event's name must be an integer or NULL");
      return;
    }
    e->has_name = sqlite3_value_type(argv[12]) != SQLITE_NULL;
    e->name_id = sqlite3_value_int64(argv[12]);
  }
  int ok = key_of(argv[5], &e->pid) && key_of(argv[6], &e->tid) && key_of(argv[10], &e->domain);
  int left_out = ok && is_idle(s, e);
  if (left_out) ok = note_idle_kind(s, e->kind) && note_idle_kind(s, e->whatif);
  if (ok && !left_out && s->nev >= CP_MAX_EVENTS) s->too_big = 1;
  if (ok && !left_out && !s->too_big &&
      cp_grow((void **)&s->ev, &s->capev, s->nev, sizeof *s->ev)) {
    s->ev[s->nev++] = *e;
    return;
  }
  free(e->pid.text), free(e->tid.text), free(e->domain.text);
  if (!ok || (!left_out && !s->too_big)) fail(ctx, s, NULL);
}

/* ROW 'edge'. */
static void add_given(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  for (int i = 1; i <= 8; i++)
    if (!is_int(argv[i])) {
      fail(ctx, s, "an edge's times, ids and weight must be integers");
      return;
    }
  int t = edge_type(argv[9]);
  if (t < 0) {
    fail(ctx, s, "unknown edge type");
    return;
  }
  if (!cp_grow((void **)&s->ge, &s->capge, s->nge, sizeof *s->ge)) {
    fail(ctx, s, NULL);
    return;
  }
  given *g = &s->ge[s->nge++];
  g->t = sqlite3_value_int64(argv[1]);
  g->o = sqlite3_value_int64(argv[2]);
  g->sub = sqlite3_value_int64(argv[3]);
  g->src = sqlite3_value_int64(argv[4]);
  g->src_end = sqlite3_value_int(argv[5]) != 0;
  g->dst = sqlite3_value_int64(argv[6]);
  g->dst_end = sqlite3_value_int(argv[7]) != 0;
  g->w = sqlite3_value_int64(argv[8]);
  g->type = t;
  g->has_attr = sqlite3_value_type(argv[10]) != SQLITE_NULL;
  g->attr = sqlite3_value_int64(argv[10]);
}

/* Scenario text's name in s->scen; NULL: none yet. */
static const char *find_scenario(const span *s, const char *text) {
  for (size_t i = s->nscen; i-- > 0;)
    if (!strcmp(s->scen[i], text)) return s->scen[i];
  return NULL;
}

/* A scenario's name in s->scen, each once (a span has a few scenarios and
** many rows); NULL: out of memory. */
static const char *scenario_name(span *s, const char *text) {
  const char *known = find_scenario(s, text);
  if (known) return known;
  char *copy = strdup(text);
  if (!copy || !cp_grow((void **)&s->scen, &s->capscen, s->nscen, sizeof *s->scen)) {
    free(copy);
    return NULL;
  }
  return s->scen[s->nscen++] = copy;
}

/* A what-if's B (factor), C (edge type; -1: any) and D (its scenario's
** name; NULL: every one) of ROW 'scale' or 'scale_kind' (A checked by the
** caller: bad_a its message); 0 after fail(). */
static int scale_args(sqlite3_context *ctx, span *s, sqlite3_value **argv, int a_ok,
                      const char *bad_a, double *factor, int *type, const char **scen) {
  int num = sqlite3_value_numeric_type(argv[2]);
  *factor = sqlite3_value_double(argv[2]);
  if (!a_ok || (num != SQLITE_INTEGER && num != SQLITE_FLOAT) || !(*factor >= 0) ||
      *factor > 1e6)
    return fail(ctx, s, bad_a), 0;
  *type = sqlite3_value_type(argv[3]) == SQLITE_NULL ? -1 : edge_type(argv[3]);
  if (*type < 0 && sqlite3_value_type(argv[3]) != SQLITE_NULL)
    return fail(ctx, s, "unknown edge type"), 0;
  *scen = NULL;
  if (sqlite3_value_type(argv[4]) == SQLITE_NULL) return 1;
  if (strcmp((const char *)sqlite3_user_data(ctx), "profdb_replay_each"))
    return fail(ctx, s, "a what-if's scenario (the 5th argument) is for profdb_replay_each"), 0;
  if (!(*scen = (const char *)sqlite3_value_text(argv[4]))) return fail(ctx, s, NULL), 0;
  /* (the kinds' scenarios are named when an event has the kind: counted here) */
  if (!find_scenario(s, *scen) && s->nscen + s->nks >= CP_MAX_SCENARIOS)
    return fail(ctx, s, "more than 4096 scenarios"), 0;
  return 1;
}

/* ROW 'scale'. */
static void add_scale(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  double f;
  int t;
  const char *scen;
  if (!scale_args(ctx, s, argv, is_int(argv[1]),
                  "a what-if needs an integer event id and a factor from 0 to 1e6", &f, &t,
                  &scen))
    return;
  if (scen && !(scen = scenario_name(s, scen))) {
    fail(ctx, s, NULL);
    return;
  }
  if (!cp_grow((void **)&s->sc, &s->capsc, s->nsc, sizeof *s->sc)) {
    fail(ctx, s, NULL);
    return;
  }
  s->sc[s->nsc++] = (scale){sqlite3_value_int64(argv[1]), f, t, scen};
}

/* ROW 'scale_kind'. */
static void add_scale_kind(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  double f;
  int t, kind;
  const char *scen;
  if (s->nks >= CP_MAX_KIND_SCALES) {
    fail(ctx, s, "more than 256 what-ifs by kind");
    return;
  }
  if (!scale_args(ctx, s, argv, sqlite3_value_type(argv[1]) == SQLITE_TEXT,
                  "a what-if by kind needs a kind (text) and a factor from 0 to 1e6", &f, &t,
                  &scen) ||
      (kind = kind_of(ctx, s, argv[1])) < 0)
    return;
  char *text = scen ? strdup(scen) : NULL;
  if ((scen && !text) || !cp_grow((void **)&s->ks, &s->capks, s->nks, sizeof *s->ks)) {
    free(text);
    fail(ctx, s, NULL);
    return;
  }
  s->ks[s->nks++] = (kind_scale){kind, t, f, text, NULL};
}

/* ROW 'idle'. */
static void add_idle(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  if (s->nidle >= 2 * CP_MAX_IDLE_THREADS) {
    fail(ctx, s, "more than 256 threads left out");
    return;
  }
  if (!cp_grow((void **)&s->idle, &s->capidle, s->nidle + 1, sizeof *s->idle)) {
    fail(ctx, s, NULL);
    return;
  }
  key *k = &s->idle[s->nidle];
  memset(k, 0, 2 * sizeof *k);
  if (!key_of(argv[1], &k[0]) || !key_of(argv[2], &k[1])) {
    free(k[0].text), free(k[1].text);
    fail(ctx, s, NULL);
    return;
  }
  s->nidle += 2;
}

/* ROW 'wait'. */
static void add_wait(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  if (!is_int(argv[1]) || !is_int(argv[2])) {
    fail(ctx, s, "a wait needs two integer event ids");
    return;
  }
  if (!cp_grow((void **)&s->wt, &s->capwt, s->nwt, sizeof *s->wt)) {
    fail(ctx, s, NULL);
    return;
  }
  s->wt[s->nwt++] = (wait){sqlite3_value_int64(argv[1]), sqlite3_value_int64(argv[2])};
}

void cp_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  span *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (s->failed || s->too_big) return;
  const char *row = (const char *)sqlite3_value_text(argv[0]);
  if (row && !strcmp(row, "ev"))
    add_event(ctx, s, argc, argv);
  else if (row && !strcmp(row, "edge"))
    add_given(ctx, s, argv);
  else if (row && !strcmp(row, "scale"))
    add_scale(ctx, s, argv);
  else if (row && !strcmp(row, "scale_kind"))
    add_scale_kind(ctx, s, argv);
  else if (row && !strcmp(row, "idle"))
    add_idle(ctx, s, argv);
  else if (row && !strcmp(row, "wait"))
    add_wait(ctx, s, argv);
  else
    fail(ctx, s,
         "the 1st argument must be 'ev', 'edge', 'scale', 'scale_kind', 'idle' or 'wait'");
}

/* The 'scale_kind' rows made 'scale' rows, one per event of the kind (or of
** its second kind); each such kind's scenario named, and so those of the
** kinds the left-out threads' events had (s->idle_kinds).  Once: the rows
** are emptied.  0: out of memory. */
static int expand_kind_scales(span *s) {
  for (size_t k = 0; k < s->nks; k++)
    for (size_t i = 0; s->ks[k].scen_text && !s->ks[k].scen && i < s->nidle_kinds; i++)
      if (s->idle_kinds[i] == s->ks[k].kind &&
          !(s->ks[k].scen = scenario_name(s, s->ks[k].scen_text)))
        return 0;
  for (size_t i = 0; s->nks && !s->too_big && i < s->nev; i++) {
    const event *e = &s->ev[i];
    if (!e->kind && !e->whatif) continue;
    for (size_t k = 0; k < s->nks; k++) {
      kind_scale *ks = &s->ks[k];
      if (ks->kind != e->kind && ks->kind != e->whatif) continue;
      if (ks->scen_text && !ks->scen && !(ks->scen = scenario_name(s, ks->scen_text))) return 0;
      if (s->nsc >= CP_MAX_KIND_SCALED) { /* (rows by kind multiply: bounded) */
        s->too_big = 1;
        break;
      }
      if (!cp_grow((void **)&s->sc, &s->capsc, s->nsc, sizeof *s->sc)) return 0;
      s->sc[s->nsc++] = (scale){e->id, ks->factor, ks->type, ks->scen};
    }
  }
  for (size_t k = 0; k < s->nks; k++) free(s->ks[k].scen_text);
  s->nks = 0;
  return 1;
}

int cp_span_prepare(span *s) {
  /* the events kept before their thread's 'idle' row came: dropped as
  ** add_event drops those after it, their kinds noted */
  size_t kept = 0;
  int ok = 1;
  for (size_t i = 0; s->nidle && i < s->nev; i++) {
    event *e = &s->ev[i];
    if (!is_idle(s, e)) {
      s->ev[kept++] = *e;
      continue;
    }
    ok = ok && note_idle_kind(s, e->kind) && note_idle_kind(s, e->whatif);
    free(e->pid.text), free(e->tid.text), free(e->domain.text);
  }
  if (s->nidle) s->nev = kept;
  return ok && expand_kind_scales(s);
}
