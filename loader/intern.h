/*
** intern.h — string interning: each distinct string gets one integer id.
**
** Trace events repeat a few thousand names millions of times (kernel names
** run to 5 KB), so tables store ids into the _string table.  The interner is
** an open-addressing hash table over an append-only arena; its memory grows
** with the number and length of *distinct* strings only.
*/
#ifndef PROFDB_INTERN_H
#define PROFDB_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct ld_intern ld_intern;

ld_intern *intern_new(void);
void intern_free(ld_intern *in);

/*
** Return the id of s[0..n).  When the string was not known, a new id is
** assigned (one more than the largest so far) and *is_new is set to 1: the
** caller must then persist (id, string).  Otherwise *is_new is 0.
*/
int64_t intern_id(ld_intern *in, const char *s, size_t n, int *is_new);

/* Register an (id, string) pair that already exists in the database. */
void intern_seed(ld_intern *in, int64_t id, const char *s, size_t n);

/* Bytes held (arena + table), for memory accounting in the benchmark. */
size_t intern_bytes(const ld_intern *in);
size_t intern_count(const ld_intern *in);

#endif
