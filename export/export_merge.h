/*
** export_merge.h — a dataset's summaries as one database, what
** `profdb report DIR` reads (export_merge.c).
*/
#ifndef PROFDB_EXPORT_MERGE_H
#define PROFDB_EXPORT_MERGE_H

#include <stdatomic.h>
#include <stddef.h>

/* 1 when path is a folder with a _summary folder. */
int ex_is_dataset(const char *path);

/* Every summary of the dataset dir (of run `run` only, unless NULL)
** appended into the new database db_path, ids moved past each other's;
** PROFDB_EXIT_OK (*traces: how many; a dataset of several runs merged
** whole is warned about), else after printing why PROFDB_EXIT_DATA (no
** summaries, no such run, a damaged one) or PROFDB_EXIT_USAGE (an I/O
** error).  stop: NULL, or a flag another thread sets when the merge is no
** longer wanted (profdb diff: the other side failed); the merge then ends
** before its next summary, says nothing and returns PROFDB_EXIT_DATA. */
int ex_merge_summaries(const char *dir, const char *run, const char *db_path, int *traces,
                       const atomic_int *stop);

/* The runs of the dataset dir (its _summary/run=R folders), by name, into
** *runs (malloc'd; ex_free_runs); their number, or -1 / -2 without a
** readable _summary folder. */
int ex_dataset_runs(const char *dir, char ***runs);
void ex_free_runs(char **runs, int n);
/* The runs as "A, B, ..." (at most 9 named) into text. */
void ex_runs_text(const char *dir, char *text, size_t size);

#endif
