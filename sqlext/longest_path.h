/*
** longest_path.h — the longest path through a DAG, as profdb_longest_path
** computes it (longest_path.c: networkx's dag_longest_path, its ties
** included), for the other functions that build a graph in C
** (critical_path.c).
*/
#ifndef PROFDB_LONGEST_PATH_H
#define PROFDB_LONGEST_PATH_H

#include <sqlite3ext.h>
#include <stddef.h>

/* An edge: src -> dst (any integer node ids; their order is the node
** order), weight w, id (unique; its order is the order edges were added). */
typedef struct lp_edge {
  sqlite3_int64 src, dst, w, id;
} lp_edge;

enum { LP_OK = 0, LP_NOMEM, LP_CYCLE, LP_OVERFLOW };

/* The edges of a longest path of e[0..n) (sorted by id), first edge first,
** as indexes into e: *path (malloc'd; NULL when *len is 0 and n is 0).
** Returns LP_OK, LP_NOMEM, LP_CYCLE or LP_OVERFLOW (a length past 64 bits). */
int lp_solve(const lp_edge *e, size_t n, size_t **path, size_t *len);

/* The same when the node ids are 0 .. nodes - 1 (nodes > 0): no sort of the
** ids.  Nodes without an edge change nothing (they are neither on a path
** nor between two nodes in the topological order). */
int lp_solve_dense(const lp_edge *e, size_t n, size_t nodes, size_t **path, size_t *len);

#endif
