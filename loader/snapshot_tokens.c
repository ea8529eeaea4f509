/*
** snapshot_tokens.c — the snapshot parser's token handler: an explicit
** stack of contexts (sctx) follows the document; each object collects its
** known fields (the tables below), keeps unknown keys and values of an
** unexpected type as JSON in its extra, and hands itself to
** snapshot_rows.c or snapshot_stacks.c at its closing brace.
*/
#include "snapshot_parser.h"
#include "numtext.h"

#include <string.h>

/* ---- fields of each object kind ---------------------------------------- */

static const fdef segment_fields[] = {{"device", F_DEVICE, FS_INT},
                                      {"address", F_ADDRESS, FS_INT},
                                      {"total_size", F_TOTAL_SIZE, FS_INT},
                                      {"allocated_size", F_ALLOCATED_SIZE, FS_INT},
                                      {"active_size", F_ACTIVE_SIZE, FS_INT},
                                      {"requested_size", F_REQUESTED_SIZE, FS_INT},
                                      {"stream", F_STREAM, FS_INT},
                                      {"segment_type", F_SEGMENT_TYPE, FS_TEXT},
                                      {"segment_pool_id", F_POOL_ID, FS_JSON},
                                      {"is_expandable", F_IS_EXPANDABLE, FS_BOOL},
                                      {NULL, 0, 0}};
static const fdef block_fields[] = {{"address", F_ADDRESS, FS_INT},
                                    {"size", F_SIZE, FS_INT},
                                    {"requested_size", F_REQUESTED_SIZE, FS_INT},
                                    {"state", F_STATE, FS_TEXT},
                                    {NULL, 0, 0}};
static const fdef hist_fields[] = {
    {"addr", F_ADDR, FS_INT}, {"real_size", F_REAL_SIZE, FS_INT}, {NULL, 0, 0}};
static const fdef entry_fields[] = {{"action", F_ACTION, FS_TEXT},
                                    {"addr", F_ADDR, FS_INT},
                                    {"size", F_SIZE, FS_INT},
                                    {"stream", F_STREAM, FS_INT},
                                    {"time_us", F_TIME_US, FS_INT},
                                    {"device_free", F_DEVICE_FREE, FS_INT},
                                    {"compile_context", F_COMPILE_CONTEXT, FS_TEXT},
                                    {"user_metadata", F_USER_METADATA, FS_TEXT},
                                    {NULL, 0, 0}};
static const fdef annotation_fields[] = {{"device", F_DEVICE, FS_INT},
                                         {"stage", F_STAGE, FS_TEXT},
                                         {"name", F_NAME, FS_TEXT},
                                         {"time_us", F_TIME_US, FS_INT},
                                         {NULL, 0, 0}};
static const fdef frame_fields[] = {{"name", F_NAME, FS_TEXT},
                                    {"filename", F_FILENAME, FS_TEXT},
                                    {"line", F_LINE, FS_INT},
                                    {NULL, 0, 0}};

enum { CAPK_EXTRA, CAPK_FIELD_JSON, CAPK_SETTING, CAPK_META };
enum { TK_SEGMENTS = 1, TK_TRACES, TK_SETTINGS, TK_ANNOTATIONS, TK_OTHER };

/* ---- objects ------------------------------------------------------------ */

static sobj *obj_of(sparser *p, sctx c) {
  switch (c) {
    case C_SEGMENT: return &p->seg;
    case C_BLOCK: return &p->block;
    case C_HIST: return &p->hist;
    case C_ENTRY: return &p->entry;
    case C_FRAME: return &p->frame;
    case C_ANNOTATION: return &p->ann;
    default: return NULL;
  }
}

static const fdef *fields_of(sctx c) {
  switch (c) {
    case C_SEGMENT: return segment_fields;
    case C_BLOCK: return block_fields;
    case C_HIST: return hist_fields;
    case C_ENTRY: return entry_fields;
    case C_FRAME: return frame_fields;
    case C_ANNOTATION: return annotation_fields;
    default: return NULL;
  }
}

static void obj_reset(sobj *o) {
  memset(o->f, 0, sizeof o->f);
  o->text.n = o->extra.n = 0;
  jw_init(&o->extra_w, &o->extra);
  o->stack_id = o->hist_stack = -1;
  o->hist_size.type = 0;
  o->count = 0;
}

/* ---- the token handler -------------------------------------------------- */

enum { CAPK_DISCARD = 100 };

static void push(sparser *p, sctx c) {
  if (p->depth < (int)(sizeof p->stack / sizeof p->stack[0])) p->stack[p->depth] = c;
  p->depth++;
}
static sctx top(const sparser *p) {
  return p->stack[p->depth - 1];
}

static void capture_start(sparser *p, ld_jw *w, int kind, tok t) {
  p->cap_w = w;
  p->cap_kind = kind;
  p->cap_depth = 1;
  jw_open(w, t == TK_START_MAP ? '{' : '[');
  push(p, C_CAPTURE);
}

/* Store a value of the top-level metadata or allocator settings list:
** position, key length, key, type, value length, value. */
static void list_add(ld_buf *list, int position, const ld_buf *key, char type, const char *v,
                     size_t n) {
  uint32_t kl = (uint32_t)key->n, vl = (uint32_t)n;
  ld_buf_put(list, &position, sizeof position);
  ld_buf_put(list, &kl, 4);
  ld_buf_put(list, key->p, kl);
  ld_buf_putc(list, type);
  ld_buf_put(list, &vl, 4);
  ld_buf_put(list, v, n);
}

/* A scalar setting keeps its SQL type: integer, real, text, 0/1, NULL. */
static void setting_scalar(sparser *p, tok t, const char *s, size_t n) {
  switch (t) {
    case TK_NULL: list_add(&p->settings, 0, &p->key_text, 'n', "", 0); break;
    case TK_TRUE: list_add(&p->settings, 0, &p->key_text, 'b', "1", 1); break;
    case TK_FALSE: list_add(&p->settings, 0, &p->key_text, 'b', "0", 1); break;
    case TK_NUMBER: {
      /* "0.0" stays a real (garbage_collection_threshold is a float). */
      int64_t v;
      int fractional = memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n);
      list_add(&p->settings, 0, &p->key_text,
               fractional                          ? 'r'
               : nt_parse_int64(s, n, &v) == NT_OK ? 'i'
                                                   : 't',
               s, n);
      break;
    }
    default: ld_text(p->f, &s, &n); list_add(&p->settings, 0, &p->key_text, 't', s, n);
  }
}

static void meta_value_done(sparser *p, const char *json, size_t n) {
  list_add(&p->meta, p->root_keys - 1, &p->key_text, 'j', json, n);
}

static void capture_finish(sparser *p) {
  p->depth--; /* pop C_CAPTURE */
  switch (p->cap_kind) {
    case CAPK_FIELD_JSON: {
      sobj *o = obj_of(p, top(p));
      sval *v = &o->f[p->cur_field->field];
      v->type = 'j';
      v->off = (uint32_t)o->text.n;
      v->len = (uint32_t)p->value_buf.n;
      ld_buf_put(&o->text, p->value_buf.p, p->value_buf.n);
      break;
    }
    case CAPK_SETTING:
      list_add(&p->settings, 0, &p->key_text, 'j', p->value_buf.p, p->value_buf.n);
      break;
    case CAPK_META: meta_value_done(p, p->value_buf.p, p->value_buf.n); break;
    default: break;
  }
}

/* Sizes a real snapshot cannot exceed: every size field of one snapshot
** adds up to at most 2^60 bytes (1 EiB), so that the replay and the
** reports' sums fit in int64 whatever a file holds. */
#define SNAPSHOT_MAX_BYTES ((uint64_t)1 << 60)

static int is_size_field(int field) {
  return field == F_TOTAL_SIZE || field == F_ALLOCATED_SIZE || field == F_ACTIVE_SIZE ||
         field == F_REQUESTED_SIZE || field == F_SIZE || field == F_REAL_SIZE;
}

/* Addresses and streams are unsigned 64-bit handles: one beyond int64 is
** kept as text.
** Every other integer field must fit int64. */
static int is_handle_field(int field) {
  return field == F_ADDRESS || field == F_ADDR || field == F_STREAM;
}

/* 0 (and the load fails with FILE:OFFSET) when the sizes read so far add
** up beyond what a real snapshot holds. */
static int plausible_int(sparser *p, const fdef *fd, int64_t v) {
  if (!is_size_field(fd->field)) return 1;
  uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  p->size_total += mag > SNAPSHOT_MAX_BYTES ? SNAPSHOT_MAX_BYTES + 1 : mag;
  if (p->size_total <= SNAPSHOT_MAX_BYTES) return 1;
  return ld_fail(p->f, PROFDB_EXIT_DATA, 1,
                 "%s %lld: the sizes in this snapshot add up to more than 2^60 bytes"
                 " (1 EiB); not a real memory snapshot",
                 fd->key, (long long)v);
}

/* The value of a known field (or a special key) of an object. */
static int field_value(sparser *p, sobj *o, tok t, const char *s, size_t n) {
  const fdef *fd = p->cur_field;
  sval *v = &o->f[fd->field];
  int ok = 0;
  if (t == TK_NULL) {
    v->type = 'n';
    return 1;
  }
  switch (fd->shape) {
    case FS_INT:
      if (t == TK_NUMBER) {
        nt_status st = nt_parse_int64(s, n, &v->i);
        if (st == NT_OK) {
          if (!plausible_int(p, fd, v->i)) return 0;
          v->type = 'i';
          ok = 1;
        } else if (st == NT_OVERFLOW && !is_handle_field(fd->field)) {
          /* A size, device, stream, time or line beyond int64 is no real
          ** snapshot: refused here, where the message can name the offset,
          ** rather than stored as a REAL that breaks or wraps the replay. */
          return ld_fail(p->f, PROFDB_EXIT_DATA, 1,
                         "%s %.*s: beyond the 64-bit integer range; not a real memory snapshot",
                         fd->key, (int)(n > 40 ? 40 : n), s);
        } else if (st == NT_OVERFLOW) { /* a 64-bit handle beyond int64: text */
          ld_note(p->f, PROFDB_STAT_int_beyond_int64, "%s %.*s kept as text", fd->key,
                  (int)(n > 40 ? 40 : n), s);
          v->type = 't';
          v->off = (uint32_t)o->text.n;
          v->len = (uint32_t)n;
          ld_buf_put(&o->text, s, n);
          ok = 1;
        }
      }
      break;
    case FS_TEXT:
      if (t == TK_STRING) {
        int64_t as_int; /* a numeric string becomes an integer in its column */
        if (fd->shape == FS_INT && nt_parse_int64(s, n, &as_int) == NT_OK &&
            !plausible_int(p, fd, as_int))
          return 0;
        ld_text(p->f, &s, &n);
        v->type = 't';
        v->off = (uint32_t)o->text.n;
        v->len = (uint32_t)n;
        ld_buf_put(&o->text, s, n);
        ok = 1;
      }
      break;
    case FS_BOOL:
      if (t == TK_TRUE || t == TK_FALSE) {
        v->type = 'b';
        v->i = t == TK_TRUE;
        ok = 1;
      }
      break;
    case FS_JSON:
      if (!is_scalar(t)) {
        p->value_buf.n = 0;
        jw_init(&p->value_w, &p->value_buf);
        capture_start(p, &p->value_w, CAPK_FIELD_JSON, t);
        return 1;
      }
      p->value_buf.n = 0;
      jw_init(&p->value_w, &p->value_buf);
      ld_write_scalar(p->f, &p->value_w, t, s, n);
      v->type = 'j';
      v->off = (uint32_t)o->text.n;
      v->len = (uint32_t)p->value_buf.n;
      ld_buf_put(&o->text, p->value_buf.p, p->value_buf.n);
      return 1;
  }
  if (!ok) { /* unexpected type: keep it in extra under its key */
    ld_note(p->f, PROFDB_STAT_snapshot_bad_value, "'%s' has an unexpected type", fd->key);
    extra_key(o, fd->key, strlen(fd->key));
    if (is_scalar(t))
      ld_write_scalar(p->f, &o->extra_w, t, s, n);
    else
      capture_start(p, &o->extra_w, CAPK_EXTRA, t);
  }
  return 1;
}

/* Special keys of objects: lists profdb descends into. */
enum { SK_NONE, SK_FRAMES, SK_BLOCKS, SK_HISTORY };

static int object_key(sparser *p, sctx c, const char *k, size_t n) {
  sobj *o = obj_of(p, c);
  p->cur_field = NULL;
  p->cur_unknown = 0;
  p->special = SK_NONE;
  if (n == 6 && !memcmp(k, "frames", 6) && c != C_FRAME && c != C_ANNOTATION) {
    p->special = SK_FRAMES;
    return 1;
  }
  if (c == C_SEGMENT && n == 6 && !memcmp(k, "blocks", 6)) {
    p->special = SK_BLOCKS;
    return 1;
  }
  if (c == C_BLOCK && n == 7 && !memcmp(k, "history", 7)) {
    p->special = SK_HISTORY;
    return 1;
  }
  for (const fdef *fd = fields_of(c); fd->key; fd++)
    if (strlen(fd->key) == n && !memcmp(fd->key, k, n)) {
      p->cur_field = fd;
      return 1;
    }
  ld_text(p->f, &k, &n);
  ld_note(p->f, PROFDB_STAT_snapshot_unknown_keys, NULL);
  extra_key(o, k, n);
  p->cur_unknown = 1;
  return 1;
}

/* Start capturing a nested value into value_buf (kind: what to do with it
** when it closes, see capture_finish). */
static void capture_value(sparser *p, int kind, tok t) {
  p->value_buf.n = 0;
  jw_init(&p->value_w, &p->value_buf);
  capture_start(p, &p->value_w, kind, t);
}

/* The end of context c (already popped): emit what it built. */
static int close_context(sparser *p, sctx c) {
  switch (c) {
    case C_SEGMENT: snapshot_emit_segment(p); break;
    case C_BLOCK: snapshot_emit_block(p); break;
    case C_HIST: snapshot_emit_hist(p); break;
    case C_ENTRY: snapshot_emit_entry(p); break;
    case C_FRAME: snapshot_frame_done(p); break;
    case C_ANNOTATION: snapshot_emit_annotation(p); break;
    case C_FRAMES: {
      int64_t id = snapshot_frames_done(p);
      sobj *owner = p->depth > 0 ? obj_of(p, top(p)) : NULL;
      if (owner) owner->stack_id = id;
      break;
    }
    default: break;
  }
  return 1;
}

/* A key in context c. */
static int context_key(sparser *p, sctx c, const char *s, size_t n) {
  p->key_text.n = 0;
  if (c == C_TOP) {
    p->root_keys++;
    if (n == 8 && !memcmp(s, "segments", 8))
      p->cur_key = TK_SEGMENTS;
    else if (n == 13 && !memcmp(s, "device_traces", 13))
      p->cur_key = TK_TRACES;
    else if (n == 18 && !memcmp(s, "allocator_settings", 18))
      p->cur_key = TK_SETTINGS;
    else if (n == 20 && !memcmp(s, "external_annotations", 20))
      p->cur_key = TK_ANNOTATIONS;
    else
      p->cur_key = TK_OTHER;
    ld_text(p->f, &s, &n);
    ld_buf_put(&p->key_text, s, n);
    return 1;
  }
  if (c == C_SETTINGS) {
    ld_text(p->f, &s, &n);
    ld_buf_put(&p->key_text, s, n);
    return 1;
  }
  return object_key(p, c, s, n);
}

/* A value of the top-level object: a known list or settings object, else
** a metadata value (kept as JSON). */
static int top_value(sparser *p, tok t, const char *s, size_t n) {
  switch (p->cur_key) {
    case TK_SEGMENTS:
      if (t == TK_START_ARRAY) {
        push(p, C_SEGMENTS);
        return 1;
      }
      return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "segments is not a list");
    case TK_TRACES:
      if (t == TK_START_ARRAY) {
        p->device = -1;
        push(p, C_TRACES);
        return 1;
      }
      return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "device_traces is not a list");
    case TK_SETTINGS:
      if (t == TK_START_MAP) {
        push(p, C_SETTINGS);
        return 1;
      }
      break; /* kept as metadata */
    case TK_ANNOTATIONS:
      if (t == TK_START_ARRAY) {
        push(p, C_ANNOTATIONS);
        return 1;
      }
      break;
  }
  if (is_scalar(t)) {
    p->value_buf.n = 0;
    jw_init(&p->value_w, &p->value_buf);
    ld_write_scalar(p->f, &p->value_w, t, s, n);
    meta_value_done(p, p->value_buf.p, p->value_buf.n);
  } else {
    capture_value(p, CAPK_META, t);
  }
  return 1;
}

/* An element of one of the object lists (segments, blocks, history,
** a device's trace, frames, annotations): an object opens its item. */
static int list_element(sparser *p, sctx c, tok t) {
  static const struct {
    sctx list, item;
  } items[] = {{C_SEGMENTS, C_SEGMENT}, {C_BLOCKS, C_BLOCK}, {C_HISTORY, C_HIST},
               {C_DEVICE, C_ENTRY},     {C_FRAMES, C_FRAME}, {C_ANNOTATIONS, C_ANNOTATION}};
  sctx item = C_SEGMENT;
  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
    if (items[i].list == c) item = items[i].item;
  if (t != TK_START_MAP) {
    ld_note(p->f, PROFDB_STAT_snapshot_not_object, "a list element is not an object");
    if (!is_scalar(t))
      capture_value(p, CAPK_DISCARD, t);
    else if (c == C_DEVICE)
      p->seq++; /* keep seq equal to the position in the list */
    return 1;
  }
  sobj *o = obj_of(p, item);
  obj_reset(o);
  if (item == C_SEGMENT) o->id = p->ctx->next_segment_id++;
  if (item == C_BLOCK) o->id = p->ctx->next_block_id++;
  push(p, item);
  return 1;
}

/* An element of device_traces: one device's list of entries. */
static int device_list(sparser *p, tok t) {
  p->device++;
  if (t == TK_START_ARRAY) {
    p->seq = 0;
    push(p, C_DEVICE);
    return 1;
  }
  ld_note(p->f, PROFDB_STAT_snapshot_not_object, "a device_traces element is not a list");
  if (!is_scalar(t)) capture_value(p, CAPK_DISCARD, t);
  return 1;
}

/* The value of the current key of an object context c: a nested list
** (frames, blocks, history), an unknown key's value (kept in extra), or a
** known field. */
static int object_value(sparser *p, sctx c, tok t, const char *s, size_t n) {
  sobj *o = obj_of(p, c);
  if (p->special != SK_NONE) {
    int sk = p->special;
    p->special = SK_NONE;
    if (t == TK_START_ARRAY) {
      if (sk == SK_FRAMES) {
        p->frames.key.n = 0;
        p->frames.frames = 0;
        push(p, C_FRAMES);
      } else {
        push(p, sk == SK_BLOCKS ? C_BLOCKS : C_HISTORY);
      }
      return 1;
    }
    if (t == TK_NULL) return 1;
    const char *k = sk == SK_FRAMES ? "frames" : sk == SK_BLOCKS ? "blocks" : "history";
    ld_note(p->f, PROFDB_STAT_snapshot_bad_value, "'%s' is not a list", k);
    extra_key(o, k, strlen(k));
    if (is_scalar(t))
      ld_write_scalar(p->f, &o->extra_w, t, s, n);
    else
      capture_start(p, &o->extra_w, CAPK_EXTRA, t);
    return 1;
  }
  if (p->cur_unknown) {
    p->cur_unknown = 0;
    if (is_scalar(t))
      ld_write_scalar(p->f, &o->extra_w, t, s, n);
    else
      capture_start(p, &o->extra_w, CAPK_EXTRA, t);
    return 1;
  }
  if (p->cur_field) return field_value(p, o, t, s, n);
  return 1;
}

/* Every token of the snapshot: dispatched by the context it appears in. */
static int tok_handle(sparser *p, tok t, const char *s, size_t n) {
  if (p->depth > 0 && top(p) == C_CAPTURE) {
    if (ld_capture_token(p->f, p->cap_w, &p->cap_depth, t, s, n)) capture_finish(p);
    return 1;
  }
  if (p->depth == 0) {
    if (t == TK_START_MAP) {
      push(p, C_TOP);
      return 1;
    }
    if (t == TK_START_ARRAY) {
      p->layout_list = 1;
      push(p, C_SEGMENTS);
      return 1;
    }
    return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "not a snapshot: unexpected top-level value");
  }
  sctx c = top(p);
  if (t == TK_END_MAP || t == TK_END_ARRAY) {
    p->depth--;
    return close_context(p, c);
  }
  if (t == TK_KEY) return context_key(p, c, s, n);
  switch (c) {
    case C_TOP: return top_value(p, t, s, n);
    case C_SETTINGS:
      if (is_scalar(t))
        setting_scalar(p, t, s, n);
      else
        capture_value(p, CAPK_SETTING, t);
      return 1;
    case C_SEGMENTS:
    case C_BLOCKS:
    case C_HISTORY:
    case C_DEVICE:
    case C_FRAMES:
    case C_ANNOTATIONS: return list_element(p, c, t);
    case C_TRACES: return device_list(p, t);
    default: return object_value(p, c, t, s, n);
  }
}

LD_TOKEN_CALLBACKS(snapshot_callbacks, tok_handle);

int snapshot_parse(sparser *p) {
  return ld_parse(p->f, &snapshot_callbacks, p);
}
