/*
** export_merge.h — a dataset's summaries as one database, what
** `profdb report DIR` reads (export_merge.c).
*/
#ifndef PROFDB_EXPORT_MERGE_H
#define PROFDB_EXPORT_MERGE_H

/* 1 when path is a folder with a _summary folder. */
int ex_is_dataset(const char *path);

/* Every summary of the dataset dir appended into the new database db_path,
** ids moved past each other's; PROFDB_EXIT_OK (*traces: how many), else
** after printing why PROFDB_EXIT_DATA (no summaries, a damaged one) or
** PROFDB_EXIT_USAGE (an I/O error). */
int ex_merge_summaries(const char *dir, const char *db_path, int *traces);

#endif
