/*
** cli_commands.c — profdb's commands, one table: `profdb COMMAND ...`
** (main.c) and `python -m profdb COMMAND ...` (python/profdb/_native.c)
** dispatch through it, and `profdb --help` lists it.
*/
#include "cli.h"

#include "profdb/profdb.h"

#include <stdio.h>
#include <string.h>

static const cli_command commands[] = {
    {"load", cli_load, "INPUT... -o DB",
     "load traces (.json, .json.gz), memory snapshots\n(JSON) or folders of them into DB"},
    {"query", cli_query, "DB [SQL]", "run SQL (or SQL from stdin) and print the rows"},
    {"report", cli_report, "DB|INPUT...",
     "write the resource report (Markdown, JSON, HTML, CSV)"},
    {"diff", cli_diff, "BEFORE AFTER", "compare two runs (more: a series, a trend)"},
    {"export", cli_export, "DB|INPUT -o DIR",
     "a Parquet dataset, or Chrome / memory_viz slices"},
    {"mcp", cli_mcp, "--allow DIR...", "Model Context Protocol server (stdio) for agents"},
    {NULL, NULL, NULL, NULL},
};

const cli_command *cli_commands = commands;

static const char usage_head[] =
    "usage: profdb <command> [options]\n"
    "\n"
    "Turn PyTorch profiler traces and CUDA memory snapshots into SQLite.\n"
    "\n"
    "commands:\n";

static const char usage_tail[] =
    "\n"
    "run 'profdb <command> --help' for the options of a command.\n"
    "exit codes: 0 ok, 1 invalid input, 2 usage/system error,\n"
    "            3 truncated input loaded partially, 4 pickle refused,\n"
    "            5 out of memory, 6 a chrome slice past --max-mb (nothing\n"
    "            written), 10 a 'profdb diff' gate check (--fail-if,\n"
    "            --gate) failed, 75 an I/O error a retry may cure (export)\n";

void cli_usage(FILE *f) {
  fputs(usage_head, f);
  for (const cli_command *c = commands; c->name; c++) {
    char left[64];
    snprintf(left, sizeof left, "%s %s", c->name, c->args);
    fprintf(f, "  %-24s ", left);
    for (const char *p = c->help; *p; p++) {
      fputc(*p, f);
      if (*p == '\n') fprintf(f, "%27s", "");
    }
    fputc('\n', f);
  }
  fputs(usage_tail, f);
}

int cli_main(int argc, char **argv) {
  if (argc < 1) {
    cli_usage(stderr);
    return PROFDB_EXIT_USAGE;
  }
  const char *cmd = argv[0];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    cli_usage(stdout);
    return PROFDB_EXIT_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("profdb %s (schema %d, SQLite %s)\n", PROFDB_VERSION, PROFDB_SCHEMA_VERSION,
           sqlite3_libversion());
    return PROFDB_EXIT_OK;
  }
  for (const cli_command *c = commands; c->name; c++)
    if (!strcmp(cmd, c->name)) return c->run(argc, argv);
  fprintf(stderr, "profdb: unknown command '%s'\n\n", cmd);
  cli_usage(stderr);
  return PROFDB_EXIT_USAGE;
}
