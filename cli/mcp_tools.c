/*
** mcp_tools.c — the tools of `profdb mcp`: load, findings, list_sections,
** read_section and diff (sql: mcp_sql.c), with their descriptions and
** input schemas.  They run the CLI's own code: the loader (profdb_load),
** `profdb report`'s report path (cli_report_run) and `profdb diff`'s
** (cli_diff_run), whose JSON (rp_write_json) is the answer; the report's
** options, in the schema and in the arguments, are those of
** report_params.c.  What the library prints on stderr is captured and
** returned as the tool's error text.
*/
#include "cli.h"
#include "export.h"
#include "mcp.h"
#include "oom.h"
#include "report.h"

#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tool_load(mcp *m, yajl_val args, ld_buf *out) {
  int n = 0, rc = -1;
  const char **inputs = mcp_get_strings(args, "inputs", &n);
  char **real = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof *real);
  char *db = NULL;
  if (!real) ld_oom();
  if (n <= 0) {
    mcp_put_cstr(out, "give inputs: an array of trace / snapshot files or folders");
    goto done;
  }
  for (int i = 0; i < n; i++)
    if (!(real[i] = mcp_allowed(m, inputs[i], 1, out))) goto done;
  if (!(db = mcp_allowed(m, mcp_get_string(args, "db"), 0, out))) goto done;
  profdb_load_options opt = {.quiet = 1,
                             .run = mcp_get_string(args, "run"),
                             .replace = mcp_get(args, "replace", yajl_t_true) != NULL};
  mcp_capture c;
  ld_buf msg = {0};
  mcp_capture_begin(&c);
  int lrc = profdb_load(db, (const char *const *)real, n, &opt);
  mcp_capture_end(&c, &msg);
  if (lrc == PROFDB_EXIT_OK || lrc == PROFDB_EXIT_TRUNCATED) {
    mcp_put_cstr(out, "loaded into ");
    mcp_put_cstr(out, db);
    if (msg.n) {
      mcp_put_cstr(out, "\n");
      ld_buf_put(out, msg.p, msg.n);
    }
    mcp_put_cstr(out, "\nnext: the findings tool, or sql on it");
    rc = 0;
  } else {
    char code[64];
    snprintf(code, sizeof code, "load failed (exit %d): ", lrc);
    mcp_put_cstr(out, code);
    ld_buf_put(out, msg.p ? msg.p : "", msg.n);
  }
  ld_buf_free(&msg);
done:
  for (int i = 0; i < n; i++) free(real[i]);
  free(real);
  free(inputs);
  free(db);
  return rc;
}

static const rp_kind *kind_of(yajl_val args) {
  const char *k = mcp_get_string(args, "kind");
  return k && !strcmp(k, "diff") ? &rp_kind_diff : &rp_kind_report;
}

static int tool_list_sections(mcp *m, yajl_val args, ld_buf *out) {
  const rp_kind *kind = kind_of(args);
  rp_report r = {0};
  rp_section summary = {0};
  char path[8192];
  ld_buf msg = {0};
  mcp_capture c;
  r.kind = kind;
  r.queries_dir = m->queries_dir;
  snprintf(path, sizeof path, "%s/%s", m->queries_dir, kind->summary);
  mcp_capture_begin(&c);
  int rc = rp_parse_file(path, kind->summary_key, &summary) || rp_load_sections(&r, NULL, 0);
  mcp_capture_end(&c, &msg);
  if (rc) {
    ld_buf_put(out, msg.p ? msg.p : "", msg.n);
  } else {
    mcp_put_cstr(out, "[{\"id\": ");
    mcp_put_str(out, kind->summary_key);
    mcp_put_cstr(out, ", \"title\": ");
    mcp_put_str(out, summary.title);
    mcp_put_cstr(out, "}");
    for (int i = 0; i < r.nsections; i++) {
      mcp_put_cstr(out, ",\n {\"id\": ");
      mcp_put_str(out, r.sections[i].id);
      mcp_put_cstr(out, ", \"group\": ");
      mcp_put_str(out, r.sections[i].group);
      mcp_put_cstr(out, ", \"title\": ");
      mcp_put_str(out, r.sections[i].title);
      mcp_put_cstr(out, "}");
    }
    mcp_put_cstr(out, "]");
  }
  ld_buf_free(&msg);
  rp_section_free(&summary);
  rp_free(&r);
  return rc ? -1 : 0;
}

/* r's JSON (rp_write_json, as `profdb report --json` writes it) into out. */
static void put_json(rp_report *r, ld_buf *out) {
  char *data = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&data, &size);
  if (!f) ld_oom();
  rp_write_json(r, f);
  fclose(f);
  ld_buf_put(out, data, size);
  free(data);
}

/* The answer of a report or diff tool: its JSON, or when `failed` what
** the library printed. */
static int answer(rp_report *r, int failed, ld_buf *msg, ld_buf *out) {
  if (failed)
    ld_buf_put(out, msg->n ? msg->p : "report failed", msg->n ? msg->n : 13);
  else
    put_json(r, out);
  ld_buf_free(msg);
  return failed ? -1 : 0;
}

/* The database a report or diff tool reads for path: path itself, or for
** a Parquet dataset of profdb export (a folder) a temporary database of its
** summaries, of run `run` (NULL: every run), as `profdb report DIR` reads
** it (rp_cli_database; rp_cli_free(tmp) removes it).  NULL with why on
** stderr. */
static const char *database_of(rp_cli *tmp, const char *path, const char *run) {
  int rc;
  if (!ex_is_dataset(path)) return path;
  tmp->run[0] = run;
  tmp->nrun = run != NULL;
  return rp_cli_database(tmp, &path, 1, 0, &rc);
}

/* The report tools: read_section (one section) and findings (section
** NULL), on the report path of `profdb report`. */
static int report_tool(mcp *m, yajl_val args, ld_buf *out, const char *section) {
  rpo_values v;
  if (mcp_get_options(args, RPO_REPORT, &v, out)) return -1;
  char *path = mcp_allowed(m, mcp_get_string(args, "db"), 1, out);
  if (!path) return -1;
  ld_buf msg = {0};
  mcp_capture c;
  rp_param params[RPO_MAX_PARAMS];
  rp_report r = {0};
  r.kind = &rp_kind_report;
  r.queries_dir = m->queries_dir;
  r.inputs = &path;
  r.ninputs = 1;
  r.with_findings = section == NULL;
  rp_cli tmp;
  if (rp_cli_init(&tmp, 0, RPO_REPORT)) ld_oom();
  mcp_capture_begin(&c);
  const char *db_path = database_of(&tmp, path, mcp_get_string(args, "run"));
  sqlite3 *db = r.db = db_path ? cli_open_db(db_path, 1) : NULL;
  int failed = !db || cli_check_schema(db, db_path) ||
               (section && rp_load_sections(&r, &section, 1)) ||
               cli_report_run(&r, &v, params, path);
  mcp_capture_end(&c, &msg);
  int rc = answer(&r, failed, &msg, out);
  rp_free(&r);
  if (db) sqlite3_close(db);
  rp_cli_free(&tmp);
  free(path);
  return rc;
}

static int tool_read_section(mcp *m, yajl_val args, ld_buf *out) {
  const char *id = mcp_get_string(args, "section");
  if (!id || !*id) {
    mcp_put_cstr(out, "give section: an id of list_sections");
    return -1;
  }
  if (!strcmp(id, "findings")) return report_tool(m, args, out, NULL);
  return report_tool(m, args, out, id);
}

static int tool_findings(mcp *m, yajl_val args, ld_buf *out) {
  return report_tool(m, args, out, NULL);
}

/* The diff of before and after (the verdict, the sections only[] or all,
** the gate's checks) on the diff path of `profdb diff`. */
static int run_diff(mcp *m, yajl_val args, char *before, char *after, ld_buf *out) {
  int ngate = 0, nonly = 0, rc = -1;
  const char **checks = mcp_get_strings(args, "gate", &ngate);
  const char **only = mcp_get_strings(args, "sections", &nonly);
  rpo_values v;
  if (ngate < 0 || nonly < 0) {
    mcp_put_cstr(out, "gate and sections are arrays of strings");
  } else if (!mcp_get_options(args, RPO_DIFF, &v, out)) {
    cli_gate gate = {0};
    /* a category/kernel NAME in neither run is an error, as on the command
    ** line, unless allow_missing */
    gate.allow_missing = YAJL_IS_TRUE(mcp_get(args, "allow_missing", yajl_t_true));
    ld_buf msg = {0};
    mcp_capture c;
    rp_param params[RPO_MAX_PARAMS];
    const char *inputs[2] = {before, after};
    rp_report r = {0};
    r.kind = &rp_kind_diff;
    r.queries_dir = m->queries_dir;
    r.params = params;
    r.nparams = rpo_bind(&v, RPO_DIFF, params);
    r.inputs = (char **)inputs;
    r.ninputs = 2;
    r.with_findings = 1;
    rp_cli tmp;
    if (rp_cli_init(&tmp, 0, RPO_DIFF)) ld_oom();
    mcp_capture_begin(&c);
    int failed = 0, dbrc;
    const char *run = mcp_get_string(args, "run"), *b = NULL, *a = NULL;
    for (int i = 0; i < ngate && !failed; i++) failed = cli_gate_add(&gate, checks[i]) != 0;
    if (!failed && (b = database_of(&tmp, before, run))) a = database_of(&tmp, after, run);
    if (!failed && a) r.db = cli_open_pair(b, a, &dbrc);
    failed = failed || !r.db || (nonly && rp_load_sections(&r, only, nonly)) ||
             cli_diff_run(&r, &gate);
    mcp_capture_end(&c, &msg);
    rc = answer(&r, failed, &msg, out);
    rp_free(&r);
    if (r.db) sqlite3_close(r.db);
    rp_cli_free(&tmp);
    cli_gate_free(&gate);
  }
  free(checks);
  free(only);
  return rc;
}

static int tool_diff(mcp *m, yajl_val args, ld_buf *out) {
  char *before = mcp_allowed(m, mcp_get_string(args, "before"), 1, out), *after = NULL;
  if (before) after = mcp_allowed(m, mcp_get_string(args, "after"), 1, out);
  int rc = after ? run_diff(m, args, before, after, out) : -1;
  free(before);
  free(after);
  return rc;
}

/* ---- the tools' descriptions and schemas ---------------------------------- */

#define DB_PROP \
  "\"db\": {\"type\": \"string\", \"description\": \"a profdb database (.db) path\"}"
/* The report tools and diff read a Parquet dataset of profdb export too. */
#define REPORT_DB_PROP                                                                         \
  "\"db\": {\"type\": \"string\", \"description\": \"a profdb database (.db), or the folder "  \
  "of a "                                                                                      \
  "Parquet dataset of profdb export (read from its summaries, as profdb report DIR)\"}, "      \
  "\"run\": {\"type\": \"string\", \"description\": \"a dataset's run (its run=NAME folders; " \
  "default every run)\"}"

const mcp_tool mcp_tools[] = {
    {"load", tool_load,
     "Load PyTorch profiler traces (Kineto JSON, .json.gz) and CUDA memory snapshots (JSON), "
     "or "
     "folders of them, into a profdb SQLite database (created, or appended to). Atomic. Do "
     "this "
     "first; then findings, read_section or sql on the database.",
     "\"inputs\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, "
     "\"description\": \"trace / snapshot files or folders\"}, " DB_PROP
     ", \"run\": {\"type\": \"string\", \"description\": \"the inputs are ranks of this "
     "run\"}, "
     "\"replace\": {\"type\": \"boolean\", \"description\": \"reload inputs already "
     "loaded\"}",
     0, "[\"inputs\", \"db\"]", 0},
    {"findings", tool_findings,
     "The report's findings: what to fix first, ranked by the step time or memory the fix can "
     "save at most, each with observation, hypothesis, action, expected saving, the metric "
     "that validates the fix, confidence and the sections it rests on (JSON of profdb report "
     "--json, findings only).",
     REPORT_DB_PROP, RPO_REPORT, "[\"db\"]", 1},
    {"list_sections", tool_list_sections,
     "The ids and titles of the report's sections (kind report, default) or of the diff's "
     "(kind diff), for read_section and diff.",
     "\"kind\": {\"type\": \"string\", \"enum\": [\"report\", \"diff\"]}", 0, NULL, 1},
    {"read_section", tool_read_section,
     "One report section as JSON (columns with units and descriptions, rows; times in ns, "
     "sizes in bytes), as profdb report --json --section ID writes it.",
     REPORT_DB_PROP ", \"section\": {\"type\": \"string\", \"description\": \"an "
                    "id of list_sections\"}",
     RPO_REPORT, "[\"db\", \"section\"]", 1},
    {"sql", mcp_tool_sql,
     "Run one read-only SQL statement on a profdb database (SQLite, with profdb's functions: "
     "kernel_category(name), op_family(name), mem_peak(snapshot, device), "
     "interval_union(start, "
     "end), ...). ts and dur are integer ns. Writing statements are refused. "
     "SELECT sql FROM sqlite_schema WHERE name = 'kernel' explains a table or view.",
     DB_PROP
     ", \"query\": {\"type\": \"string\"}, \"max_rows\": {\"type\": "
     "\"integer\", \"minimum\": 1, \"maximum\": 10000, \"description\": \"default 200\"}, "
     "\"timeout_ms\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 60000, "
     "\"description\": \"default 10000\"}",
     0, "[\"db\", \"query\"]", 1},
    {"diff", tool_diff,
     "Compare two runs (profdb databases, or Parquet dataset folders of profdb export): the "
     "verdict (step time, kernels, utilization, "
     "memory, caveats), the gate when checks are given (e.g. 'step_time > +5%', 'ooms > 0'), "
     "and the diff sections asked for (list_sections kind diff); JSON of profdb diff --json.",
     "\"before\": {\"type\": \"string\"}, \"after\": {\"type\": \"string\"}, "
     "\"run\": {\"type\": \"string\", \"description\": \"the run of both datasets (default "
     "every "
     "run)\"}, "
     "\"gate\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}, \"sections\": "
     "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}, \"allow_missing\": "
     "{\"type\": \"boolean\", \"description\": \"let a category[NAME] or kernel[NAME] check "
     "whose NAME is in neither run pass unevaluated (default: an error naming the closest "
     "names)\"}",
     RPO_DIFF, "[\"before\", \"after\"]", 1},
    {NULL, NULL, NULL, NULL, 0, NULL, 0},
};

void mcp_put_schema(ld_buf *b, const mcp_tool *t) {
  mcp_put_cstr(b, "{\"type\": \"object\", \"properties\": {");
  mcp_put_cstr(b, t->schema);
  if (t->options) {
    mcp_put_cstr(b, ", ");
    rpo_put_schema(b, t->options);
  }
  mcp_put_cstr(b, "}");
  if (t->required) {
    mcp_put_cstr(b, ", \"required\": ");
    mcp_put_cstr(b, t->required);
  }
  mcp_put_cstr(b, "}");
}
