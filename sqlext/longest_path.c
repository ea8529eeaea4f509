/*
** longest_path.c — the longest path through a directed acyclic graph (the
** critical path, queries/lib/60_critical_path.sql).
**
** SQL Function: profdb_longest_path(SRC, DST, WEIGHT, EDGE)      aggregate
**   The rows are the graph's edges: SRC -> DST (INTEGER node ids), WEIGHT
**   (INTEGER, ns) and EDGE (INTEGER, unique per edge: its id, whose order
**   is the order the edges were added).  Returns the edges of a longest
**   path as a JSON array of EDGE values, first edge first ('[]' when every
**   weight is 0 or less, NULL for no rows).  A path may start at any node;
**   a prefix of negative length is dropped, as networkx's
**   dag_longest_path (which HolisticTraceAnalysis uses) drops it.
**
**     SELECT value FROM json_each((SELECT profdb_longest_path(src, dst, w, id)
**                                   FROM edge));
**
**   Ties are broken as networkx's dag_longest_path breaks them, so that the
**   edges equal HTA's: nodes are visited in topological order by
**   generations (Kahn's algorithm, first-in first-out, starting from the
**   nodes without predecessors in node id order, successors in EDGE
**   order); a node takes the first predecessor (in EDGE order) of largest
**   distance; the path ends at the first node, in that order, of largest
**   distance.
**
** Errors: an argument that is not an integer; a cycle ("the graph has a
** cycle"); out of memory.  Memory: 32 bytes per edge and 40 per node.
**
** Flags: INNOCUOUS (aggregates are not marked DETERMINISTIC).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"
#include "longest_path.h"

#include <stdlib.h>
#include <string.h>

typedef lp_edge edge;

typedef struct graph {
  edge *e;
  size_t n, cap;
  int failed;
} graph;

static int cmp_edge_id(const void *a, const void *b) {
  sqlite3_int64 x = ((const edge *)a)->id, y = ((const edge *)b)->id;
  return x < y ? -1 : x > y;
}
static int cmp_int64(const void *a, const void *b) {
  sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
  return x < y ? -1 : x > y;
}

static void lp_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  graph *g = sqlite3_aggregate_context(ctx, sizeof *g);
  if (!g) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (g->failed) return;
  for (int i = 0; i < 4; i++)
    if (sqlite3_value_numeric_type(argv[i]) != SQLITE_INTEGER) {
      char *msg = sqlite3_mprintf("profdb_longest_path(): %s argument must be an integer",
                                  profdb_ext_ordinal(i + 1));
      sqlite3_result_error(ctx, msg ? msg : "profdb_longest_path(): bad argument", -1);
      sqlite3_free(msg);
      g->failed = 1;
      return;
    }
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 256;
    edge *e = cap < ((size_t)-1) / sizeof *e ? realloc(g->e, cap * sizeof *e) : NULL;
    if (!e) {
      sqlite3_result_error_nomem(ctx);
      g->failed = 1;
      return;
    }
    g->e = e;
    g->cap = cap;
  }
  edge *e = &g->e[g->n++];
  e->src = sqlite3_value_int64(argv[0]);
  e->dst = sqlite3_value_int64(argv[1]);
  e->w = sqlite3_value_int64(argv[2]);
  e->id = sqlite3_value_int64(argv[3]);
}

/* Dense index of node id v in the sorted unique ids. */
static size_t node_of(const sqlite3_int64 *ids, size_t n, sqlite3_int64 v) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The working arrays of one computation: out- and in-edges as compressed
** rows (edge indexes), the topological order, distances and predecessors. */
typedef struct work {
  sqlite3_int64 *ids, *dist;
  size_t nn, *src, *dst, *out_at, *out, *in_at, *in, *order, *deg;
  long long *pred; /* edge index into the node, -1 at a path's start */
} work;

static void work_free(work *w) {
  free(w->ids), free(w->dist), free(w->src), free(w->dst), free(w->out_at), free(w->out);
  free(w->in_at), free(w->in), free(w->order), free(w->deg), free(w->pred);
}

/* Nodes and compressed adjacency of g's edges (sorted by id). 0 on no memory. */
static int build(const graph *g, work *w, size_t dense) {
  size_t m = g->n, nn = dense;
  w->src = malloc(m * sizeof *w->src), w->dst = malloc(m * sizeof *w->dst);
  w->out = malloc(m * sizeof *w->out), w->in = malloc(m * sizeof *w->in);
  if (!w->src || !w->dst || !w->out || !w->in) return 0;
  if (!dense) { /* the nodes: the edges' ids, sorted and unique */
    w->ids = malloc(2 * m * sizeof *w->ids);
    if (!w->ids) return 0;
    for (size_t i = 0; i < m; i++) w->ids[2 * i] = g->e[i].src, w->ids[2 * i + 1] = g->e[i].dst;
    qsort(w->ids, 2 * m, sizeof *w->ids, cmp_int64);
    for (size_t i = 0; i < 2 * m; i++)
      if (!nn || w->ids[nn - 1] != w->ids[i]) w->ids[nn++] = w->ids[i];
  }
  w->nn = nn;
  w->out_at = calloc(nn + 1, sizeof *w->out_at), w->in_at = calloc(nn + 1, sizeof *w->in_at);
  w->order = malloc(nn * sizeof *w->order), w->deg = calloc(nn, sizeof *w->deg);
  w->dist = calloc(nn, sizeof *w->dist), w->pred = malloc(nn * sizeof *w->pred);
  if (!w->out_at || !w->in_at || !w->order || !w->deg || !w->dist || !w->pred) return 0;
  for (size_t i = 0; i < m; i++) {
    if (dense)
      w->src[i] = (size_t)g->e[i].src, w->dst[i] = (size_t)g->e[i].dst;
    else
      w->src[i] = node_of(w->ids, nn, g->e[i].src),
      w->dst[i] = node_of(w->ids, nn, g->e[i].dst);
    w->out_at[w->src[i] + 1]++, w->in_at[w->dst[i] + 1]++;
  }
  for (size_t v = 0; v < nn; v++)
    w->out_at[v + 1] += w->out_at[v], w->in_at[v + 1] += w->in_at[v];
  /* fill in edge order (deg as the running cursor), then reset deg */
  for (size_t i = 0; i < m; i++) w->out[w->out_at[w->src[i]] + w->deg[w->src[i]]++] = i;
  memset(w->deg, 0, nn * sizeof *w->deg);
  for (size_t i = 0; i < m; i++) w->in[w->in_at[w->dst[i]] + w->deg[w->dst[i]]++] = i;
  return 1;
}

/* Kahn's algorithm, first in first out; returns the number of nodes ordered
** (fewer than nn when there is a cycle). */
static size_t topo(work *w) {
  size_t head = 0, tail = 0;
  for (size_t v = 0; v < w->nn; v++) {
    w->deg[v] = w->in_at[v + 1] - w->in_at[v];
    if (!w->deg[v]) w->order[tail++] = v;
  }
  while (head < tail) {
    size_t v = w->order[head++];
    for (size_t k = w->out_at[v]; k < w->out_at[v + 1]; k++)
      if (!--w->deg[w->dst[w->out[k]]]) w->order[tail++] = w->dst[w->out[k]];
  }
  return tail;
}

/* Distances in topological order; returns the path's last node, *overflow
** set when a distance would pass 64 bits (weights near 2^63: never ns). */
static size_t longest(work *w, const graph *g, int *overflow) {
  size_t best = w->nn ? w->order[0] : 0;
  for (size_t i = 0; i < w->nn; i++) {
    size_t v = w->order[i];
    w->pred[v] = -1;
    w->dist[v] = 0;
    int any = 0;
    sqlite3_int64 d = 0;
    long long p = -1;
    for (size_t k = w->in_at[v]; k < w->in_at[v + 1]; k++) {
      size_t e = w->in[k];
      sqlite3_int64 c;
      if (__builtin_add_overflow(w->dist[w->src[e]], g->e[e].w, &c)) {
        *overflow = 1;
        return best;
      }
      if (!any || c > d) d = c, p = (long long)e, any = 1;
    }
    if (any && d >= 0) w->dist[v] = d, w->pred[v] = p;
    if (w->dist[v] > w->dist[best]) best = v;
  }
  return best;
}

int lp_solve(const lp_edge *e, size_t n, size_t **path, size_t *len) {
  return lp_solve_dense(e, n, 0, path, len);
}

int lp_solve_dense(const lp_edge *e, size_t n, size_t nodes, size_t **path, size_t *len) {
  graph g = {.e = (lp_edge *)e, .n = n};
  work w;
  memset(&w, 0, sizeof w);
  *path = NULL, *len = 0;
  int rc = LP_OK;
  if (!n) return LP_OK;
  if (!build(&g, &w, nodes)) {
    rc = LP_NOMEM;
  } else if (topo(&w) < w.nn) {
    rc = LP_CYCLE;
  } else {
    int overflow = 0;
    size_t v = longest(&w, &g, &overflow), k = 0;
    if (overflow) {
      rc = LP_OVERFLOW;
    } else {
      /* walk back from the end (into w.order, no longer needed), then reverse */
      for (size_t u = v; w.pred[u] >= 0; u = w.src[w.pred[u]]) w.order[k++] = (size_t)w.pred[u];
      size_t *p = malloc((k ? k : 1) * sizeof *p);
      if (!p) {
        rc = LP_NOMEM;
      } else {
        for (size_t i = 0; i < k; i++) p[i] = w.order[k - 1 - i];
        *path = p, *len = k;
      }
    }
  }
  work_free(&w);
  return rc;
}

static void lp_final(sqlite3_context *ctx) {
  graph *g = sqlite3_aggregate_context(ctx, 0);
  if (!g || g->failed || !g->n) {
    if (g) free(g->e);
    return;
  }
  qsort(g->e, g->n, sizeof *g->e, cmp_edge_id);
  size_t *path, len;
  int rc = lp_solve(g->e, g->n, &path, &len);
  if (rc == LP_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else if (rc == LP_CYCLE) {
    sqlite3_result_error(ctx, "profdb_longest_path(): the graph has a cycle", -1);
  } else if (rc == LP_OVERFLOW) {
    sqlite3_result_error(ctx, "profdb_longest_path(): a path's length passes 64 bits", -1);
  } else {
    sqlite3_str *s = sqlite3_str_new(NULL);
    sqlite3_str_appendchar(s, 1, '[');
    for (size_t i = 0; i < len; i++)
      sqlite3_str_appendf(s, "%s%lld", i ? "," : "", (long long)g->e[path[i]].id);
    sqlite3_str_appendchar(s, 1, ']');
    int n = sqlite3_str_length(s);
    char *text = sqlite3_str_finish(s);
    if (!text)
      sqlite3_result_error_nomem(ctx);
    else
      sqlite3_result_text(ctx, text, n, sqlite3_free);
  }
  free(path);
  free(g->e);
}

int profdb_longest_path_init(sqlite3 *db) {
  return sqlite3_create_function(db, "profdb_longest_path", 4, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 NULL, NULL, lp_step, lp_final);
}
