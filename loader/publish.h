/*
** publish.h — every file profdb writes, published atomically (module
** prefix pub_; publish.c).  Used by the export (Parquet parts, summaries,
** _inputs records, chrome and memory_viz files) and the report's files.
**
**   pub_file p;
**   if (pub_open(&p, "DIR/part-0000.parquet", 0)) fail (errno);
**   FILE *f = pub_stream(&p);     or write(p.fd, ...)
**   ... write ...
**   if (pub_commit(&p)) fail (errno);  else published
**   (or pub_abort(&p): nothing published, the temporary removed)
**
** The temporary is ".NAME.profdb-XXXXXX" in NAME's folder, made by
** mkstemp (O_CREAT|O_EXCL: a fresh name, so a link or file planted there
** is never followed or overwritten; hidden, so dataset readers skip it).
** Publishing is fflush, fsync, rename over NAME, fsync of the folder: a
** reader sees the old file or the new one, never half of one, also after
** a crash.  Until then the temporary is in a registry that SIGINT,
** SIGTERM, SIGHUP and running out of memory empty (the handlers in place
** only while it holds something, the previous ones restored and called
** after).  SIGKILL leaves it: pub_is_temp() names it for the sweeps.
*/
#ifndef PROFDB_PUBLISH_H
#define PROFDB_PUBLISH_H

#include <stddef.h>
#include <stdio.h>

/* pub_open flags.  PUB_USER: a name the user gave (-o FILE, --md FILE): a
** symbolic link there has its target replaced (the link kept), and a
** device or pipe (/dev/null, /dev/stdout) is written directly, not
** replaced. */
#define PUB_USER 1

typedef struct pub_file {
  char *path;          /* the name published (malloc'd; a link's target) */
  char *tmp;           /* the temporary (malloc'd); NULL when writing directly */
  int fd;              /* open for writing; -1 once closed */
  FILE *f;             /* pub_stream()'s, or NULL */
  struct pub_reg *reg; /* its registry entry (signal cleanup) */
} pub_file;

/* Create the temporary for path (or open path itself, see PUB_USER) with
** the mode of the file it replaces, else 0666 less the umask.  0, or -1
** with errno (nothing left behind). */
int pub_open(pub_file *p, const char *path, int flags);

/* A stdio stream on p->fd (1 MiB buffer), closed by commit or abort;
** NULL (errno) when none can be made. */
FILE *pub_stream(pub_file *p);

/* Everything written on disk (fflush, fsync) and the file closed; the
** temporary stays registered until pub_rename or pub_abort (a file of
** many parts closes each and renames them all at the end).  0, or -1
** with errno. */
int pub_finish(pub_file *p);

/* Rename the finished temporary over the final name and fsync the
** folder.  0, or -1 with errno; p released either way (the temporary
** removed when the rename failed). */
int pub_rename(pub_file *p);

/* pub_finish, then pub_rename; on failure the temporary is removed and
** errno is the first error's.  0 or -1. */
int pub_commit(pub_file *p);

/* Close and remove the temporary: nothing published.  Keeps errno. */
void pub_abort(pub_file *p);

/* 1 when the file name s is a temporary of NAME: ".NAME.profdb-XXXXXX"
** (pub_open's), or ".NAME.<pid>.tmp" (profdb 0.x exports'). */
int pub_is_temp(const char *s, const char *name);

/* Remove dir's temporaries of name (pub_is_temp) that no live writer
** holds open, without following links: what killed runs left.  Best
** effort. */
void pub_remove_temps(const char *dir, const char *name);

/* ---- temporary folders in $TMPDIR ---------------------------------------
** pub_tmpdir(): sweep the stale folders of PREFIX in the temporary folder
** ($TMPDIR, else /tmp), then create "PREFIX-<pid>-XXXXXX" there (mkdtemp)
** holding "lock", flock()ed while this process lives, and register it:
** a signal or pub_tmpdir_remove() removes it and what is in it.  The
** folder's path in out; 0, or -1 with errno.
** pub_sweep(): remove the folders "PREFIX-<pid>-XXXXXX" of this user whose
** process is gone (kill(pid, 0): ESRCH) and whose lock is free, and the
** older "PREFIX-XXXXXX" unlocked for an hour; never following a link. */
int pub_tmpdir(const char *prefix, char *out, size_t n);
void pub_tmpdir_remove(const char *dir);
void pub_sweep(const char *tmp, const char *prefix);

/* ---- the signal cleanup: profdb's one registry -------------------------
** Register path in the cleanup that SIGINT, SIGTERM, SIGHUP and running
** out of memory (oom.h) run: how says what it removes; a folder's files go
** before it.  Every file profdb removes on a signal is registered here (the
** temporaries above, a load's temporary database and the empty file it
** created, a report's temporary folder): this is the only code that
** installs signal handlers, and it puts back the previous ones once the
** registry is empty, and calls them after its cleanup.  pub_forget()
** takes an entry out (NULL: nothing).  NULL when memory is short (then not
** registered). */
enum {
  PUB_KEEP_FILE,    /* unlinked */
  PUB_KEEP_DIR,     /* removed once empty */
  PUB_KEEP_IF_EMPTY /* unlinked when it holds 0 bytes (a placeholder) */
};
struct pub_reg *pub_keep(const char *path, int how);
void pub_forget(struct pub_reg *r);

/* Open a file profdb reads that could be a FIFO, a device or a folder:
** O_NONBLOCK while opening (a FIFO without a writer does not block),
** fstat, O_NONBLOCK cleared.  flags: open()'s (O_RDONLY, O_NOFOLLOW ...;
** O_CLOEXEC added).  The descriptor; -1 when open() fails (errno); -2
** when path is not a regular file (closed; errno EINVAL). */
int ld_open_regular(const char *path, int flags);

/* fopen(path, "rb") through ld_open_regular(); NULL with *why the reason
** ("not a regular file (a FIFO, device or folder)" or strerror). */
FILE *ld_fopen_regular(const char *path, const char **why);

#endif
