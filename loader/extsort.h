/*
** extsort.h — external merge sort of fixed-size records in bounded memory
** (internal; the nesting and flow keys of nest.c and flows.c, the
** _slice_tree rows of postpass.c).
**
**   ld_extsort *s = extsort_new(sizeof(rec), cmp, 32 << 20);
**   for (...) extsort_add(s, &rec);
**   extsort_finish(s);
**   for (const rec *r; (r = extsort_next(s)); ) ...
**   extsort_free(s);
**
** Records are gathered in a buffer of at most mem_bytes; a full buffer is
** ordered (merged when it holds at most 8 ascending runs, radix-sorted
** with extsort_int_key, else qsorted) and written to an unnamed temporary
** file as a run; the runs are
** then merged with a heap (every 64 runs are first merged into one, so
** few files are open).  Memory stays at mem_bytes plus a small read
** buffer per run, whatever the number of records.  Equal records keep no
** particular order: make the comparator total.
*/
#ifndef PROFDB_EXTSORT_H
#define PROFDB_EXTSORT_H

#include <stddef.h>

typedef struct ld_extsort ld_extsort;

ld_extsort *extsort_new(size_t rec_size, int (*cmp)(const void *, const void *),
                        size_t mem_bytes);
/* 0, or -1 when a run cannot be written (errno tells why). */
int extsort_add(ld_extsort *s, const void *rec);
/* extsort_add of a record given as len bytes, at any alignment (records
** that travel in the writer's batches: a writer_sink).  -1 also when len
** is not the record size. */
int extsort_add_bytes(void *s, const void *bytes, size_t len);
/* The records are ordered by the int64 at offset (the comparator says the
** same): a full buffer is then radix-sorted by it, not qsorted.  Call
** before the first extsort_add. */
void extsort_int_key(ld_extsort *s, size_t offset);
int extsort_finish(ld_extsort *s);
/* The next record in order, NULL at the end (or on a read error:
** extsort_failed then says so).  Valid until the next call. */
const void *extsort_next(ld_extsort *s);
int extsort_failed(const ld_extsort *s);
void extsort_free(ld_extsort *s);

#endif
