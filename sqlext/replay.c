/*
** replay.c — the critical path's graph replayed in time (issue 44; the
** graph: critical_path.c, cp_graph.h; docs/definitions.md, "Replay").
**
** SQL Function: profdb_replay(ROW, A, B, C, D, E, F, G, H, I, J)  aggregate
**   The same rows, the same graph (its what-ifs applied; 'wait' rows are
**   not needed: a wait is read from the given edges that enter a call's
**   end from GPU work), plus an own edge for each lock-taking call whose
**   lock edges left it none.  The nodes replayed in time: a node no edge
**   enters keeps its time; any other comes at the latest of its sources'
**   replayed times plus the edge's offset (plan_build).  Returns how
**   much sooner (ns; negative: later) the span's last node comes than
**   recorded: 0 without what-ifs; NULL for no rows or a span past
**   CP_MAX_EVENTS.  Give every GPU operation an edge from its launch call
**   (0 for work queued behind its stream's previous operation, the
**   recorded delay for work after a gap the graph does not explain), or a
**   faster kernel can pull queued work before its launch.
**   docs/definitions.md, "Replay".
**
** SQL Function: profdb_replay(ROW, A, ..., J, K, L)  aggregate
**   The same, an 'ev' row also giving K and L its two kinds (texts or NULL;
**   NULL for other rows): 'scale_kind' rows scale the events of a kind
**   (critical_path.c's header; lib/63: K the kind the critical_path
**   section names, L 'fill' or 'launch').
**
** SQL Function: profdb_replay_each(ROW, A, B, C, D, E, F, G, H, I, J)  aggregate
**   profdb_replay for several what-ifs at once: each distinct D of the
**   'scale' rows (its text) is a scenario, replayed with its own rows and
**   those whose D is NULL.  Returns a JSON object, each scenario's D to its
**   shortening (ns), in D's order ('{}' without one); NULL as
**   profdb_replay.  The graph is built once: a scenario costs one replay.
**   Also with K and L, as profdb_replay.
**
** Memory: as profdb_critical_path's, plus about 40 bytes per edge.
** Errors: profdb_critical_path's, a replayed time past 64 bits.
** Flags: INNOCUOUS.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "cp_graph.h"
#include "families.h"
#include "longest_path.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What the replay needs of a graph, whatever its what-ifs: each edge's
** kind of offset and recorded gap, the edges by source and the nodes in a
** topological order (a scenario of profdb_replay_each then costs one pass
** over the edges). */
typedef struct plan {
  i64 *gap;               /* a measured edge's recorded time between its nodes */
  unsigned char *fixed;   /* 1: the edge's offset is its weight */
  unsigned char *entered; /* 1: an edge enters the node */
  size_t *first, *by_src; /* the edges by source (CSR) */
  size_t *order;          /* the nodes, each after its sources */
} plan;

static void plan_free(plan *p) {
  free(p->gap), free(p->fixed), free(p->entered), free(p->first), free(p->by_src),
      free(p->order);
}

/* Each edge's offset: how long after its source its destination comes at
** least.  The lock's 'dependency' edges and the given edges: their weight
** (fixed; the given ones are the GPU's: a run, a launch delay, a gap
** between kernels, 0 for a launch's causality or a wait on another
** stream).  A given edge from GPU work into a call's end (a host sync):
** the call's recorded time after the later of that work's end and its own
** start (its return), whatever the edge weighs (HTA's 0 included).  The
** own lock edges (the implicit ones too) and the call stacks: the recorded
** time between the nodes (so the host's gaps and its own work stay), from
** the later of the source and the work a call waited for when they enter
** its end (the wait was the work's).  The measured ones (the last three)
** lose what the what-ifs took off their weight (plan_replay).  LP_OK,
** LP_NOMEM, LP_CYCLE, or LP_OVERFLOW for times past 64 bits. */
static int plan_build(const span *s, const graph *g, plan *p) {
  size_t np = g->np, ne = g->es.n;
  memset(p, 0, sizeof *p);
  i64 *tg = malloc((np ? np : 1) * sizeof *tg);
  size_t *indeg = calloc(np ? np : 1, sizeof *indeg);
  p->gap = malloc((ne ? ne : 1) * sizeof *p->gap);
  p->fixed = malloc(ne ? ne : 1);
  p->entered = calloc(np ? np : 1, 1);
  p->first = calloc(np + 1, sizeof *p->first);
  p->by_src = malloc((ne ? ne : 1) * sizeof *p->by_src);
  p->order = malloc((np ? np : 1) * sizeof *p->order);
  int rc = LP_NOMEM;
  if (!tg || !indeg || !p->gap || !p->fixed || !p->entered || !p->first || !p->by_src ||
      !p->order)
    goto out;
  for (size_t v = 0; v < np; v++) tg[v] = INT64_MIN;
  for (size_t i = g->given0; i < g->implicit0; i++) {
    const out_edge *e = &g->es.e[i];
    if (s->ev[g->pts[e->src].e].gpu && !s->ev[g->pts[e->dst].e].gpu && g->pts[e->dst].is_end &&
        g->pts[e->src].t > tg[e->dst])
      tg[e->dst] = g->pts[e->src].t;
  }
  rc = LP_OK;
  for (size_t i = 0; rc == LP_OK && i < ne; i++) {
    const out_edge *e = &g->es.e[i];
    const event *dst = &s->ev[g->pts[e->dst].e];
    i64 from = g->pts[e->src].t, to = g->pts[e->dst].t;
    int given = i >= g->given0 && i < g->implicit0;
    int sync = given && s->ev[g->pts[e->src].e].gpu && !dst->gpu && g->pts[e->dst].is_end;
    p->fixed[i] = (given && !sync) || (i < g->stack0 && e->type == T_DEPENDENCY);
    p->gap[i] = 0;
    if (p->fixed[i]) continue;
    if (sync) /* the call's return: from the later of the work's end and its own start */
      from = from > dst->ts ? from : dst->ts;
    else if (tg[e->dst] > from) /* into a waited call's end: the wait was the work's */
      from = tg[e->dst];
    if (__builtin_sub_overflow(to, from, &p->gap[i])) rc = LP_OVERFLOW;
  }
  if (rc != LP_OK) goto out;
  for (size_t i = 0; i < ne; i++) indeg[g->es.e[i].dst]++, p->first[g->es.e[i].src + 1]++;
  for (size_t v = 0; v < np; v++) p->first[v + 1] += p->first[v];
  for (size_t v = 0; v < np; v++) p->order[v] = p->first[v]; /* (a fill cursor first) */
  for (size_t i = 0; i < ne; i++) p->by_src[p->order[g->es.e[i].src]++] = i;
  size_t head = 0, tail = 0;
  for (size_t v = 0; v < np; v++) {
    p->entered[v] = indeg[v] != 0;
    if (!indeg[v]) p->order[tail++] = v;
  }
  while (head < tail) {
    size_t u = p->order[head++];
    for (size_t k = p->first[u]; k < p->first[u + 1]; k++)
      if (--indeg[g->es.e[p->by_src[k]].dst] == 0) p->order[tail++] = g->es.e[p->by_src[k]].dst;
  }
  if (tail < np) rc = LP_CYCLE;
out:
  free(tg), free(indeg);
  return rc;
}

/* The replayed time of each node (t): a node no edge enters keeps its
** time; another comes at the latest of its sources' replayed times plus
** the edges' offsets: a fixed edge's weight, another's recorded gap less
** what the what-ifs took off its weight (g->base: the weights without
** them).  LP_OK or LP_OVERFLOW; *shortening: the span's last recorded
** node time less its last replayed one. */
static int plan_replay(const plan *p, const graph *g, i64 *t, i64 *shortening) {
  size_t np = g->np;
  for (size_t v = 0; v < np; v++) t[v] = p->entered[v] ? INT64_MIN : g->pts[v].t;
  for (size_t n = 0; n < np; n++) {
    size_t u = p->order[n];
    for (size_t k = p->first[u]; k < p->first[u + 1]; k++) {
      size_t i = p->by_src[k], v = g->es.e[i].dst;
      i64 w = g->es.e[i].w, off = w, red, c;
      if (!p->fixed[i] && (__builtin_sub_overflow(g->base[i], w, &red) ||
                           __builtin_sub_overflow(p->gap[i], red, &off)))
        return LP_OVERFLOW;
      if (__builtin_add_overflow(t[u], off, &c)) return LP_OVERFLOW;
      if (c > t[v]) t[v] = c;
    }
  }
  i64 rec = INT64_MIN, got = INT64_MIN;
  for (size_t v = 0; v < np; v++) {
    if (g->pts[v].t > rec) rec = g->pts[v].t;
    if (t[v] > got) got = t[v];
  }
  return __builtin_sub_overflow(rec, got, shortening) ? LP_OVERFLOW : LP_OK;
}

/* The span the aggregate gathered, or NULL (freed) when it has nothing to
** replay: no rows (NULL), an error already reported, past CP_MAX_EVENTS. */
static span *span_to_replay(sqlite3_context *ctx) {
  span *s = sqlite3_aggregate_context(ctx, 0);
  int nomem = s && !s->failed && !s->too_big && !cp_span_prepare(s);
  if (s && (nomem || s->failed || s->too_big || !s->nev)) {
    if (nomem) sqlite3_result_error_nomem(ctx);
    cp_span_free(s);
    return NULL;
  }
  return s;
}

static void replay_final(sqlite3_context *ctx) {
  span *s = span_to_replay(ctx);
  if (!s) return;
  graph g;
  plan p = {0};
  i64 shortening = 0, *t = NULL;
  int rc = cp_build_graph(s, &g, 1, 0, 1, 0);
  if (rc == LP_OK) rc = plan_build(s, &g, &p);
  if (rc == LP_OK && !(t = malloc((g.np ? g.np : 1) * sizeof *t))) rc = LP_NOMEM;
  if (rc == LP_OK) rc = plan_replay(&p, &g, t, &shortening);
  if (rc == LP_OK)
    sqlite3_result_int64(ctx, shortening);
  else
    cp_report_rc(ctx, rc);
  cp_graph_free(&g), plan_free(&p), free(t);
  cp_span_free(s);
}

static int cmp_scen(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An edge by the event its time is attributed to. */
typedef struct attr_edge {
  i64 attr;
  size_t edge;
} attr_edge;

static int cmp_attr_edge(const void *a, const void *b) {
  const attr_edge *x = a, *y = b;
  if (x->attr != y->attr) return x->attr < y->attr ? -1 : 1;
  return x->edge < y->edge ? -1 : x->edge > y->edge;
}

/* Sets the weights of scenario scen's what-ifs (its rows and those of
** every scenario: by event, its factors' product, rounded once, as
** profdb_replay weighs them) on the edges by_attr lists, or back to
** g->base (restore). */
static void set_scenario(const span *s, graph *g, const attr_edge *by_attr, size_t na,
                         const char *scen, int restore) {
  for (size_t r0 = 0, r1; r0 < s->nsc; r0 = r1) { /* the rows of one event */
    int mine = 0;
    for (r1 = r0; r1 < s->nsc && s->sc[r1].id == s->sc[r0].id; r1++)
      mine |= !s->sc[r1].scen || s->sc[r1].scen == scen;
    if (!mine) continue;
    size_t lo = 0, hi = na;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (by_attr[mid].attr < s->sc[r0].id)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (; lo < na && by_attr[lo].attr == s->sc[r0].id; lo++) {
      out_edge *e = &g->es.e[by_attr[lo].edge];
      double product;
      if (cp_scale_product(s, r0, e->type, scen, &product))
        e->w = restore ? g->base[by_attr[lo].edge]
                       : cp_scaled_weight(g->base[by_attr[lo].edge], product);
    }
  }
}

/* profdb_replay_each: the graph and its plan built once; per scenario its
** what-ifs set on the edges they touch, one replay, and those edges back. */
static void replay_each_final(sqlite3_context *ctx) {
  span *s = span_to_replay(ctx);
  if (!s) return;
  graph g;
  plan p = {0};
  size_t na = 0;
  i64 *t = NULL;
  attr_edge *by_attr = NULL;
  sqlite3_str *out = sqlite3_str_new(NULL);
  int rc = cp_build_graph(s, &g, 1, 0, 1, 1);
  if (rc == LP_OK) rc = plan_build(s, &g, &p);
  if (rc == LP_OK) {
    t = malloc((g.np ? g.np : 1) * sizeof *t);
    by_attr = malloc((g.es.n ? g.es.n : 1) * sizeof *by_attr);
    if (!t || !by_attr) rc = LP_NOMEM;
  }
  if (rc == LP_OK) { /* the edges by event, the distinct scenarios, in order */
    for (size_t i = 0; i < g.es.n; i++)
      if (g.es.e[i].has_attr) by_attr[na++] = (attr_edge){g.es.e[i].attr, i};
    if (na) qsort(by_attr, na, sizeof *by_attr, cmp_attr_edge);
    /* (the rows point at the names, not at their slots) */
    if (s->nscen) qsort(s->scen, s->nscen, sizeof *s->scen, cmp_scen);
    sqlite3_str_appendchar(out, 1, '{');
  }
  for (size_t k = 0; rc == LP_OK && k < s->nscen; k++) {
    i64 shortening = 0;
    set_scenario(s, &g, by_attr, na, s->scen[k], 0);
    rc = plan_replay(&p, &g, t, &shortening);
    set_scenario(s, &g, by_attr, na, s->scen[k], 1);
    if (rc != LP_OK) break;
    if (k) sqlite3_str_appendchar(out, 1, ',');
    cp_json_string(out, s->scen[k]);
    sqlite3_str_appendf(out, ":%lld", (long long)shortening);
  }
  if (rc == LP_OK) sqlite3_str_appendchar(out, 1, '}');
  int n = sqlite3_str_length(out);
  char *text = sqlite3_str_finish(out);
  if (rc == LP_OK && !text) rc = LP_NOMEM;
  if (rc == LP_OK)
    sqlite3_result_text(ctx, text, n, sqlite3_free);
  else {
    sqlite3_free(text);
    cp_report_rc(ctx, rc);
  }
  cp_graph_free(&g), plan_free(&p), free(t), free(by_attr);
  cp_span_free(s);
}

int profdb_replay_init(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int nargs = 11; rc == SQLITE_OK && nargs <= 13; nargs += 2) { /* without K, L; with */
    rc = sqlite3_create_function(db, "profdb_replay", nargs, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 (void *)"profdb_replay", NULL, cp_step, replay_final);
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function(db, "profdb_replay_each", nargs,
                                   SQLITE_UTF8 | SQLITE_INNOCUOUS, (void *)"profdb_replay_each",
                                   NULL, cp_step, replay_each_final);
  }
  return rc;
}
