/*
** dbswap.c — the atomic update of a database file (dbswap.h).
**
** Requirement 1 (atomic): all inputs of one load go into a temporary
**   database in the same directory, written with journal_mode=OFF (fast);
**   the original changes only after every input loaded and the derived
**   tables were built, in one step:
**   - a new or empty database: the temporary one is renamed over it;
**   - one that holds artifacts (an append): the temporary one is a side
**     database, never a copy (a 1 MB trace added to a 3 GB database costs
**     about what loading it alone does).  It continues the original's ids
**     and holds a copy of its _string rows; merge_side() then moves its
**     rows into the original in one transaction of the original's own
**     rollback journal or WAL, so readers see all of the load or none, and
**     a crash leaves a hot journal that the next opener of the database
**     rolls back;
**   - one whose tables differ from this profdb's (an older schema): it is
**     copied into the temporary database first, which then replaces it.
**   A failure, a signal or SIGKILL at any point leaves the original as it
**   was, byte for byte once SQLite has opened it.
** Requirement 2 (one writer): the database file is locked with flock()
**   while loading; a second profdb load waits for the first, then loads on
**   top of its result.  Readers are not blocked by a rename: they keep
**   reading the file they opened, which rename() does not modify.  An
**   append's commit takes SQLite's write lock like any writer: in rollback
**   journal mode it waits (up to 60 s) for open read transactions to end.
** Requirement 2b (other programs): another SQLite client may have the
**   database open, even in WAL mode.  The original is read and replaced
**   through SQLite's own locks (replace_database()): a rename only while
**   holding its write lock and when no -wal file could be applied to the
**   new file; otherwise (WAL mode, an owner we cannot give the new file,
**   hard links) the new content is copied into the live file with the
**   backup API, which readers see as one commit.  A database that another
**   program changed during the load is left alone (exit 2); an append
**   checks it under the lock of its merge transaction.
**
** HOW THE MERGE WORKS (an append)
**   Before the parse, side_mark() notes each side table's max(rowid): the
**   rows up to there are copies of the original's (_string) or written by
**   the schema (_kind, _copy_kind, ...); every row the load writes has a
**   higher rowid, since ids continue the original's counters and SQLite
**   gives other rows max(rowid) + 1.  A WITHOUT ROWID table must be empty
**   then.  The merge, on the original with the side attached, inserts for
**   every side table (taken from the schema: loader/sql/merge_tables.sql)
**   the rows above its mark, column by column: the cost is the rows
**   added, plus B-tree seeks into the original's tables and indexes.
**   Tables and indexes the original lacks are created from the side's
**   definitions first (merge_missing.sql); statistics are refreshed only
**   where the append made them stale (side_analyze).
*/
#include "dbswap.h"
#include "oom.h"
#include "progress.h"
#include "sql.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a write to the original waits for other connections' locks. */
#define BUSY_WAIT_MS 60000

/* ---- locking ------------------------------------------------------------ */

/* Open (creating if needed) and lock the database file.  Retries when
** another loader replaced the file while we waited for the lock. */
static int lock_database(const char *path, FILE *out, int *created) {
  for (;;) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    *created = 0;
    if (fd < 0 && errno == ENOENT) {
      fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0 && errno == EEXIST) continue;
      *created = fd >= 0;
    }
    if (fd < 0) {
      ld_say(out, "%s: cannot open database file: %s", path, strerror(errno));
      return -1;
    }
    struct stat reg;
    if (fstat(fd, &reg) == 0 && !S_ISREG(reg.st_mode)) {
      /* The load ends with a rename over the path: never over a device. */
      ld_say(out, "%s: not a regular file; the database must be a file", path);
      close(fd);
      return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ld_say(out, "%s: another profdb load is writing this database; waiting", path);
      if (flock(fd, LOCK_EX) != 0) {
        ld_say(out, "%s: cannot lock: %s", path, strerror(errno));
        close(fd);
        return -1;
      }
    }
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev)
      return fd;
    close(fd); /* replaced meanwhile: lock the new file */
  }
}

/* Remove temporary files of loads that were killed (publish.h: those no
** live process holds; a loader also holds the database's lock for as long
** as its temporary file exists). */
static void remove_stale_temps(const char *db_path) {
  char *dup1 = strdup(db_path), *dup2 = strdup(db_path);
  if (!dup1 || !dup2) ld_oom();
  pub_remove_temps(dirname(dup1), basename(dup2));
  free(dup1);
  free(dup2);
}

/* ---- replacing the original -------------------------------------------- */

static int open_original(const char *path, ld_original *o, FILE *out) {
  if (sqlite3_open_v2(path, &o->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK) {
    ld_say(out, "%s: cannot open database: %s", path, sqlite3_errmsg(o->db));
    return -1;
  }
  sqlite3_busy_timeout(o->db, BUSY_WAIT_MS);
  return 0;
}

/* data_version of a fresh read of the original; -1 when unreadable. */
static int64_t original_version(ld_original *o) {
  if (ld_query_int(o->db, "SELECT count(*) FROM sqlite_schema", -1) < 0) return -1;
  return ld_query_int(o->db, "PRAGMA data_version", -1);
}

/* WAL mode, or a -wal file SQLite would apply to whatever file has the
** database's name: then a rename would corrupt the new file. */
static int original_uses_wal(ld_original *o, const char *path) {
  char wal[PATH_MAX + 8];
  snprintf(wal, sizeof wal, "%s-wal", path);
  sqlite3_stmt *st;
  int yes = access(wal, F_OK) == 0;
  if (sqlite3_prepare_v2(o->db, "PRAGMA main.journal_mode", -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) {
      const char *mode = (const char *)sqlite3_column_text(st, 0);
      yes |= mode && !strcmp(mode, "wal");
    }
    sqlite3_finalize(st);
  }
  return yes;
}

/* Copy the finished temporary database into the live file through
** SQLite (its locks, journal or WAL): other connections see one commit. */
static int copy_into_original(ld_original *o, const char *temp, const char *path, FILE *out) {
  sqlite3 *src;
  int rc = sqlite3_open_v2(temp, &src, SQLITE_OPEN_READONLY, NULL);
  sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(o->db, "main", src, "main") : NULL;
  if (b) {
    for (int waited_ms = 0;; waited_ms += 100) {
      rc = sqlite3_backup_step(b, -1);
      if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited_ms >= BUSY_WAIT_MS) break;
      sqlite3_sleep(100);
    }
    sqlite3_backup_finish(b);
  } else if (rc == SQLITE_OK) {
    rc = sqlite3_errcode(o->db);
  }
  sqlite3_close(src);
  if (rc != SQLITE_DONE) {
    ld_say(out, "%s: cannot write the database in place: %s", path, sqlite3_errstr(rc));
    return -1;
  }
  sqlite3_exec(o->db, "PRAGMA main.wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
  return 0;
}

/* Put the finished temporary database in the original's place: by rename
** while holding SQLite's write lock on the original (other writers wait,
** readers keep the file they opened), or by copying into the live file
** when a rename is unsafe or would lose the owner or hard links. */
static int replace_database(ld_original *o, pub_file *temp, const char *path, int in_place,
                            FILE *out) {
  static const char changed[] =
      "%s: changed by another program during the load; nothing written (load again)";
  int wal = original_uses_wal(o, path);
  if (wal || in_place) {
    if (original_version(o) != o->version) {
      ld_say(out, changed, path);
      return -1;
    }
    return copy_into_original(o, temp->tmp, path, out);
  }
  if (sqlite3_exec(o->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    ld_say(out, "%s: cannot lock the database: %s", path, sqlite3_errmsg(o->db));
    return -1;
  }
  int rc = -1;
  if (original_version(o) != o->version)
    ld_say(out, changed, path);
  else if (original_uses_wal(o, path))
    ld_say(out, changed, path);   /* switched to WAL meanwhile */
  else if (pub_rename(temp) != 0) /* with the folder synced: durable */
    ld_say(out, "%s: cannot replace: %s", path, strerror(errno));
  else
    rc = 0;
  sqlite3_exec(o->db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}


/* Copy the existing database, through the connection that watches it
** for the whole load, into the temporary one (consistent even if the
** original has a hot journal or a -wal file: SQLite applies them). */
static int copy_database(const char *from, sqlite3 *src, sqlite3 *to, FILE *out) {
  sqlite3_backup *b = sqlite3_backup_init(to, "main", src, "main");
  int rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(to);
  sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE) {
    ld_say(out, "%s: cannot read database: %s", from,
           rc == SQLITE_NOTADB ? "not an SQLite database (refusing to replace it)"
                               : sqlite3_errstr(rc));
    return -1;
  }
  return 0;
}

/* ---- moving the side database's rows ------------------------------ */

/* 1 when every table of the side database (schema just created) exists in
** the original with the same columns, so rows can move as they are. */
static int side_tables_match(sqlite3 *side, sqlite3 *original) {
  static const char columns[] =
      "SELECT group_concat(name || ' ' || type || ' ' || pk, ', ')"
      " FROM pragma_table_info(?1, 'main')";
  sqlite3_stmt *tables = NULL, *a = NULL, *b = NULL;
  int match =
      sqlite3_prepare_v2(side, profdb_sql_merge_tables, -1, &tables, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(side, columns, -1, &a, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(original, columns, -1, &b, NULL) == SQLITE_OK;
  if (match) sqlite3_bind_text(tables, 1, "main", -1, SQLITE_STATIC);
  while (match && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    sqlite3_bind_text(a, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(b, 1, name, -1, SQLITE_TRANSIENT);
    match = sqlite3_step(a) == SQLITE_ROW && sqlite3_step(b) == SQLITE_ROW &&
            sqlite3_column_type(b, 0) != SQLITE_NULL &&
            !strcmp((const char *)sqlite3_column_text(a, 0),
                    (const char *)sqlite3_column_text(b, 0));
    sqlite3_reset(a);
    sqlite3_reset(b);
  }
  sqlite3_finalize(tables);
  sqlite3_finalize(a);
  sqlite3_finalize(b);
  return match;
}

int side_mark(ld_side *s, sqlite3 *side, FILE *out) {
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(side, profdb_sql_merge_tables, -1, &tables, NULL) != SQLITE_OK) {
    fprintf(out, "profdb: database error: %s\n", sqlite3_errmsg(side));
    return -1;
  }
  sqlite3_bind_text(tables, 1, "main", -1, SQLITE_STATIC);
  int rc = 0;
  while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    int without_rowid = sqlite3_column_int(tables, 2);
    char *sql = sqlite3_mprintf(
        without_rowid ? "SELECT count(*) FROM \"%w\"" : "SELECT max(rowid) FROM \"%w\"", name);
    sqlite3_stmt *st;
    int64_t mark = -1;
    if (sql && sqlite3_prepare_v2(side, sql, -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW) mark = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    sqlite3_free(sql);
    if (mark < 0 || (without_rowid && mark > 0)) {
      /* A WITHOUT ROWID table has no mark: its rows must all be new. */
      fprintf(out, "profdb: internal error: cannot mark table %s of the side database\n", name);
      rc = -1;
      break;
    }
    s->marks = realloc(s->marks, (size_t)(s->nmarks + 1) * sizeof *s->marks);
    if (!s->marks) ld_oom();
    s->marks[s->nmarks++] = (ld_side_mark){strdup(name), mark, 0};
  }
  sqlite3_finalize(tables);
  return rc;
}

void side_replace(ld_side *s, ld_kind kind, int64_t id) {
  s->replaced = realloc(s->replaced, (size_t)(s->nreplaced + 1) * sizeof *s->replaced);
  if (!s->replaced) ld_oom();
  s->replaced[s->nreplaced++] = (ld_side_replaced){kind, id};
}

int side_replacing(const ld_side *s, ld_kind kind, int64_t id) {
  for (int i = 0; i < s->nreplaced; i++)
    if (s->replaced[i].kind == kind && s->replaced[i].id == id) return 1;
  return 0;
}

static ld_side_mark *mark_of(ld_side *s, const char *table) {
  for (int i = 0; i < s->nmarks; i++)
    if (!strcmp(s->marks[i].table, table)) return &s->marks[i];
  return NULL;
}

/* Run every row of a one-column query as a statement. */
static int run_each(sqlite3 *db, const char *query) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK) return -1;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    char *sql = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
    int ok = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_free(sql);
    if (!ok) break;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* On the original, inside the merge transaction, with the side database
** attached as "side": create the tables and indexes the side has and the
** original lacks, then insert every new side row.  Returns 0, or -1
** (sqlite3_errmsg(original) says why). */
/* The error of moving the rows of table, kept before the next statement
** clears it; a database may hold the user's own triggers on profdb's
** tables, which fire on the move: a failing one is named. */
static void say_why_moving_failed(ld_side *s, const char *table) {
  sqlite3 *db = s->original;
  snprintf(s->why, sizeof s->why, "moving rows into table %s: %s", table, sqlite3_errmsg(db));
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT group_concat(name, ', ') FROM main.sqlite_schema"
                         " WHERE type = 'trigger' AND tbl_name = ?1",
                         -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  const char *names =
      sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  if (names) {
    size_t n = strlen(s->why);
    snprintf(s->why + n, sizeof s->why - n,
             " (in a trigger of this database's own on %s: %s; fix it, or drop it with"
             " DROP TRIGGER, and load again)",
             table, names);
  }
  sqlite3_finalize(st);
}

static int side_move_rows(ld_side *s) {
  sqlite3 *db = s->original;
  if (run_each(db, profdb_sql_merge_missing)) return -1;
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(db, profdb_sql_merge_tables, -1, &tables, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(tables, 1, "side", -1, SQLITE_STATIC);
  int rc = 0;
  while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    const char *columns = (const char *)sqlite3_column_text(tables, 1);
    ld_side_mark *m = mark_of(s, name);
    if (!m) { /* created after the mark (by the post-pass): all its rows are new */
      s->marks = realloc(s->marks, (size_t)(s->nmarks + 1) * sizeof *s->marks);
      if (!s->marks) ld_oom();
      s->marks[s->nmarks] = (ld_side_mark){strdup(name), 0, 0};
      m = &s->marks[s->nmarks++];
    }
    char *sql = sqlite3_column_int(tables, 2)
                    ? sqlite3_mprintf("INSERT INTO main.\"%w\"(%s) SELECT %s FROM side.\"%w\"",
                                      name, columns, columns, name)
                    : sqlite3_mprintf(
                          "INSERT INTO main.\"%w\"(%s) SELECT %s FROM side.\"%w\""
                          " WHERE rowid > %lld ORDER BY rowid",
                          name, columns, columns, name, (long long)m->mark);
    rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (rc == 0) m->moved = sqlite3_changes64(db);
    if (rc) say_why_moving_failed(s, name);
    sqlite3_free(sql);
  }
  sqlite3_finalize(tables);
  return rc;
}

/* Refresh the original's statistics after the move: ANALYZE each table
** that grew by more than a tenth (all tables when all_tables); in the
** others' statistics, count the rows added.  Returns 0 or -1. */
static int side_analyze(ld_side *s, int all_tables) {
  sqlite3 *db = s->original;
  if (sqlite3_exec(db, "PRAGMA analysis_limit=400", NULL, NULL, NULL) != SQLITE_OK) return -1;
  sqlite3_stmt *stale = NULL, *add = NULL;
  if (all_tables ||
      sqlite3_prepare_v2(db, profdb_sql_merge_stale_stats, -1, &stale, NULL) != SQLITE_OK)
    /* Never analyzed (no sqlite_stat1), or rows removed by --replace. */
    return sqlite3_exec(db, "ANALYZE main", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
  /* Without statistics in the side (no ANALYZE there) nothing is added. */
  if (sqlite3_prepare_v2(db, profdb_sql_merge_stats_add, -1, &add, NULL) != SQLITE_OK)
    add = NULL;
  int rc = 0;
  for (int i = 0; i < s->nmarks && rc == 0; i++) {
    if (!s->marks[i].moved) continue;
    sqlite3_bind_text(stale, 1, s->marks[i].table, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stale, 2, s->marks[i].moved);
    int is_stale = sqlite3_step(stale) == SQLITE_ROW && sqlite3_column_int(stale, 0);
    sqlite3_reset(stale);
    if (!is_stale) {
      if (!add) continue;
      sqlite3_bind_text(add, 1, s->marks[i].table, -1, SQLITE_STATIC);
      rc = sqlite3_step(add) == SQLITE_DONE ? 0 : -1;
      sqlite3_reset(add);
      continue;
    }
    char *sql = sqlite3_mprintf("ANALYZE main.\"%w\"", s->marks[i].table);
    rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    sqlite3_free(sql);
  }
  sqlite3_finalize(stale);
  sqlite3_finalize(add);
  return rc;
}

static void side_free(ld_side *s) {
  for (int i = 0; i < s->nmarks; i++) free(s->marks[i].table);
  free(s->marks);
  free(s->replaced);
  s->marks = NULL;
  s->replaced = NULL;
  s->nmarks = s->nreplaced = 0;
}

/* ---- appending through a side database ------------------------------ */

/* Whether this load can go into a side database of the original:
** a profdb database of this schema version whose tables have the columns
** of the side's, just created in ctx->db.  Otherwise the original is
** copied, and the copy's load says what is wrong with it. */
static int side_possible(ld_ctx *ctx, ld_original *o, const char *side_path) {
  return ld_schema_version(o->db) == PROFDB_SCHEMA_VERSION &&
         ld_exec(ctx, profdb_sql_writer_settings) == 0 &&
         ld_prepare_schema(ctx, side_path) == 0 && side_tables_match(ctx->db, o->db);
}

/* Move the side database's rows into the original in one transaction of
** its own journal (or WAL), under its write lock, if no other program
** committed to it since the load read its ids: the schema applied as a
** copy's load would, the artifacts --replace removes deleted, the rows
** moved, the run checks made, statistics refreshed.  Other
** connections see all of it or none; a crash leaves a hot journal that
** the next opener rolls back. */
static int merge_side(ld_ctx *ctx, ld_side *side, const char *side_path, const char *db_path) {
  FILE *out = ctx->msg;
  sqlite3 *db = side->original;
  ld_ctx on = {.db = db, .existing = db, .opt = ctx->opt, .msg = out};
  sqlite3_stmt *attach;
  int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS side", -1, &attach, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(attach, 1, side_path, -1, SQLITE_STATIC);
    rc = sqlite3_step(attach) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(attach);
  }
  /* The side is only read, but BEGIN IMMEDIATE opens a write transaction
  ** on it too: with its journal and syncs off it takes no part in the
  ** commit, which stays the original's own (no super-journal). */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, "PRAGMA side.journal_mode=OFF; PRAGMA side.synchronous=OFF", NULL,
                      NULL, NULL);
  if (rc != SQLITE_OK || sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    ld_say(out, "%s: cannot lock the database: %s", db_path, sqlite3_errmsg(db));
    sqlite3_exec(db, "DETACH side", NULL, NULL, NULL);
    return -1;
  }
  int failed = 1;
  ld_original o = {.db = db};
  if (original_version(&o) != side->version) {
    ld_say(out, "%s: changed by another program during the load; nothing written (load again)",
           db_path);
    goto done;
  }
  sqlite3_exec(db, "PRAGMA cache_size=-32768", NULL, NULL, NULL);
  if (ld_prepare_schema(&on, db_path)) goto done;
  for (int i = 0; i < side->nreplaced; i++)
    if (ld_delete_artifact(&on, side->replaced[i].kind, side->replaced[i].id))
      goto database_error;
  ld_phase(ctx, "merge: schema, --replace");
  if (side_move_rows(side)) goto database_error;
  ld_phase(ctx, "merge: rows");
  if (ld_record_runs(&on, side->first_trace, side->first_snapshot) ||
      side_analyze(side, side->nreplaced > 0))
    goto database_error;
  ld_phase(ctx, "merge: runs, analyze");
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto database_error;
  failed = 0;
  goto done;
database_error : {
  int e = sqlite3_extended_errcode(db) & 0xff;
  if (e == SQLITE_FULL || e == SQLITE_IOERR)
    ld_say(out, "%s: cannot write the database (%s): nothing changed in it", db_path,
           sqlite3_errstr(e));
  else if (e == SQLITE_BUSY || e == SQLITE_LOCKED)
    ld_say(out,
           "%s: another program holds a transaction open on this database (a sqlite3 shell"
           " or a notebook inside BEGIN ... COMMIT?); the append waited %d s for it. End that"
           " transaction and load again: nothing changed in the database",
           db_path, BUSY_WAIT_MS / 1000);
  else
    ld_say(out, "%s: database error: %s", db_path,
           side->why[0] ? side->why : sqlite3_errmsg(db));
}
done:
  if (failed) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec(db, "DETACH side", NULL, NULL, NULL);
  if (!failed) sqlite3_exec(db, "PRAGMA main.wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
  ld_phase(ctx, "merge: commit");
  return failed ? -1 : 0;
}

/* Give the temporary file the original's mode, owner and group.  Returns 1
** when the owner or group cannot be given (another user's database) or the
** original has other hard links: then it is written in place. */
static int match_original(int tfd, int lock_fd, int created) {
  struct stat ost;
  mode_t mask = umask(0);
  umask(mask);
  if (created || fstat(lock_fd, &ost) != 0) {
    if (fchmod(tfd, 0666 & ~mask) != 0) { /* not fatal: the data is what matters */
    }
    return 0;
  }
  if (fchmod(tfd, ost.st_mode & 07777) != 0) { /* as above */
  }
  if (ost.st_nlink > 1) return 1;
  struct stat tst;
  if (fstat(tfd, &tst) == 0 && (tst.st_uid != ost.st_uid || tst.st_gid != ost.st_gid) &&
      fchown(tfd, ost.st_uid, ost.st_gid) != 0)
    return 1;
  return 0;
}


/* ---- begin, commit, abort ------------------------------------------------ */

ld_side *dbswap_side(ld_swap *s) {
  return s->appending ? &s->side : NULL;
}

/* The temporary database next to the target (publish.h: so that the
** rename is atomic; removed on a signal), with the original's mode and
** owner. */
static int make_temp(ld_swap *s, FILE *out) {
  if (pub_open(&s->file, s->path, 0) ||
      snprintf(s->temp, sizeof s->temp, "%s", s->file.tmp) >= (int)sizeof s->temp) {
    ld_say(out, "%s: cannot create a temporary file next to it: %s", s->path,
           strerror(s->file.fd < 0 ? errno : ENAMETOOLONG));
    pub_abort(&s->file);
    s->temp[0] = 0;
    return -1;
  }
  s->in_place = match_original(s->file.fd, s->lock_fd, s->created);
  return 0;
}

/* An empty original: load into the temporary database, rename it over.
** One with content: append through a side database (the temporary one)
** when its schema allows, else copy it first. */
static int choose_commit(ld_swap *s, ld_ctx *ctx) {
  char wal[PATH_MAX + 8];
  snprintf(wal, sizeof wal, "%s-wal", s->path);
  struct stat st;
  if ((stat(s->path, &st) == 0 && st.st_size > 0) || access(wal, F_OK) == 0) {
    if (side_possible(ctx, &s->orig, s->temp)) {
      s->appending = 1;
      s->side.original = s->orig.db;
    } else if (copy_database(s->path, s->orig.db, s->db, ctx->msg)) {
      return -1;
    }
  }
  s->orig.version = original_version(&s->orig);
  return 0;
}

int dbswap_begin(ld_swap *s, const char *path, ld_ctx *ctx) {
  FILE *out = ctx->msg;
  memset(s, 0, sizeof *s);
  s->lock_fd = -1;
  s->file.fd = -1;
  /* A symbolic link as the database: load into what it points to, and
  ** keep the link (the rename at the end would replace it). */
  struct stat lst;
  if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (!realpath(path, s->path)) {
      ld_say(out, "%s: symbolic link to a missing file: %s", path, strerror(errno));
      return -1;
    }
  } else {
    snprintf(s->path, sizeof s->path, "%s", path);
  }
  s->lock_fd = lock_database(s->path, out, &s->created);
  if (s->lock_fd < 0) return -1;
  if (s->created) s->placeholder = pub_keep(s->path, PUB_KEEP_IF_EMPTY);
  remove_stale_temps(s->path);
  if (make_temp(s, out)) goto fail;
  /* NOMUTEX: the connection is used by one thread at a time (the writer
  ** thread while batches are in flight, this one after writer_sync), so
  ** SQLite's per-call locking is pure cost: about 9% of a load. */
  if (sqlite3_open_v2(s->temp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK) {
    ld_say(out, "%s: cannot open: %s", s->temp, sqlite3_errmsg(s->db));
    goto fail;
  }
  ctx->db = s->db;
  if (open_original(s->path, &s->orig, out) || choose_commit(s, ctx)) goto fail;
  return 0;
fail:
  dbswap_abort(s, ctx);
  return -1;
}

/* A new database: the temporary one, closed and synced, put in the
** original's place (rename or copy-in). */
static int put_in_place(ld_swap *s, ld_ctx *ctx) {
  FILE *out = ctx->msg;
  int rc = sqlite3_close(s->db);
  if (rc != SQLITE_OK) {
    ld_say(out, "%s: cannot close: %s", s->temp, sqlite3_errmsg(s->db));
    return -1;
  }
  s->db = ctx->db = NULL;
  ld_phase(ctx, "commit, close");
  progress_phase("putting the database in place");
  /* Durability of the new file, then the atomic switch. */
  if (pub_finish(&s->file)) {
    ld_say(out, "%s: cannot write: %s", s->temp, strerror(errno));
    return -1;
  }
  if (replace_database(&s->orig, &s->file, s->path, s->in_place, out)) return -1;
  ld_phase(ctx, "fsync, rename");
  return 0;
}

int dbswap_commit(ld_swap *s, ld_ctx *ctx) {
  int rc;
  if (s->appending) {
    sqlite3_close(s->db); /* a side database is only read from now on */
    s->db = ctx->db = NULL;
    ld_phase(ctx, "side: close");
    rc = merge_side(ctx, &s->side, s->temp, s->path);
  } else {
    rc = put_in_place(s, ctx);
  }
  if (rc == 0) s->created = 0; /* the database is in place: keep it */
  dbswap_abort(s, ctx);        /* the temporary database is left after a
                             ** merge or a copy in place; gone after a rename */
  return rc;
}

void dbswap_abort(ld_swap *s, ld_ctx *ctx) {
  if (s->db) sqlite3_close(s->db);
  s->db = ctx->db = NULL;
  /* Before lock_fd is closed: closing any descriptor of the file drops
  ** the process's POSIX locks, SQLite's included. */
  if (s->orig.db) sqlite3_close(s->orig.db);
  s->orig.db = NULL;
  side_free(&s->side);
  pub_abort(&s->file); /* the temporary database, unless renamed */
  s->temp[0] = 0;
  if (s->created) {
    struct stat pst;
    if (stat(s->path, &pst) == 0 && pst.st_size == 0) unlink(s->path);
  }
  s->created = 0;
  pub_forget(s->placeholder);
  s->placeholder = NULL;
  if (s->lock_fd >= 0) close(s->lock_fd);
  s->lock_fd = -1;
}
