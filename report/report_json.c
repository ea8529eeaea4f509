/*
** report_json.c — the report as JSON (schema: docs/report-schema.md).
**
** Numbers stay numbers: integers exactly, reals in the shortest form that
** reads back to the same double; names are never shortened.
*/
#include "report.h"

#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_string(FILE *out, const char *s) {
  ld_buf b = {0};
  ld_buf_put_json_string(&b, s ? s : "", s ? strlen(s) : 0);
  fwrite(b.p, 1, b.n, out);
  ld_buf_free(&b);
}

/* Shortest %.Ng that reads back to the same double. */
static void put_real(FILE *out, double d) {
  if (d != d || d - d != 0) { /* NaN or infinity: not JSON */
    fputs("null", out);
    return;
  }
  char buf[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  fputs(buf, out);
}

static void put_value(FILE *out, const rp_value *v) {
  switch (v->type) {
    case SQLITE_INTEGER: fprintf(out, "%lld", v->i); break;
    case SQLITE_FLOAT: put_real(out, v->d); break;
    case SQLITE_TEXT: put_string(out, v->s); break;
    default: fputs("null", out);
  }
}

/* A column of unit "json" holds JSON text built by SQLite's json
** functions (a finding's subjects and evidence): written as it is. */
static int is_json_text(const rp_section *s, int c, const rp_value *v) {
  return v->type == SQLITE_TEXT && !strcmp(s->cols[c].unit, "json");
}

static void put_rows(FILE *out, const rp_section *s, const char *indent) {
  fputc('[', out);
  for (int r = 0; r < s->nrows; r++) {
    fprintf(out, "%s\n%s  {", r ? "," : "", indent);
    for (int c = 0; c < s->ncols; c++) {
      if (c) fputs(", ", out);
      put_string(out, s->cols[c].name);
      fputs(": ", out);
      const rp_value *v = rp_cell(s, r, c);
      if (is_json_text(s, c, v))
        fputs(v->s, out);
      else
        put_value(out, v);
    }
    fputc('}', out);
  }
  if (s->nrows) fprintf(out, "\n%s", indent);
  fputc(']', out);
}

/* "gate": {"passed": true|false, "checks": [...]}: passed as a boolean
** (null: not evaluated), the other columns as in sections. */
static void write_gate(FILE *out, const rp_section *g) {
  int passed_col = rp_col_index(g, "passed"), all = 1;
  for (int r = 0; r < g->nrows; r++) {
    const rp_value *v = rp_cell(g, r, passed_col);
    if (v->type == SQLITE_INTEGER && v->i == 0) all = 0;
  }
  fprintf(out, ",\n  \"gate\": {\"passed\": %s, \"checks\": [", all ? "true" : "false");
  for (int r = 0; r < g->nrows; r++) {
    fprintf(out, "%s\n    {", r ? "," : "");
    for (int c = 0; c < g->ncols; c++) {
      const rp_value *v = rp_cell(g, r, c);
      if (c) fputs(", ", out);
      put_string(out, g->cols[c].name);
      fputs(": ", out);
      if (c == passed_col && v->type == SQLITE_INTEGER)
        fputs(v->i ? "true" : "false", out);
      else
        put_value(out, v);
    }
    fputc('}', out);
  }
  fputs(g->nrows ? "\n  ]}" : "]}", out);
}

void rp_write_json(const rp_report *r, FILE *out) {
  fputs("{\n  \"profdb_version\": \"" PROFDB_VERSION "\",\n  \"inputs\": [", out);
  for (int i = 0; i < r->ninputs; i++) {
    if (i) fputs(", ", out);
    put_string(out, r->inputs[i]);
  }
  fputs("],\n  \"scope\": ", out);
  if (r->scope_note)
    put_string(out, r->scope_note);
  else
    fputs("null", out);
  if (r->with_gate) write_gate(out, &r->gate);
  fputs(",\n  \"sections\": [", out);
  for (int i = 0; i < r->nsections; i++) {
    const rp_section *s = &r->sections[i];
    fprintf(out, "%s\n    {\"id\": ", i ? "," : "");
    put_string(out, s->id);
    fputs(", \"group\": ", out);
    put_string(out, s->group);
    fputs(", \"title\": ", out);
    put_string(out, s->title);
    const char *scope = rp_section_scope(r, s);
    if (scope) {
      fputs(", \"scope\": ", out);
      put_string(out, scope);
    }
    fputs(",\n     \"question\": ", out);
    put_string(out, s->question);
    fputs(",\n     \"columns\": [", out);
    for (int c = 0; c < s->ncols; c++) {
      fputs(c ? ", " : "", out);
      fputs("{\"name\": ", out);
      put_string(out, s->cols[c].name);
      fputs(", \"unit\": ", out);
      if (*s->cols[c].unit)
        put_string(out, s->cols[c].unit);
      else
        fputs("null", out);
      fputs(", \"description\": ", out);
      put_string(out, s->cols[c].doc);
      fputc('}', out);
    }
    fputs("],\n     \"rows\": ", out);
    put_rows(out, s, "     ");
    fputs(",\n     \"note\": ", out);
    if (s->skipped && s->note)
      put_string(out, s->note);
    else
      fputs("null", out);
    fputc('}', out);
  }
  fprintf(out, "\n  ],\n  \"%s\": ", r->kind->summary_key);
  put_rows(out, &r->findings, "  ");
  fputs("\n}\n", out);
}
