/*
** mcp_args.c — `profdb mcp`: JSON text, and reading a tool call's
** arguments, the report's options among them (checked by the one
** definition of report_params.c, as the command line checks them).
*/
#include "mcp.h"
#include "oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcp_put_str(ld_buf *b, const char *s) {
  ld_buf_put_json_string(b, s ? s : "", s ? strlen(s) : 0);
}

void mcp_put_cstr(ld_buf *b, const char *s) {
  ld_buf_put(b, s, strlen(s));
}

yajl_val mcp_get(yajl_val v, const char *key, yajl_type type) {
  const char *path[] = {key, NULL};
  return v ? yajl_tree_get(v, path, type) : NULL;
}

const char *mcp_get_string(yajl_val v, const char *key) {
  yajl_val s = mcp_get(v, key, yajl_t_string);
  return s ? YAJL_GET_STRING(s) : NULL;
}

long long mcp_get_int(yajl_val v, const char *key, long long dflt) {
  yajl_val n = mcp_get(v, key, yajl_t_number);
  return n && YAJL_IS_INTEGER(n) ? YAJL_GET_INTEGER(n) : dflt;
}

int mcp_get_int_checked(yajl_val v, const char *key, long long lo, long long hi, long long dflt,
                        long long *out_value, ld_buf *out) {
  yajl_val a = mcp_get(v, key, yajl_t_any);
  *out_value = dflt;
  if (!a || YAJL_IS_NULL(a)) return 0;
  if (YAJL_IS_INTEGER(a)) {
    *out_value = YAJL_GET_INTEGER(a);
    return 0;
  }
  char why[160];
  snprintf(why, sizeof why, "%s is an integer from %lld to %lld, got ", key, lo, hi);
  mcp_put_cstr(out, why);
  if (YAJL_IS_STRING(a))
    mcp_put_str(out, YAJL_GET_STRING(a));
  else
    mcp_put_cstr(out, YAJL_IS_NUMBER(a) ? YAJL_GET_NUMBER(a) : "a value of another type");
  return -1;
}

/* The strings of an array argument (NULL-terminated, malloc'd; the
** strings belong to the tree).  *n gets their number; -1 when a member is
** not a string. */
const char **mcp_get_strings(yajl_val v, const char *key, int *n) {
  yajl_val a = mcp_get(v, key, yajl_t_array);
  *n = 0;
  if (!a) return NULL;
  const char **out = calloc(YAJL_GET_ARRAY(a)->len + 1, sizeof *out);
  if (!out) ld_oom();
  for (size_t i = 0; i < YAJL_GET_ARRAY(a)->len; i++) {
    yajl_val s = YAJL_GET_ARRAY(a)->values[i];
    if (!YAJL_IS_STRING(s)) {
      *n = -1;
      return out;
    }
    out[(*n)++] = YAJL_GET_STRING(s);
  }
  return out;
}

/* The argument's value as the text the command line would give, into
** text; 0 when it has the wrong JSON type for the option. */
static int option_text(const rpo_def *o, yajl_val a, char *text, size_t n) {
  if (o->type == RPO_FLAG && (YAJL_IS_TRUE(a) || YAJL_IS_FALSE(a)))
    snprintf(text, n, "%s", YAJL_IS_TRUE(a) ? "true" : "false");
  else if (o->type == RPO_INT && YAJL_IS_INTEGER(a))
    snprintf(text, n, "%lld", (long long)YAJL_GET_INTEGER(a));
  else if (o->type == RPO_NUMBER && YAJL_IS_NUMBER(a))
    snprintf(text, n, "%s", YAJL_GET_NUMBER(a));
  else if (o->type == RPO_CHOICE && YAJL_IS_STRING(a))
    snprintf(text, n, "%s", YAJL_GET_STRING(a));
  else
    return 0;
  return 1;
}

int mcp_get_options(yajl_val args, unsigned command, rpo_values *v, ld_buf *out) {
  static const char *const type_name[] = {"an integer", "a number", "a string", "a boolean"};
  rpo_defaults(v);
  for (int k = 0; k < RPO_COUNT; k++) {
    const rpo_def *o = &rpo_table[k];
    yajl_val a = (o->commands & command) ? mcp_get(args, o->name, yajl_t_any) : NULL;
    char text[512], why[600];
    if (!a || YAJL_IS_NULL(a)) continue;
    if (!option_text(o, a, text, sizeof text)) {
      snprintf(why, sizeof why, "%s is %s", o->name, type_name[o->type]);
      mcp_put_cstr(out, why);
      return -1;
    }
    int bad = rpo_parse(v, k, text, why, sizeof why) != 0;
    if (!bad && o->mcp_max && v->i[k] > o->mcp_max) {
      snprintf(why, sizeof why, "is at most %.0f here (the answer's size), got '%s'",
               o->mcp_max, text);
      bad = 1;
    }
    if (bad) {
      mcp_put_cstr(out, o->name);
      mcp_put_cstr(out, " ");
      mcp_put_cstr(out, why);
      return -1;
    }
  }
  return 0;
}
