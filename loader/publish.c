/*
** publish.c — every file profdb writes, published atomically; the
** temporaries a signal removes; the sweep of what SIGKILL left (see
** publish.h).
**
** Requirements
**   1. Never a predictable name: a temporary is mkstemp's, created
**      exclusively, so nothing planted at its name is followed or
**      overwritten; nothing is ever opened for writing at a name someone
**      else could have chosen, but the final name a user gave.
**   2. A reader sees the old file or the new one: data and name on disk
**      (fsync of the file, rename, fsync of the folder) before success.
**   3. Nothing left behind on a failure, a signal or running out of
**      memory; what SIGKILL leaves is removed by the next run (a live
**      writer's temporary is flock()ed, so a sweep skips it).
*/
#include "publish.h"

#include "oom.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the registry: what a signal removes ----------------------------------
** A list the handler walks (async-signal-safe: unlink and rmdir only).  An
** entry is complete before one pointer store links it in, and unlinked by
** one store before it is freed: a handler interrupting either sees a valid
** list. */
struct pub_reg {
  struct pub_reg *volatile next;
  int how; /* PUB_KEEP_FILE, PUB_KEEP_DIR or PUB_KEEP_IF_EMPTY */
  int fd;  /* a lock file's descriptor, closed when forgotten; -1 */
  char path[];
};

static struct pub_reg *volatile registry;
static const int caught[3] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction previous[3];
static int installed;

static void remove_registered(void) {
  struct stat st;
  for (struct pub_reg *r = registry; r; r = r->next) /* a folder's files first */
    if (r->how == PUB_KEEP_FILE ||
        (r->how == PUB_KEEP_IF_EMPTY && stat(r->path, &st) == 0 && st.st_size == 0))
      unlink(r->path);
  for (struct pub_reg *r = registry; r; r = r->next)
    if (r->how == PUB_KEEP_DIR) rmdir(r->path);
}

static void on_signal(int sig) {
  remove_registered();
  for (int i = 0; i < 3; i++)
    if (caught[i] == sig) sigaction(sig, &previous[i], NULL);
  raise(sig); /* the previous handler's, once this one returns */
}

/* The handlers are ours only while the registry holds something. */
static void set_handlers(int on) {
  if (on == installed) return;
  if (on) {
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaction(caught[i], &sa, &previous[i]);
    ld_oom_cleanup(remove_registered);
  } else
    for (int i = 0; i < 3; i++) sigaction(caught[i], &previous[i], NULL);
  installed = on;
}

/* A file or folder made and then registered: the caught signals wait
** (this thread) until both are done, so none finds it made but unknown.
** A pending signal is delivered at release_signals(), to the handler. */
static void hold_signals(sigset_t *previous_mask) {
  sigset_t mask;
  sigemptyset(&mask);
  for (int i = 0; i < 3; i++) sigaddset(&mask, caught[i]);
  pthread_sigmask(SIG_BLOCK, &mask, previous_mask);
}

static void release_signals(const sigset_t *previous_mask) {
  pthread_sigmask(SIG_SETMASK, previous_mask, NULL);
}

struct pub_reg *pub_keep(const char *path, int how) {
  size_t n = strlen(path) + 1;
  struct pub_reg *r = malloc(sizeof *r + n);
  if (!r) return NULL;
  memcpy(r->path, path, n);
  r->how = how;
  r->fd = -1;
  r->next = registry;
  registry = r;
  set_handlers(1);
  return r;
}

void pub_forget(struct pub_reg *r) {
  if (!r) return;
  for (struct pub_reg *volatile *p = &registry; *p; p = &(*p)->next)
    if (*p == r) {
      *p = r->next;
      break;
    }
  if (r->fd >= 0) close(r->fd);
  free(r);
  if (!registry) set_handlers(0);
}

/* ---- publishing ------------------------------------------------------------- */

/* The temporary for path: ".NAME.profdb-XXXXXX" in its folder. */
static char *temp_name(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (tmp) snprintf(tmp, n, "%.*s.%s.profdb-XXXXXX", (int)dir, path, path + dir);
  return tmp;
}

/* PUB_USER: a link's target; 1 when path is to be written directly (a
** device, a pipe, a link to no file yet), with *st of what is there. */
static int user_target(const char *path, char **real, struct stat *st, int *exists) {
  struct stat lst;
  *real = NULL;
  if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && !(*real = realpath(path, NULL)))
    return 1; /* a link to a file not made yet: created through the link */
  *exists = stat(*real ? *real : path, st) == 0;
  return *exists && !S_ISREG(st->st_mode);
}

int pub_open(pub_file *p, const char *path, int flags) {
  struct stat st;
  char *real = NULL;
  int exists = 0, direct = 0;
  memset(p, 0, sizeof *p);
  p->fd = -1;
  if (flags & PUB_USER)
    direct = user_target(path, &real, &st, &exists);
  else
    exists = stat(path, &st) == 0 && S_ISREG(st.st_mode);
  p->path = real ? real : strdup(path);
  if (!p->path) {
    errno = ENOMEM;
    return -1;
  }
  if (direct) {
    p->fd = open(p->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } else if ((p->tmp = temp_name(p->path))) {
    sigset_t held;
    hold_signals(&held); /* no signal between the file and its registration */
    if ((p->fd = mkostemp(p->tmp, O_CLOEXEC)) >= 0) p->reg = pub_keep(p->tmp, PUB_KEEP_FILE);
    release_signals(&held);
    if (p->fd >= 0) {
      mode_t mask = umask(0);
      umask(mask);
      /* The mode of the file replaced, else a new file's: not fatal. */
      if (fchmod(p->fd, exists ? st.st_mode & 07777 : 0666 & ~mask)) {}
      flock(p->fd, LOCK_EX); /* alive: pub_remove_temps() leaves it */
    }
  } else
    errno = ENOMEM;
  if (p->fd < 0) {
    int e = errno;
    free(p->path);
    free(p->tmp);
    memset(p, 0, sizeof *p);
    p->fd = -1;
    errno = e;
    return -1;
  }
  return 0;
}

FILE *pub_stream(pub_file *p) {
  if (!p->f && p->fd >= 0 && (p->f = fdopen(p->fd, "wb"))) setvbuf(p->f, NULL, _IOFBF, 1 << 20);
  return p->f;
}

/* Everything written on disk (a device or pipe: flushed only). */
static int sync_file(pub_file *p) {
  if (p->f && fflush(p->f)) return -1;
  if (p->f && ferror(p->f)) {
    errno = EIO;
    return -1;
  }
  return p->tmp && fsync(p->fd) ? -1 : 0;
}

static int close_file(pub_file *p) {
  int rc = p->f ? fclose(p->f) : p->fd >= 0 ? close(p->fd) : 0;
  p->f = NULL;
  p->fd = -1;
  return rc;
}

static void release(pub_file *p) {
  pub_forget(p->reg);
  free(p->path);
  free(p->tmp);
  memset(p, 0, sizeof *p);
  p->fd = -1;
}

int pub_finish(pub_file *p) {
  int rc = sync_file(p), e = errno;
  if (close_file(p) && rc == 0) {
    rc = -1;
    e = errno;
  }
  errno = e;
  return rc;
}

/* fsync the folder holding path: the rename on disk. */
static int sync_folder(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc = 0;
  /* Some file systems cannot sync a folder (EINVAL): nothing to wait for. */
  if (fd < 0 || (fsync(fd) && errno != EINVAL && errno != EROFS)) rc = -1;
  int e = errno;
  if (fd >= 0) close(fd);
  free(dir);
  errno = e;
  return rc;
}

int pub_rename(pub_file *p) {
  int rc = 0;
  if (p->tmp && rename(p->tmp, p->path)) {
    pub_abort(p);
    return -1;
  }
  if (p->tmp && sync_folder(p->path)) rc = -1;
  int e = errno;
  close_file(p); /* the data is on disk: the lock held until published */
  release(p);
  errno = e;
  return rc;
}

int pub_commit(pub_file *p) {
  if (sync_file(p)) {
    pub_abort(p);
    return -1;
  }
  return pub_rename(p);
}

void pub_abort(pub_file *p) {
  int e = errno;
  close_file(p);
  if (p->tmp) unlink(p->tmp);
  release(p);
  errno = e;
}

/* ---- leftovers --------------------------------------------------------------- */

int pub_is_temp(const char *s, const char *name) {
  size_t n = strlen(name);
  if (s[0] != '.' || strncmp(s + 1, name, n) || s[n + 1] != '.') return 0;
  const char *t = s + n + 2, *end = t;
  if (!strncmp(t, "profdb-", 7)) {
    for (t += 7, end = t; *end && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789",
                                         *end);
         end++) {}
    return end - t == 6 && !*end;
  }
  while (*end >= '0' && *end <= '9') end++; /* ".NAME.<pid>.tmp" */
  return end != t && !strcmp(end, ".tmp");
}

/* Remove the entry name of the folder dfd when it is this user's and no
** live writer holds it: a regular file whose flock we get (an older
** profdb's ".NAME.<pid>.tmp", never locked, only when that process is
** gone), or a link planted at such a name (the link itself, never its
** target).  Never a folder, another user's file, or one we cannot open. */
static void remove_unheld(int dfd, const char *name) {
  struct stat st;
  if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || st.st_uid != geteuid()) return;
  if (S_ISLNK(st.st_mode)) {
    unlinkat(dfd, name, 0);
    return;
  }
  int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  const char *dot = strrchr(name, '.');
  long pid = 0;
  if (dot && !strcmp(dot, ".tmp")) { /* ".NAME.<pid>.tmp": the digits before ".tmp" */
    const char *p = dot;
    while (p > name && p[-1] >= '0' && p[-1] <= '9') p--;
    pid = strtol(p, NULL, 10);
  }
  /* this process never writes such names (in a container every run may
  ** have its pid) */
  int live = pid > 0 && pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !live && !flock(fd, LOCK_EX | LOCK_NB))
    unlinkat(dfd, name, 0);
  close(fd);
}

void pub_remove_temps(const char *dir, const char *name) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)))
    if (pub_is_temp(e->d_name, name)) remove_unheld(dirfd(d), e->d_name);
  closedir(d);
}

/* ---- temporary folders ----------------------------------------------------- */

/* A folder without a lock file (killed between mkdtemp and the lock, or
** made by an older profdb) counts as stale after this long. */
#define STALE_UNLOCKED_S 3600

/* Remove the folder path and the files in it, never following a link: the
** folder opened O_NOFOLLOW, its entries unlinked through it. */
static void remove_tree(const char *path) {
  int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(dfd, e->d_name, 0) &&
        errno == EISDIR)
      unlinkat(dfd, e->d_name, AT_REMOVEDIR); /* only when empty */
  closedir(d);
  rmdir(path);
}

/* 1 when the folder path (of this user) belongs to no live process: its
** pid (-1: not in its name) is gone and its lock is free; without a lock
** file, the pid gone or the folder an hour old. */
static int stale(const char *path, long pid, const struct stat *st) {
  if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) return 0;
  char lock[4200];
  snprintf(lock, sizeof lock, "%s/lock", path);
  int fd = open(lock, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT && (pid > 0 || time(NULL) - st->st_mtime > STALE_UNLOCKED_S);
  int free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd); /* releases it again */
  return free_lock;
}

/* The pid of "PREFIX-<pid>-XXXXXX" (> 0), -1 for "PREFIX-XXXXXX", 0 for
** another name. */
static long folder_pid(const char *name, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n) || name[n] != '-') return 0;
  const char *s = name + n + 1;
  char *end;
  long pid = strtol(s, &end, 10);
  if (end != s && *s >= '0' && *s <= '9' && *end == '-' && strlen(end + 1) == 6) return pid;
  return strlen(s) == 6 && !strchr(s, '-') ? -1 : 0;
}

void pub_sweep(const char *tmp, const char *prefix) {
  DIR *d = opendir(tmp);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    long pid = folder_pid(e->d_name, prefix);
    char path[4096];
    struct stat st;
    if (!pid || snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) >= (int)sizeof path)
      continue;
    if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    if (stale(path, pid, &st)) remove_tree(path);
  }
  closedir(d);
}

int pub_tmpdir(const char *prefix, char *out, size_t n) {
  const char *t = getenv("TMPDIR");
  t = t && *t ? t : "/tmp";
  pub_sweep(t, prefix);
  if (snprintf(out, n, "%s/%s-%ld-XXXXXX", t, prefix, (long)getpid()) >= (int)n) {
    errno = ENAMETOOLONG;
    return -1;
  }
  sigset_t held;
  hold_signals(&held); /* no signal between the folder and its registration */
  int made = mkdtemp(out) != NULL;
  if (made) pub_keep(out, PUB_KEEP_DIR);
  release_signals(&held);
  if (!made) return -1;
  char lock[4200];
  snprintf(lock, sizeof lock, "%s/lock", out);
  struct pub_reg *r = pub_keep(lock, PUB_KEEP_FILE);
  int fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) flock(fd, LOCK_EX); /* held until pub_tmpdir_remove() */
  if (r)
    r->fd = fd;
  else if (fd >= 0)
    close(fd);
  return 0;
}

void pub_tmpdir_remove(const char *dir) {
  /* Removed while still registered: a signal meanwhile finishes the job. */
  remove_tree(dir);
  size_t n = strlen(dir);
  for (struct pub_reg *r = registry, *next; r; r = next) {
    next = r->next;
    if (!strncmp(r->path, dir, n) && (!r->path[n] || r->path[n] == '/')) pub_forget(r);
  }
}

/* ---- reading ------------------------------------------------------------------ */

int ld_open_regular(const char *path, int flags) {
  int fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EINVAL;
    return -2;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

FILE *ld_fopen_regular(const char *path, const char **why) {
  int fd = ld_open_regular(path, O_RDONLY);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (!f) *why = fd == -2 ? "not a regular file (a FIFO, device or folder)" : strerror(errno);
  if (!f && fd >= 0) close(fd);
  return f;
}
