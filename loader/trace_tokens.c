/*
** trace_tokens.c — the trace parser's token handler: yajl tokens fill the
** event being read (tevent) at an explicit position (tpos).  Known event
** keys get their values checked and kept; args with a typed column go to
** their slot (targ_keys); everything else, and nested values, is copied as
** JSON by a capture.  An event's closing brace hands it to
** trace_emit_event (trace_events.c).
*/
#include "trace_parser.h"
#include "nest.h"
#include "numtext.h"

#include <stdio.h>
#include <string.h>

/* ---- typed args --------------------------------------------------------- */

/* Arg keys with a typed column (trace_parser.h). */
const targ_key targ_keys[] = {
#define TK(k, id, shape) \
  { k, sizeof(k) - 1, id, shape }
    TK("External id", TA_EXTERNAL_ID, SH_INT),
    TK("external id", TA_EXTERNAL_ID, SH_INT),
    TK("correlation", TA_CORRELATION, SH_INT),
    TK("Ev Idx", TA_EV_IDX, SH_INT),
    TK("Profiler Event Index", TA_EV_IDX, SH_INT),
    TK("Sequence number", TA_SEQ_NUM, SH_INT),
    TK("Fwd thread id", TA_FWD_TID, SH_INT),
    TK("Input Dims", TA_INPUT_DIMS, SH_JSON),
    TK("Input dims", TA_INPUT_DIMS, SH_JSON),
    TK("Input type", TA_INPUT_TYPES, SH_JSON),
    TK("cbid", TA_CBID, SH_INT),
    TK("Python id", TA_PY_ID, SH_INT),
    TK("Python parent id", TA_PY_PARENT, SH_INT),
    TK("Record function id", TA_RECORD_FN, SH_INT),
    TK("Input Strides", TA_INPUT_STRIDES, SH_JSON),
    TK("Concrete Inputs", TA_CONCRETE_INPUTS, SH_JSON),
    TK("kernel", TA_KERNEL, SH_NAME),
    TK("device", TA_DEVICE, SH_INT),
    TK("stream", TA_STREAM, SH_INT),
    TK("grid", TA_GRID, SH_DIM3),
    TK("block", TA_BLOCK, SH_DIM3),
    TK("registers per thread", TA_REGISTERS, SH_INT),
    TK("shared memory", TA_SHMEM, SH_INT),
    TK("blocks per SM", TA_BLOCKS_PER_SM, SH_REAL),
    TK("warps per SM", TA_WARPS_PER_SM, SH_REAL),
    TK("est. achieved occupancy %", TA_OCCUPANCY, SH_REAL),
    TK("bytes", TA_BYTES, SH_INT),
    TK("memory bandwidth (GB/s)", TA_BANDWIDTH, SH_REAL),
    TK("Addr", TA_MEM_ADDR, SH_INT),
    TK("Bytes", TA_MEM_BYTES, SH_INT),
    TK("Total Allocated", TA_MEM_TOTAL_ALLOC, SH_INT),
    TK("Total Reserved", TA_MEM_TOTAL_RESERVED, SH_INT),
    TK("Device Type", TA_MEM_DEVICE_TYPE, SH_INT),
    TK("Device Id", TA_MEM_DEVICE_ID, SH_INT),
#undef TK
};
#define N_TARG_KEYS (sizeof targ_keys / sizeof targ_keys[0])

/* ---- helpers ------------------------------------------------------------ */

static uint32_t raw_put(tevent *ev, const char *s, size_t n) {
  uint32_t off = (uint32_t)ev->raw.n;
  /* Allocated even for an empty text ("pid": ""): readers compute
  ** raw.p + off, which must not be arithmetic on NULL. */
  ld_buf_reserve(&ev->raw, n ? n : 1);
  ld_buf_put(&ev->raw, s, n);
  return off;
}

/* What a name says of the runtime call it may be (tevent.call_class):
** cudaLaunchKernel, cuLaunchKernel, hipExtModuleLaunchKernel,
** cudaGraphLaunch, ... launch GPU work; *StreamBeginCapture /
** *StreamEndCapture bracket a graph capture, whose launches run nothing.
** Only names of CUDA's and HIP's APIs (cu*, hip*) are looked into. */
static int call_class(const char *s, size_t n) {
  if (n < 8 || !((s[0] == 'c' && s[1] == 'u') || (s[0] == 'h' && s[1] == 'i'))) return 0;
  const char *launch = memmem(s, n, "Launch", 6);
  if (launch && memmem(launch, n - (size_t)(launch - s), "Kernel", 6)) return CALL_LAUNCH;
  if (launch && launch - s >= 5 && !memcmp(launch - 5, "Graph", 5)) return CALL_GRAPH;
  if (memmem(s, n, "StreamBeginCapture", 18) || memmem(s, n, "StreamEndCapture", 16))
    return CALL_CAPTURE;
  return 0;
}

static void reset_event(tparser *p) {
  tevent *ev = &p->ev;
  ev->offset = ld_offset(p->f);
  ev->ph = 0;
  ev->ph_odd = 0;
  ev->ph_off = ev->ph_len = 0;
  ev->special = 0;
  ev->raw_cat_id = ev->name_id = ev->step_number = -1;
  ev->call_class = 0;
  ev->pid.type = ev->tid.type = ev->id.type = 0;
  ev->ts.state = ev->dur.state = 0;
  ev->has_bp = ev->has_s = 0;
  ev->seen = 0;
  ev->targ_mask = 0;
  ev->raw.n = ev->args.n = ev->extra.n = 0;
  jw_init(&ev->args_w, &ev->args);
  jw_init(&ev->extra_w, &ev->extra);
}

static ekey event_key(const char *k, size_t n) {
  switch (n) {
    case 1:
      if (*k == 's') return EK_S;
      break;
    case 2:
      if (k[0] == 'p' && k[1] == 'h') return EK_PH;
      if (k[0] == 't' && k[1] == 's') return EK_TS;
      if (k[0] == 'i' && k[1] == 'd') return EK_ID;
      if (k[0] == 'b' && k[1] == 'p') return EK_BP;
      break;
    case 3:
      if (!memcmp(k, "cat", 3)) return EK_CAT;
      if (!memcmp(k, "pid", 3)) return EK_PID;
      if (!memcmp(k, "tid", 3)) return EK_TID;
      if (!memcmp(k, "dur", 3)) return EK_DUR;
      break;
    case 4:
      if (!memcmp(k, "name", 4)) return EK_NAME;
      if (!memcmp(k, "args", 4)) return EK_ARGS;
      break;
  }
  return EK_OTHER;
}

static int targ_lookup(const char *k, size_t n) {
  for (size_t i = 0; i < N_TARG_KEYS; i++)
    if (targ_keys[i].len == n && targ_keys[i].key[0] == k[0] &&
        memcmp(targ_keys[i].key, k, n) == 0)
      return (int)i;
  return -1;
}

/* ---- captures ----------------------------------------------------------- */

/* Start copying the container whose first token is t into w. */
static void capture_start(tparser *p, ld_jw *w, capture_end end, tok t) {
  p->cap_w = w;
  p->cap_end = end;
  p->cap_depth = 1;
  jw_open(w, t == TK_START_MAP ? '{' : '[');
  p->pos = TP_CAPTURE;
}

/* Parse the compact text "[x,y,z]" of three integers. */
static int parse_dim3(const char *s, size_t n, int64_t out[3]) {
  if (n < 7 || s[0] != '[' || s[n - 1] != ']') return -1;
  size_t i = 1;
  for (int k = 0; k < 3; k++) {
    size_t j = i;
    while (j < n - 1 && s[j] != ',') j++;
    if (nt_parse_int64(s + i, j - i, &out[k]) != NT_OK) return -1;
    if ((k < 2) != (s[j] == ',')) return -1;
    i = j + 1;
  }
  return i == n ? 0 : -1;
}

static void emit_nonobject(tparser *p, const char *json, size_t n) {
  tevent *ev = &p->ev;
  reset_event(p);
  extra_member(ev, "value", 5);
  jw_raw(&ev->extra_w, json, n);
  ld_note(p->f, PROFDB_STAT_event_not_object, "traceEvents element is not an object");
  int64_t id = p->ctx->next_event_id++;
  p->events++;
  trace_emit_instant(p, id, K_OTHER_PHASE, NULL, 0);
}

static void capture_finish(tparser *p) {
  tevent *ev = &p->ev;
  switch (p->cap_end) {
    case CAP_META:
      trace_push_meta(p, p->cur_key_off, p->cur_key_len);
      p->pos = TP_ROOT;
      break;
    case CAP_EXTRA: p->pos = TP_EVENT; break;
    case CAP_ARG: p->pos = TP_ARGS; break;
    case CAP_TYPED: {
      int k = p->cur_targ_key;
      targ t = (targ)targ_keys[k].id;
      tslot *sl = &ev->targs[t];
      uint32_t off = p->typed_off, len = (uint32_t)(ev->raw.n - p->typed_off);
      int64_t d[3];
      if (targ_keys[k].shape == SH_DIM3 && parse_dim3(ev->raw.p + off, len, d)) {
        ld_note(p->f, PROFDB_STAT_typed_arg_kept_raw, NULL);
        args_member(ev, targ_keys[k].key, targ_keys[k].len);
        jw_raw(&ev->args_w, ev->raw.p + off, len);
      } else {
        if (ev->targ_mask & TA_BIT(t))
          ld_note(p->f, PROFDB_STAT_duplicate_key, "duplicate arg '%s'", targ_keys[k].key);
        if (targ_keys[k].shape == SH_DIM3) {
          sl->i = d[0];
          sl->y = d[1];
          sl->z = d[2];
        }
        sl->raw_off = off;
        sl->raw_len = len;
        sl->key = (unsigned char)k;
        ev->targ_mask |= TA_BIT(t);
      }
      p->pos = TP_ARGS;
      break;
    }
    case CAP_NONOBJ:
      emit_nonobject(p, p->nonobj.p, p->nonobj.n);
      p->pos = TP_EVENTS;
      break;
  }
}

/* ---- values of known event keys ---------------------------------------- */

static const char *const ekey_text[] = {"ph",  "cat",  "name", "pid", "tid", "ts",
                                        "dur", "args", "id",   "bp",  "s"};

/* A value the event key cannot use: keep it in extra under the key. */
static void value_to_extra(tparser *p, const char *key, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  extra_member(ev, key, strlen(key));
  if (is_scalar(t))
    ld_write_scalar(p->f, &ev->extra_w, t, s, n);
  else
    capture_start(p, &ev->extra_w, CAP_EXTRA, t);
}

static void set_tval(tparser *p, tval *v, const char *key, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  if (t == TK_NUMBER) {
    if (nt_parse_int64(s, n, &v->i) == NT_OK) {
      v->type = 'i';
      return;
    }
    if (!memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n))
      ld_note(p->f, PROFDB_STAT_int_beyond_int64, "%s %.*s kept as text", key,
              (int)(n > 40 ? 40 : n), s);
    v->type = 't'; /* huge or fractional: keep the numeral as text */
    v->off = raw_put(ev, s, n);
    v->len = (uint32_t)n;
  } else if (t == TK_STRING) {
    ld_text(p->f, &s, &n);
    v->type = 't';
    v->off = raw_put(ev, s, n);
    v->len = (uint32_t)n;
  } else {
    v->type = 0;
    value_to_extra(p, key, t, s, n);
  }
}

static void set_time(tparser *p, ttime *tm, const char *key, tok t, const char *s, size_t n) {
  if (t != TK_NUMBER && t != TK_STRING) {
    tm->state = 'x';
    ld_note(p->f, PROFDB_STAT_time_not_number, "%s is not a number", key);
    value_to_extra(p, key, t, s, n);
    return;
  }
  if (t == TK_STRING) ld_note(p->f, PROFDB_STAT_time_string, NULL);
  switch (nt_parse_scaled(s, n, 3, &tm->ns)) {
    case NT_OK: tm->state = 'v'; return;
    case NT_ROUNDED:
      tm->state = 'v';
      ld_note(p->f, PROFDB_STAT_time_subns_rounded, NULL);
      return;
    case NT_OVERFLOW:
      tm->state = 'x';
      ld_note(p->f, PROFDB_STAT_time_out_of_range, "%s %.*s is out of range", key,
              (int)(n > 40 ? 40 : n), s);
      break;
    case NT_INVALID:
      tm->state = 'x';
      ld_note(p->f, PROFDB_STAT_time_not_number, "%s is not a number", key);
      break;
  }
  /* Keep the text exactly: as a JSON string. */
  extra_member(&p->ev, key, strlen(key));
  ld_text(p->f, &s, &n);
  jw_string(&p->ev.extra_w, s, n);
}

/* Remember a short string value of the event in raw. */
static int set_text(tparser *p, const char *key, tok t, const char *s, size_t n, uint32_t *off,
                    uint32_t *len) {
  if (t != TK_STRING) {
    value_to_extra(p, key, t, s, n);
    return 0;
  }
  ld_text(p->f, &s, &n);
  *off = raw_put(&p->ev, s, n);
  *len = (uint32_t)n;
  return 1;
}

static void event_value(tparser *p, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  ekey k = p->cur_ekey;
  p->pos = TP_EVENT; /* unless a capture or args starts below */
  switch (k) {
    case EK_OTHER:
      if (is_scalar(t))
        ld_write_scalar(p->f, &ev->extra_w, t, s, n);
      else
        capture_start(p, &ev->extra_w, CAP_EXTRA, t);
      return;
    case EK_ARGS:
      if (t == TK_START_MAP) {
        p->pos = TP_ARGS;
        return;
      }
      ld_note(p->f, PROFDB_STAT_args_not_object, "args is not an object");
      value_to_extra(p, "args", t, s, n);
      return;
    case EK_PH:
      if (t == TK_STRING && n == 1) {
        ev->ph = s[0];
        ev->ph_odd = 0;
        return;
      }
      ev->ph_odd = 1;
      ev->ph_len = 0;
      if (t == TK_STRING)
        set_text(p, "ph", t, s, n, &ev->ph_off, &ev->ph_len);
      else
        value_to_extra(p, "ph", t, s, n);
      return;
    case EK_CAT:
      if (t == TK_STRING) {
        ld_text(p->f, &s, &n);
        ev->raw_cat_id = ld_string(p->f, s, n);
        trace_classify_cat(p, s, n, ev->raw_cat_id, &ev->cat_kind, &ev->cat_id);
      } else {
        value_to_extra(p, "cat", t, s, n);
      }
      return;
    case EK_NAME:
      if (t == TK_STRING) {
        ld_text(p->f, &s, &n);
        ev->name_id = ld_string(p->f, s, n);
        ev->step_number = nest_step_number(s, n);
        /* (only runtime calls' names are looked into; Kineto writes cat
        ** before name, and a name seen first is looked into as well) */
        ev->call_class = ev->raw_cat_id < 0 || ev->cat_kind == K_RUNTIME ? call_class(s, n) : 0;
        ev->special = n == 8 && !memcmp(s, "[memory]", 8)          ? 1
                      : n == 13 && !memcmp(s, "[OutOfMemory]", 13) ? 2
                                                                   : 0;
      } else {
        value_to_extra(p, "name", t, s, n);
      }
      return;
    case EK_PID: set_tval(p, &ev->pid, "pid", t, s, n); return;
    case EK_TID: set_tval(p, &ev->tid, "tid", t, s, n); return;
    case EK_ID: set_tval(p, &ev->id, "id", t, s, n); return;
    case EK_TS: set_time(p, &ev->ts, "ts", t, s, n); return;
    case EK_DUR: set_time(p, &ev->dur, "dur", t, s, n); return;
    case EK_BP: ev->has_bp = set_text(p, "bp", t, s, n, &ev->bp_off, &ev->bp_len); return;
    case EK_S: ev->has_s = set_text(p, "s", t, s, n, &ev->s_off, &ev->s_len); return;
  }
}

/* ---- values of args ----------------------------------------------------- */

static void arg_value(tparser *p, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  int k = p->cur_targ_key;
  p->pos = TP_ARGS;
  if (k < 0) { /* residual arg: its key is already written */
    if (is_scalar(t))
      ld_write_scalar(p->f, &ev->args_w, t, s, n);
    else
      capture_start(p, &ev->args_w, CAP_ARG, t);
    return;
  }
  targ ta = (targ)targ_keys[k].id;
  tslot *sl = &ev->targs[ta];
  int ok = 0;
  switch ((tshape)targ_keys[k].shape) {
    case SH_INT: ok = t == TK_NUMBER && nt_parse_int64(s, n, &sl->i) == NT_OK; break;
    case SH_REAL: ok = t == TK_NUMBER && nt_parse_double(s, n, &sl->d) == NT_OK; break;
    case SH_JSON:
      if (!is_scalar(t)) {
        p->typed_off = (uint32_t)ev->raw.n;
        jw_init(&p->typed_w, &ev->raw);
        capture_start(p, &p->typed_w, CAP_TYPED, t);
        return;
      }
      ok = 1;
      break;
    case SH_DIM3:
      if (!is_scalar(t)) {
        p->typed_off = (uint32_t)ev->raw.n;
        jw_init(&p->typed_w, &ev->raw);
        capture_start(p, &p->typed_w, CAP_TYPED, t);
        return;
      }
      break;
    case SH_NAME:
      if (t == TK_STRING) {
        sl->i = ld_string(p->f, s, n);
        ok = sl->i >= 0;
      }
      break;
  }
  if (!ok) {
    /* Wrong type for the column ("inf", "N/A", null, a huge integer...):
    ** the value stays in args exactly as written. */
    if (t != TK_NULL) ld_note(p->f, PROFDB_STAT_typed_arg_kept_raw, NULL);
    args_member(ev, targ_keys[k].key, targ_keys[k].len);
    if (is_scalar(t))
      ld_write_scalar(p->f, &ev->args_w, t, s, n);
    else
      capture_start(p, &ev->args_w, CAP_ARG, t);
    return;
  }
  if (ev->targ_mask & TA_BIT(ta))
    ld_note(p->f, PROFDB_STAT_duplicate_key, "duplicate arg '%s'", targ_keys[k].key);
  /* Keep the value's JSON text, for tables without a column for it. */
  sl->raw_off = (uint32_t)ev->raw.n;
  {
    ld_jw w;
    memset(&w, 0, sizeof w);
    jw_init(&w, &ev->raw);
    ld_write_scalar(p->f, &w, t, s, n);
    jw_free(&w);
  }
  sl->raw_len = (uint32_t)(ev->raw.n - sl->raw_off);
  sl->key = (unsigned char)k;
  ev->targ_mask |= TA_BIT(ta);
}

/* ---- the token handler -------------------------------------------------- */

/* TP_ROOT: a top-level key; its value comes next (TP_ROOT_VAL). */
static void root_key(tparser *p, const char *s, size_t n) {
  p->root_keys++;
  if (n == 11 && !memcmp(s, "traceEvents", 11)) {
    p->in_events_key = 1;
  } else {
    ld_text(p->f, &s, &n);
    p->in_events_key = 0;
    p->cur_key_off = (uint32_t)p->meta.n;
    p->cur_key_len = (uint32_t)n;
    ld_buf_put(&p->meta, s, n);
    ld_note(p->f, PROFDB_STAT_metadata_keys, NULL);
  }
  p->pos = TP_ROOT_VAL;
}

/* TP_ROOT_VAL, other than traceEvents: the value of a metadata key,
** captured whole when it is an object or array. */
static void root_value(tparser *p, tok t, const char *s, size_t n) {
  p->meta_val_off = (uint32_t)p->meta.n;
  jw_init(&p->meta_w, &p->meta);
  if (is_scalar(t)) {
    ld_write_scalar(p->f, &p->meta_w, t, s, n);
    trace_push_meta(p, p->cur_key_off, p->cur_key_len);
    p->pos = TP_ROOT;
  } else {
    capture_start(p, &p->meta_w, CAP_META, t);
  }
}

/* TP_EVENT: a key of an event; its value comes next (TP_EVENT_VAL). */
static void event_member(tparser *p, const char *s, size_t n) {
  tevent *ev = &p->ev;
  ekey k = event_key(s, n);
  if (k != EK_OTHER) {
    if (ev->seen & (1u << k))
      ld_note(p->f, PROFDB_STAT_duplicate_key, "duplicate event key '%s'", ekey_text[k]);
    ev->seen |= 1u << k;
  } else {
    ld_text(p->f, &s, &n);
    ld_note(p->f, PROFDB_STAT_event_extra_keys, NULL);
    extra_member(ev, s, n);
  }
  p->cur_ekey = k;
  p->pos = TP_EVENT_VAL;
}

static int tok_handle(tparser *p, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  switch (p->pos) {
    case TP_TOP:
      if (t == TK_START_MAP) {
        p->pos = TP_ROOT;
        return 1;
      }
      if (t == TK_START_ARRAY) {
        p->layout_array = 1;
        p->pos = TP_EVENTS;
        return 1;
      }
      return ld_fail(p->f, PROFDB_EXIT_DATA, 1,
                     "not a trace: top-level value is not an object or array");

    case TP_ROOT:
      if (t == TK_END_MAP) {
        p->pos = TP_DONE;
        return 1;
      }
      root_key(p, s, n); /* t == TK_KEY */
      return 1;

    case TP_ROOT_VAL:
      if (p->in_events_key) {
        if (t != TK_START_ARRAY)
          return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "traceEvents is not an array");
        p->saw_events = 1;
        p->pos = TP_EVENTS;
        return 1;
      }
      root_value(p, t, s, n);
      return 1;

    case TP_EVENTS:
      if (t == TK_START_MAP) {
        reset_event(p);
        p->pos = TP_EVENT;
        return 1;
      }
      if (t == TK_END_ARRAY) {
        p->pos = p->layout_array ? TP_DONE : TP_ROOT;
        p->in_events_key = 0;
        return 1;
      }
      p->nonobj.n = 0;
      jw_init(&p->nonobj_w, &p->nonobj);
      if (is_scalar(t)) {
        ld_write_scalar(p->f, &p->nonobj_w, t, s, n);
        emit_nonobject(p, p->nonobj.p, p->nonobj.n);
      } else {
        capture_start(p, &p->nonobj_w, CAP_NONOBJ, t);
      }
      return 1;

    case TP_EVENT:
      if (t == TK_END_MAP) {
        trace_emit_event(p);
        p->pos = TP_EVENTS;
        return 1;
      }
      event_member(p, s, n); /* TK_KEY */
      return 1;

    case TP_EVENT_VAL: event_value(p, t, s, n); return 1;

    case TP_ARGS:
      if (t == TK_END_MAP) {
        p->pos = TP_EVENT;
        return 1;
      }
      p->cur_targ_key = targ_lookup(s, n);
      if (p->cur_targ_key < 0) {
        ld_text(p->f, &s, &n);
        args_member(ev, s, n);
      }
      p->pos = TP_ARG_VAL;
      return 1;

    case TP_ARG_VAL: arg_value(p, t, s, n); return 1;

    case TP_CAPTURE:
      if (ld_capture_token(p->f, p->cap_w, &p->cap_depth, t, s, n)) capture_finish(p);
      return 1;

    case TP_DONE: return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "unexpected data after the trace");
  }
  return 1;
}

LD_TOKEN_CALLBACKS(trace_callbacks, tok_handle);

int trace_parse(tparser *p) {
  return ld_parse(p->f, &trace_callbacks, p);
}
