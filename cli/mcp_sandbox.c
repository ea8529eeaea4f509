/*
** mcp_sandbox.c — what one call of a `profdb mcp` tool may touch: paths
** inside the --allow folders only (requirement 2 of mcp_server.c), SQLite's
** memory without ending the server (requirement 6), and stderr captured
** into the call's answer.
*/
#include "mcp.h"
#include "oom.h"

#include <sqlite3.h>

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Requirement 6: SQLite's memory --------------------------------------- */

/* main.c's allocator ends the process when SQLite runs out of memory
** (ld_oom).  The server is one process for many calls: here a call that
** runs out gets SQLITE_NOMEM, answered as its error, and the next call
** runs.  Memory statistics on, for the per-call sqlite3_hard_heap_limit64
** (one call at a time: their mutex is not contended). */
static void *mem_malloc(int n) {
  return malloc((size_t)n);
}

static void mem_free(void *p) {
  free(p);
}

static void *mem_realloc(void *p, int n) {
  return realloc(p, (size_t)n);
}

static int mem_size(void *p) {
  return p ? (int)malloc_usable_size(p) : 0;
}

static int mem_roundup(int n) {
  return (n + 7) & ~7;
}

static int mem_init(void *unused) {
  (void)unused;
  return SQLITE_OK;
}

static void mem_shutdown(void *unused) {
  (void)unused;
}

/* Before any connection: sqlite3_config() is refused once SQLite runs. */
void mcp_sqlite_memory(void) {
  static const sqlite3_mem_methods methods = {mem_malloc,  mem_free, mem_realloc,  mem_size,
                                              mem_roundup, mem_init, mem_shutdown, NULL};
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1) != SQLITE_OK)
    fprintf(stderr, "profdb: mcp: SQLite already started: out of memory ends the server\n");
}

/* ---- Requirement 2: paths ---------------------------------------------- */

static int inside(const char *real, const char *dir) {
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return 1;
  return !strncmp(real, dir, n) && (real[n] == '/' || real[n] == 0);
}

/* The real path of `path` when it lies inside an allowed folder (malloc'd),
** else NULL with why in err.  must_exist 0: a database to create, whose
** folder must exist and be allowed. */
char *mcp_allowed(const mcp *m, const char *path, int must_exist, ld_buf *err) {
  char real[2 * PATH_MAX + 2];
  if (!path || !*path) {
    mcp_put_cstr(err, "a path is missing");
    return NULL;
  }
  if (!realpath(path, real)) {
    if (must_exist || errno != ENOENT) {
      mcp_put_cstr(err, path);
      mcp_put_cstr(err, ": ");
      mcp_put_cstr(err, strerror(errno));
      return NULL;
    }
    /* a new file: its folder, resolved, plus its name */
    char *folder = strdup(path), *slash = strrchr(folder, '/');
    char dir[PATH_MAX];
    const char *name = slash ? slash + 1 : path;
    if (!folder) ld_oom();
    if (slash == folder)
      folder[1] = 0; /* "/name" */
    else if (slash)
      *slash = 0;
    else
      strcpy(folder, ".");
    int ok = *name && strcmp(name, ".") && strcmp(name, "..") && realpath(folder, dir);
    if (ok) snprintf(real, sizeof real, "%s/%s", strcmp(dir, "/") ? dir : "", name);
    free(folder);
    if (!ok) {
      mcp_put_cstr(err, path);
      mcp_put_cstr(err, ": its folder does not exist");
      return NULL;
    }
  }
  for (int i = 0; i < m->nallow; i++)
    if (inside(real, m->allow[i])) return strdup(real);
  mcp_put_cstr(err, path);
  mcp_put_cstr(err, ": outside the folders this server may use (profdb mcp --allow):");
  for (int i = 0; i < m->nallow; i++) {
    mcp_put_cstr(err, " ");
    mcp_put_cstr(err, m->allow[i]);
  }
  return NULL;
}

/* ---- what the library prints on stderr, kept for the tool's result ----- */

void mcp_capture_begin(mcp_capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  c->saved = c->tmp ? dup(2) : -1;
  if (c->saved >= 0) dup2(fileno(c->tmp), 2);
}

/* Restores stderr; appends what was printed (trimmed) to msg. */
void mcp_capture_end(mcp_capture *c, ld_buf *msg) {
  fflush(stderr);
  if (c->saved >= 0) {
    dup2(c->saved, 2);
    close(c->saved);
  }
  if (!c->tmp) return;
  char chunk[4096];
  size_t n;
  rewind(c->tmp);
  size_t start = msg->n;
  while ((n = fread(chunk, 1, sizeof chunk, c->tmp)) > 0 && msg->n - start < 65536)
    ld_buf_put(msg, chunk, n);
  while (msg->n > start && (msg->p[msg->n - 1] == '\n' || msg->p[msg->n - 1] == ' ')) msg->n--;
  fclose(c->tmp);
}
