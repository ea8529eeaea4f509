/* report_format.test.c — what the Markdown and HTML writers show: column
** order, units in headers, signed deltas, short names told apart. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                  \
  do {                                    \
    if (!(cond)) {                        \
      printf("FAIL line %d: ", __LINE__); \
      printf(__VA_ARGS__);                \
      printf("\n");                       \
      failures++;                         \
    }                                     \
  } while (0)

static size_t chars(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* A one-column section of text rows with the given unit. */
static rp_section names_section(const char *unit, const char *const *rows, int n) {
  rp_section s;
  memset(&s, 0, sizeof s);
  s.ncols = 1;
  s.cols = calloc(1, sizeof *s.cols);
  s.cols[0].name = strdup("name");
  s.cols[0].unit = strdup(unit);
  s.cols[0].doc = strdup("");
  s.nrows = n;
  s.cells = calloc((size_t)n, sizeof *s.cells);
  for (int i = 0; i < n; i++) {
    s.cells[i].type = SQLITE_TEXT;
    s.cells[i].s = strdup(rows[i]);
  }
  return s;
}

static void names_apart(const char *unit, const char *const *rows, int n, size_t max,
                        const char *const *must_keep) {
  rp_section s = names_section(unit, rows, n);
  char **out = rp_short_names(&s, 0, max);
  for (int i = 0; i < n; i++) {
    CHECK(chars(out[i]) <= max, "'%s' is %zu characters, over %zu", out[i], chars(out[i]), max);
    if (must_keep[i])
      CHECK(strstr(out[i], must_keep[i]), "'%s' lost '%s'", out[i], must_keep[i]);
    for (int j = 0; j < i; j++)
      CHECK(strcmp(out[i], out[j]) || !strcmp(rows[i], rows[j]),
            "rows %d and %d both read '%s'", j, i, out[i]);
  }
  rp_free_names(out, n);
  rp_section_free(&s);
}

int main(void) {
  /* The functor is what differs between elementwise kernels. */
  static const char *const elementwise[] = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3>)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, "
      "float, "
      "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> "
      ">(int, "
      "at::native::BUnaryFunctor<float, float, float, "
      "at::native::binary_internal::MulFunctor<float> >, "
      "at::detail::Array<char*, 2>)"};
  static const char *const functors[] = {"FillFunctor", "CUDAFunctor_add", "BUnaryFunctor"};
  names_apart("symbol", elementwise, 3, 60, functors);
  /* Tile suffixes of Tensile GEMMs: same 90-character prefix. */
  static const char *const tensile[] = {
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
      "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA2048",
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
      "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA4_GRVWB4_GSUAMB_IU1_K1_LBSPPA1024",
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
      "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA2048"};
  static const char *const tiles[] = {"GRVWA8", "GRVWA4", "MT128x128x64"};
  names_apart("symbol", tensile, 3, 60, tiles);
  /* Names that fit stay whole, namespaces included. */
  static const char *const ops[] = {"aten::mm", "c10d::allreduce_"};
  static const char *const whole[] = {"aten::mm", "c10d::allreduce_"};
  names_apart("symbol", ops, 2, 60, whole);
  /* A source keeps its end (the line and function). */
  static const char *const sources[] = {
      "/home/user/very/long/path/to/the/project/src/model/transformer/layers.py:1234 forward"};
  static const char *const line[] = {"layers.py:1234 forward"};
  names_apart("source", sources, 1, 40, line);

  /* Columns: the name first, one unit per column in the header, signs. */
  rp_section s;
  memset(&s, 0, sizeof s);
  static const char *const cols[][2] = {
      {"wall_ns", "ns"}, {"delta_ns", "ns"}, {"size", "bytes"}, {"name", "symbol"}};
  s.ncols = 4;
  s.cols = calloc(4, sizeof *s.cols);
  for (int c = 0; c < 4; c++) {
    s.cols[c].name = strdup(cols[c][0]);
    s.cols[c].unit = strdup(cols[c][1]);
    s.cols[c].doc = strdup("");
  }
  s.nrows = 2;
  s.cells = calloc(8, sizeof *s.cells);
  long long v[2][3] = {{14460000, 2500000, 3 << 20}, {2000, -1200000, 1536}};
  for (int r = 0; r < 2; r++) {
    for (int c = 0; c < 3; c++) {
      s.cells[r * 4 + c].type = SQLITE_INTEGER;
      s.cells[r * 4 + c].i = v[r][c];
    }
    s.cells[r * 4 + 3].type = SQLITE_TEXT;
    s.cells[r * 4 + 3].s = strdup(r ? "b" : "a");
  }
  rp_colview views[4];
  int n = rp_column_views(&s, views, 4);
  CHECK(n == 4 && views[0].col == 3, "the name column is not first");
  CHECK(!strcmp(views[1].header, "wall (ms)"), "header '%s'", views[1].header);
  CHECK(!strcmp(views[2].header, "delta (ms)"), "header '%s'", views[2].header);
  CHECK(!strcmp(views[3].header, "size (MiB)"), "header '%s'", views[3].header);
  char cell[64];
  rp_format_cell(cell, sizeof cell, &views[1], &s.cells[0]);
  CHECK(!strcmp(cell, "14.46"), "wall cell '%s'", cell);
  rp_format_cell(cell, sizeof cell, &views[1], &s.cells[4]);
  CHECK(!strcmp(cell, "0.0020"), "small wall cell '%s'", cell);
  rp_format_cell(cell, sizeof cell, &views[2], &s.cells[1]);
  CHECK(!strcmp(cell, "+2.50"), "positive delta '%s'", cell);
  rp_format_cell(cell, sizeof cell, &views[2], &s.cells[5]);
  CHECK(!strcmp(cell, "-1.20"), "negative delta '%s'", cell);
  rp_format_cell(cell, sizeof cell, &views[3], &s.cells[2]);
  CHECK(!strcmp(cell, "3.00"), "size cell '%s'", cell);
  rp_section_free(&s);

  if (failures)
    printf("%d failure(s)\n", failures);
  else
    printf("ok\n");
  return failures != 0;
}
