/*
** export_record.c — what a dataset already holds, so that a job-array task
** can skip an input exported before (see export.h, ex_record_*).
**
** A record is DIR/_inputs/<trace|snapshot>/run=R/rank=N.json, one per
** artifact a task exported: its content hash (trace.content_hash: XXH64
** of the decompressed bytes), on-disk size and label, the options and
** build that shaped the files (ex_options_key), and the files written
** with their sizes.  Only tasks write records: their load is this
** build's, where a database given to export DB may be another's.
**
** Requirements
**   1. A record never claims files it did not see published: every export
**      of an artifact removes the (run, rank)'s record before replacing
**      the first of its files, and a task publishes the new one after the
**      last (temporary file, fsync, rename).  A task killed in between
**      leaves no record, so its re-run exports again.
**   2. A skip is never wrong, only sometimes missed: it needs the same
**      content and label, the same options and build, the run the task
**      would write, and every recorded file present with its recorded
**      size.  Anything else (no record, an unreadable one, a file removed
**      or rewritten by another export of that rank) exports again, which
**      gives the same bytes.
**   3. Cheap when there is nothing to skip: records are matched by size
**      first, on their text; the input is read and hashed only when one
**      has its size.
**   4. Deterministic: no time, pid or path as given: a task run again
**      writes the same record.  The summary's size is not recorded (a
**      summary holds its load's time): only that it exists.
*/
#include "export_record.h"

#include "export_files.h"
#include "input.h"
#include "loader.h"
#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Records larger than this are not ours: not read. */
#define REC_MAX_BYTES (4 << 20)

/* ---- writing -------------------------------------------------------------- */

void ex_files_add(ex_files *f, const char *rel_path, int64_t bytes) {
  char item[1200];
  int n = bytes >= 0
              ? snprintf(item, sizeof item, "%s\n    {\"path\": \"%s\", \"bytes\": %lld}",
                         f->text.n ? "," : "", rel_path, (long long)bytes)
              : snprintf(item, sizeof item, "%s\n    {\"path\": \"%s\"}", f->text.n ? "," : "",
                         rel_path);
  if (n <= 0 || (size_t)n >= sizeof item) { /* paths are short: never */
    f->incomplete = 1;                      /* no record: never skipped */
    return;
  }
  ld_buf_put(&f->text, item, (size_t)n);
}

/* DIR/_inputs/KIND/run=RUN (folder) and the record's name in it. */
static char *record_folder(const char *dir, const char *kind, const char *run) {
  size_t n = strlen(dir) + strlen(kind) + strlen(run) + 32;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/_inputs/%s/run=%s", dir, kind, run);
  return s;
}

int ex_record_forget(const char *dir, const char *kind, const char *run, long long rank) {
  char *folder = record_folder(dir, kind, run), name[64];
  if (!folder) {
    errno = ENOMEM;
    return -1;
  }
  snprintf(name, sizeof name, "rank=%lld.json", rank);
  size_t n = strlen(folder) + sizeof name + 2;
  char *path = malloc(n);
  int rc = -1;
  if (path) {
    snprintf(path, n, "%s/%s", folder, name);
    rc = unlink(path) && errno != ENOENT ? -1 : 0;
  } else
    errno = ENOMEM;
  free(path);
  free(folder);
  return rc;
}

int ex_record_publish(const char *dir, const ex_record *r, ex_files *files) {
  char *folder = record_folder(dir, r->kind, r->run);
  if (!folder) {
    errno = ENOMEM;
    return -1;
  }
  size_t n = strlen(folder) + 96;
  char *final = malloc(n), name[64];
  pub_file p;
  FILE *out = NULL;
  int rc = final ? ex_mkdirs(folder) : -1;
  if (rc == 0) {
    snprintf(name, sizeof name, "rank=%lld.json", r->rank);
    snprintf(final, n, "%s/%s", folder, name);
    rc = pub_open(&p, final, 0);
    if (rc == 0 && !(out = pub_stream(&p))) {
      pub_abort(&p);
      rc = -1;
    }
  }
  if (rc == 0) {
    /* Only the label needs escaping: the rest are kinds, run names
    ** (path_safe), hex hashes, rank sources, options and paths made of
    ** table and run names.  A label that is not UTF-8 is written with
    ** U+FFFD: it never equals the file's label again, so that input is
    ** exported, not skipped. */
    ld_buf label = {0};
    ld_buf_put_json_string(&label, r->label ? r->label : "", r->label ? strlen(r->label) : 0);
    fprintf(out,
            "{\n  \"kind\": \"%s\",\n  \"run\": \"%s\",\n  \"rank\": %lld,\n"
            "  \"rank_source\": \"%s\",\n  \"run_source\": \"%s\",\n"
            "  \"content_hash\": \"%s\",\n"
            "  \"file_bytes\": %lld,\n  \"label\": %s,\n  \"options\": \"%s\",\n"
            "  \"warnings\": %lld,\n"
            "  \"files\": [%s\n  ]\n}\n",
            r->kind, r->run, r->rank, r->rank_source, r->run_source, r->content_hash,
            (long long)r->file_bytes, ld_buf_cstr(&label), r->options, (long long)r->warnings,
            files->text.n ? ld_buf_cstr(&files->text) : "");
    ld_buf_free(&label);
    rc = pub_commit(&p);
    int e = errno;
    if (rc == 0) pub_remove_temps(folder, name); /* killed runs' */
    errno = e;
  }
  free(final);
  free(folder);
  return rc;
}

/* ---- finding -------------------------------------------------------------- */

typedef struct rec_search {
  const char *dir, *input, *options;
  int run_derived; /* the run must be the one a task derives alone */
  int64_t size;    /* the input's bytes on disk */
  char hash[17];   /* its content hash, computed at the first candidate */
  int hashed;      /* 1: hash set, -1: the input cannot be read */
  sqlite3 *db;     /* in memory: json_extract over the records */
  ex_record_match *m;
} rec_search;

static char *read_small(const char *path) {
  struct stat sb;
  const char *why;
  FILE *f = ld_fopen_regular(path, &why); /* a FIFO planted there: refused */
  if (!f) return NULL;
  char *s = NULL;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size < REC_MAX_BYTES &&
      (s = malloc((size_t)sb.st_size + 1))) {
    if (fread(s, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
      free(s);
      s = NULL;
    } else
      s[sb.st_size] = 0;
  }
  fclose(f);
  return s;
}

/* Every file the record lists is there, with its size when recorded. */
static int files_present(rec_search *s, const char *json) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db,
                         "SELECT json_extract(value, '$.path'), json_extract(value, '$.bytes')"
                         " FROM json_each(?1, '$.files')",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
  int ok = 1, rows = 0;
  while (ok && sqlite3_step(st) == SQLITE_ROW) {
    const char *rel = (const char *)sqlite3_column_text(st, 0);
    struct stat sb;
    size_t n = strlen(s->dir) + (rel ? strlen(rel) : 0) + 2;
    char *path = malloc(n);
    rows++;
    if (!rel || !path || rel[0] == '/' || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
        !strcmp(rel, "..")) {
      free(path);
      ok = 0;
      break;
    }
    snprintf(path, n, "%s/%s", s->dir, rel);
    ok = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
         (sqlite3_column_type(st, 1) == SQLITE_NULL ||
          sqlite3_column_int64(st, 1) == (int64_t)sb.st_size);
    free(path);
  }
  sqlite3_finalize(st);
  return ok && rows > 0;
}

/* 1 when the record at path is of this input, options and files. */
static int record_matches(rec_search *s, const char *path) {
  char *json = read_small(path), size[48];
  /* Most records are of other sizes: found by their text as written
  ** (ex_record_publish), before any JSON is parsed. */
  snprintf(size, sizeof size, "\"file_bytes\": %lld,", (long long)s->size);
  if (!json || !strstr(json, size)) {
    free(json);
    return 0;
  }
  sqlite3_stmt *st;
  int yes = 0;
  if (sqlite3_prepare_v2(s->db,
                         "SELECT json_extract(?1, '$.file_bytes'), json_extract(?1,"
                         " '$.content_hash'), json_extract(?1, '$.options'),"
                         " json_extract(?1, '$.run'), json_extract(?1, '$.rank'),"
                         " json_extract(?1, '$.warnings'), json_extract(?1, '$.kind'),"
                         " json_extract(?1, '$.label') = ?2,"
                         " ?3 = 0 OR (json_extract(?1, '$.run_source') = 'derived' AND"
                         "  (json_extract(?1, '$.kind') = 'snapshot' OR"
                         "   json_extract(?1, '$.run') GLOB '*-1'))"
                         " WHERE json_valid(?1)",
                         -1, &st, NULL) == SQLITE_OK) {
    char label[256]; /* as load_one's: a longer name never matches */
    ld_label_from_path(s->input, label, sizeof label);
    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, s->run_derived);
    /* The label is in the files (and may give the rank): a copy of the
    ** same content under another name is another input. */
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == s->size &&
        sqlite3_column_int(st, 7) == 1 && sqlite3_column_int(st, 8) == 1 &&
        sqlite3_column_text(st, 1) && sqlite3_column_text(st, 2) &&
        sqlite3_column_text(st, 3) && sqlite3_column_text(st, 6) &&
        !strcmp((const char *)sqlite3_column_text(st, 2), s->options)) {
      if (!s->hashed) s->hashed = input_content_hash(s->input, s->hash) ? -1 : 1;
      if (s->hashed == 1 && !strcmp((const char *)sqlite3_column_text(st, 1), s->hash) &&
          files_present(s, json)) {
        yes = 1;
        snprintf(s->m->run, sizeof s->m->run, "%s", sqlite3_column_text(st, 3));
        snprintf(s->m->kind, sizeof s->m->kind, "%s", sqlite3_column_text(st, 6));
        s->m->rank = sqlite3_column_int64(st, 4);
        s->m->warnings = sqlite3_column_int64(st, 5);
      }
    }
    sqlite3_finalize(st);
  }
  free(json);
  return yes;
}

/* The published "rank=N.json" records in folder (a run's); 1 at a match. */
static int search_run(rec_search *s, const char *folder) {
  DIR *d = opendir(folder);
  if (!d) return 0;
  struct dirent *e;
  int yes = 0;
  while (!yes && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "rank=", 5) || len < 6 || strcmp(e->d_name + len - 5, ".json"))
      continue;
    size_t n = strlen(folder) + len + 2;
    char *path = malloc(n);
    if (!path) break;
    snprintf(path, n, "%s/%s", folder, e->d_name);
    yes = record_matches(s, path);
    free(path);
  }
  closedir(d);
  return yes;
}

int ex_record_find(const char *dir, const char *input, const char *options, int run_derived,
                   ex_record_match *m) {
  struct stat sb;
  if (stat(input, &sb) || !S_ISREG(sb.st_mode)) return 0;
  rec_search s = {dir, input, options, run_derived, (int64_t)sb.st_size, "", 0, NULL, m};
  if (sqlite3_open(":memory:", &s.db) != SQLITE_OK) {
    sqlite3_close(s.db);
    return 0;
  }
  static const char *const kinds[] = {"trace", "snapshot"};
  int yes = 0;
  for (int k = 0; !yes && k < 2; k++) {
    size_t n = strlen(dir) + 32;
    char *top = malloc(n);
    if (!top) break;
    snprintf(top, n, "%s/_inputs/%s", dir, kinds[k]);
    DIR *d = opendir(top);
    struct dirent *e;
    while (d && !yes && (e = readdir(d))) {
      if (strncmp(e->d_name, "run=", 4)) continue;
      size_t rn = n + strlen(e->d_name) + 2;
      char *run = malloc(rn);
      if (!run) break;
      snprintf(run, rn, "%s/%s", top, e->d_name);
      yes = search_run(&s, run);
      free(run);
    }
    if (d) closedir(d);
    free(top);
  }
  sqlite3_close(s.db);
  return yes;
}
