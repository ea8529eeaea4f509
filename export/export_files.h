/*
** export_files.h — what every writer of the export shares about files
** (export_files.c): folders made on the way, and which I/O failures a
** retry may cure.  The lowest floor of export/: it includes no other
** export header.
*/
#ifndef PROFDB_EXPORT_FILES_H
#define PROFDB_EXPORT_FILES_H

/* Exit code of an export that failed on an I/O error a retry may cure
** (EIO, ENOSPC, EDQUOT, ESTALE, ETIMEDOUT, ...): sysexits' EX_TEMPFAIL. */
#define EX_EXIT_RETRY 75

/* 1 when errno e is an I/O failure a retry may cure (EX_EXIT_RETRY). */
int ex_retryable(int e);

/* mkdir -p: 0, or -1 with errno. */
int ex_mkdirs(char *path);

#endif
