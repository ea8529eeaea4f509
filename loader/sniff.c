/*
** sniff.c — decide from the content what an input is.
**
** The decision needs one key: `traceEvents` makes a trace, `segments` or
** `device_traces` a snapshot; in a bare array, the first element's keys
** decide (`ph`, `ts`, ... for trace events; `blocks`, `total_size`, ... for
** segments).  Keys may come in any order, so the sniffer parses (and
** discards) until it meets one, usually within the first kilobyte; then the
** input is rewound for the real parse.
**
** Safety: a pickle (first byte 0x80, the PROTO opcode; or the opening
** bytes of protocols 0 and 1) is refused before any parsing, with the
** lines a user runs to re-export JSON themselves.  Other formats that are
** not JSON (zstd, bzip2, xz, zip, UTF-16) are named in the message.
*/
#include "loader.h"

#include <stdio.h>
#include <string.h>

typedef struct sniff {
  ld_file *f;
  int depth;          /* open containers */
  int top;            /* '{' or '[' once the top-level value started */
  int elements;       /* elements seen in a top-level array */
  int tokens;         /* values seen at all */
  const char *scalar; /* description of a scalar top-level value */
  ld_sniff_result result;
  int decided;
} sniff;

static int decide(sniff *s, ld_sniff_result r) {
  s->result = r;
  s->decided = 1;
  return 0; /* stop the parse */
}

static int key_in(const unsigned char *k, size_t n, const char *const *set) {
  for (; *set; set++)
    if (strlen(*set) == n && memcmp(*set, k, n) == 0) return 1;
  return 0;
}

static const char *const event_keys[] = {"ph",   "cat", "ts", "dur", "pid", "tid",
                                         "args", "id",  "bp", "tts", NULL};
static const char *const segment_keys[] = {"blocks",         "total_size",      "segment_type",
                                           "address",        "allocated_size",  "active_size",
                                           "requested_size", "segment_pool_id", "is_expandable",
                                           "device",         "stream",          NULL};

static int on_key(void *ud, const unsigned char *k, size_t n) {
  sniff *s = ud;
  if (s->top == '{' && s->depth == 1) {
    if (n == 11 && memcmp(k, "traceEvents", 11) == 0) return decide(s, SNIFF_TRACE);
    if ((n == 8 && memcmp(k, "segments", 8) == 0) ||
        (n == 13 && memcmp(k, "device_traces", 13) == 0))
      return decide(s, SNIFF_SNAPSHOT);
  } else if (s->top == '[' && s->depth == 2) {
    if (key_in(k, n, event_keys)) return decide(s, SNIFF_TRACE);
    if (key_in(k, n, segment_keys)) return decide(s, SNIFF_SNAPSHOT);
  }
  return 1;
}

static void value(sniff *s, const char *what) {
  s->tokens++;
  if (s->depth == 0)
    s->scalar = what;
  else if (s->top == '[' && s->depth == 1)
    s->elements++;
}

static int on_null(void *ud) {
  value(ud, "null");
  return 1;
}
static int on_bool(void *ud, int b) {
  value(ud, b ? "true" : "false");
  return 1;
}
static int on_number(void *ud, const char *t, size_t n) {
  (void)t;
  (void)n;
  value(ud, "a number");
  return 1;
}
static int on_string(void *ud, const unsigned char *t, size_t n) {
  (void)t;
  (void)n;
  value(ud, "a string");
  return 1;
}
static int on_start(sniff *s, int bracket) {
  if (s->depth == 0)
    s->top = bracket;
  else if (s->top == '[' && s->depth == 1)
    s->elements++;
  s->tokens++;
  s->depth++;
  return 1;
}
static int on_start_map(void *ud) {
  return on_start(ud, '{');
}
static int on_start_array(void *ud) {
  return on_start(ud, '[');
}
static int on_end(void *ud) {
  sniff *s = ud;
  s->depth--;
  return 1;
}

static const yajl_callbacks sniff_callbacks = {on_null,   on_bool,        NULL,         NULL,
                                               on_number, on_string,      on_start_map, on_key,
                                               on_end,    on_start_array, on_end};

static void refuse_pickle(ld_file *f) {
  ld_fail(f, PROFDB_EXIT_REFUSED, 0,
          "this is a Python pickle; profdb never unpickles files, because "
          "loading a pickle can run arbitrary code.\n"
          "  Re-export the snapshot as JSON in your own trusted environment:\n"
          "    import json, torch\n"
          "    snapshot = torch.cuda.memory._snapshot()   # or: "
          "pickle.load(open(\"snapshot.pickle\", \"rb\")) on a file you made\n"
          "    with open(\"memory_snapshot.json\", \"w\") as out:\n"
          "        json.dump(snapshot, out)\n"
          "  then run: profdb load memory_snapshot.json -o run.db");
}

/* What a file that is not JSON (after gzip) is, from its first bytes, so
** the message can say what to do instead of "invalid char". */
static const char *foreign_format(const unsigned char *p, size_t n) {
  static const struct {
    const char *magic;
    size_t len;
    const char *what;
  } magic[] = {
      {"\x28\xB5\x2F\xFD", 4, "zstd-compressed; decompress it first (zstd -d FILE)"},
      {"BZh", 3, "bzip2-compressed; decompress it first (bunzip2 FILE)"},
      {"\xFD"
       "7zXZ\x00",
       6, "xz-compressed; decompress it first (unxz FILE)"},
      {"PK\x03\x04", 4, "a zip archive; extract the JSON file from it first (unzip FILE)"},
      {"\xFF\xFE", 2, "UTF-16 text; profdb reads UTF-8 JSON (iconv -f UTF-16 -t UTF-8)"},
      {"\xFE\xFF", 2, "UTF-16 text; profdb reads UTF-8 JSON (iconv -f UTF-16 -t UTF-8)"},
  };
  for (size_t i = 0; i < sizeof magic / sizeof *magic; i++)
    if (n >= magic[i].len && !memcmp(p, magic[i].magic, magic[i].len)) return magic[i].what;
  /* UTF-16 without a byte order mark: '{' or '[' next to a zero byte. */
  if (n >= 2 && ((p[0] == 0 && (p[1] == '{' || p[1] == '[')) ||
                 (p[1] == 0 && (p[0] == '{' || p[0] == '['))))
    return "UTF-16 text; profdb reads UTF-8 JSON (iconv -f UTF-16 -t UTF-8)";
  return NULL;
}

/* Pickle protocols 0 and 1 have no 0x80 PROTO opcode: a MARK, an empty
** dict or list, or a GLOBAL ("c" module "\n") starts them. */
static int is_old_pickle(const unsigned char *p, size_t n) {
  if (n >= 2 && p[0] == '(' && strchr("dlit", p[1]) && p[1]) return 1;
  if (n >= 2 && (p[0] == '}' || p[0] == ']') && (p[1] == 'q' || p[1] == '(')) return 1;
  if (n >= 3 && p[0] == 'c') {
    size_t i = 1;
    while (i < n && i < 64 &&
           (p[i] == '_' || p[i] == '.' || (p[i] >= 'a' && p[i] <= 'z') ||
            (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9')))
      i++;
    return i > 1 && i < n && p[i] == '\n';
  }
  return 0;
}

ld_sniff_result ld_sniff(ld_file *f) {
  sniff s = {.f = f};
  const unsigned char *chunk;
  ssize_t n;
  int first = 1, failed = 0, neither = 0;
  yajl_handle h = ld_yajl_alloc(f, &sniff_callbacks, &s);
  yajl_config(h, yajl_dont_validate_strings, 1);
  f->yajl = h;
  while (!s.decided && (n = input_read(&f->in, &chunk)) > 0) {
    if (first) {
      first = 0;
      size_t i = 0;
      while (i < (size_t)n && strchr(" \t\r\n", chunk[i])) i++;
      const char *foreign = foreign_format(chunk, (size_t)n);
      if ((i < (size_t)n && chunk[i] == 0x80) || is_old_pickle(chunk + i, (size_t)n - i)) {
        refuse_pickle(f);
        failed = 1;
        break;
      }
      if ((size_t)n >= 16 && !memcmp(chunk, "SQLite format 3", 16)) {
        /* Most often a profdb database given where a trace belongs. */
        ld_fail(f, PROFDB_EXIT_USAGE, 0,
                "a SQLite database (a profdb database?), not a trace or memory snapshot;"
                " report on it with: profdb report %s",
                f->path);
        failed = 1;
        break;
      }
      if (foreign) {
        ld_fail(f, PROFDB_EXIT_DATA, 0, "not JSON: the file is %s", foreign);
        failed = 1;
        break;
      }
    }
    yajl_status st = yajl_parse(h, chunk, (size_t)n);
    if (s.decided) break;
    if (ld_check_token_length(f)) {
      failed = 1;
      break;
    }
    if (st == yajl_status_error) {
      unsigned char *e = yajl_get_error(h, 0, chunk, (size_t)n);
      char msg[256];
      snprintf(msg, sizeof msg, "%s", e ? (const char *)e : "parse error");
      yajl_free_error(h, e);
      size_t l = strlen(msg);
      while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' ')) msg[--l] = 0;
      ld_fail(f, PROFDB_EXIT_DATA, 1, "invalid JSON: %s", msg);
      f->err_offset = ld_locate_syntax_error(f->path);
      failed = 1;
      break;
    }
  }
  if (!s.decided && !failed && n < 0) {
    f->exit_code = f->in.error == IN_EGZIP ? PROFDB_EXIT_DATA : PROFDB_EXIT_USAGE;
    f->has_offset = 1;
    f->err_offset = f->in.error_offset;
    snprintf(f->message, sizeof f->message, "%s", f->in.message);
    failed = 1;
  }
  if (!s.decided && !failed) {
    f->in.offset = f->in.delivered;
    yajl_status st = yajl_complete_parse(h);
    if (f->in.delivered == 0 || s.tokens == 0)
      ld_fail(f, PROFDB_EXIT_DATA, 0, "empty file: no JSON value");
    else if (st == yajl_status_error && s.depth > 0) {
      ld_fail(f, PROFDB_EXIT_DATA, 1,
              "file ends before any trace or snapshot content (truncated?)");
      f->err_offset = f->in.delivered; /* the end, not yajl's one-past */
    } else if (st == yajl_status_error)
      ld_fail(f, PROFDB_EXIT_DATA, 1, "invalid JSON at the end of the file");
    else if (s.top == '[' && s.elements == 0) {
      s.result = SNIFF_TRACE; /* "[]": a legacy trace with no events */
      s.decided = 1;
    } else {
      neither = 1; /* complete JSON, but neither a trace nor a snapshot */
      if (s.scalar)
        ld_fail(f, PROFDB_EXIT_DATA, 0, "not a trace or snapshot: the top-level value is %s",
                s.scalar);
      else if (s.top == '[')
        ld_fail(f, PROFDB_EXIT_DATA, 0,
                "not a trace or snapshot: the top-level array holds neither "
                "trace events nor memory segments");
      else
        ld_fail(f, PROFDB_EXIT_DATA, 0,
                "not a trace or snapshot: the top-level object has no "
                "traceEvents, segments or device_traces key");
    }
  }
  yajl_free(h);
  f->yajl = NULL;
  if (!s.decided) return neither ? SNIFF_NEITHER : SNIFF_ERROR;
  if (input_rewind(&f->in)) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "%s", f->in.message);
    return SNIFF_ERROR;
  }
  return s.result;
}
