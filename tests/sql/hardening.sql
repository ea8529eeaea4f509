-- Extension hardening: every function given hostile values (NULL, blobs,
-- a 1 MB string, invalid UTF-8, int64 limits, huge and NaN reals) returns a
-- value or NULL, or fails with a clear error naming the function and the
-- argument; wrong argument counts are refused; the mem_* tables on a
-- database without snapshot tables return no rows.
-- Output: function, value, and the result's type (or the error line).
CREATE TABLE val(k TEXT, v);
INSERT INTO val VALUES ('null', NULL), ('blob', X'00FF80C0'), ('zeroblob', zeroblob(100000)),
  ('empty', ''), ('nul_text', CAST(X'610062' AS TEXT)), ('bad_utf8', CAST(X'C3FFFE' AS TEXT)),
  ('huge_text', printf('%.*c', 1000000, 'x')), ('int_min', -9223372036854775808),
  ('int_max', 9223372036854775807), ('neg', -1), ('real_big', 1e308), ('real_neg', -1e308),
  ('real_inf', 1e308 * 10),
  ('kernel', 'void at::native::vectorized_elementwise_kernel<4>');
-- kernel_category(v)
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'null';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'blob';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'zeroblob';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'empty';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'nul_text';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'huge_text';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'int_min';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'int_max';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'neg';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'real_big';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'real_neg';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'real_inf';
SELECT 'kernel_category(v)', k, typeof(kernel_category(v)) FROM val WHERE k = 'kernel';
-- op_family(v)
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'null';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'blob';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'zeroblob';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'empty';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'nul_text';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'huge_text';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'int_min';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'int_max';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'neg';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'real_big';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'real_neg';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'real_inf';
SELECT 'op_family(v)', k, typeof(op_family(v)) FROM val WHERE k = 'kernel';
-- frame_rank(v)
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'null';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'blob';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'zeroblob';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'empty';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'nul_text';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'huge_text';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'int_min';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'int_max';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'neg';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'real_big';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'real_neg';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'real_inf';
SELECT 'frame_rank(v)', k, typeof(frame_rank(v)) FROM val WHERE k = 'kernel';
-- kernel_base(v)
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'null';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'blob';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'zeroblob';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'empty';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'nul_text';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'huge_text';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'int_min';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'int_max';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'neg';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'real_big';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'real_neg';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'real_inf';
SELECT 'kernel_base(v)', k, typeof(kernel_base(v)) FROM val WHERE k = 'kernel';
-- profdb_fmt_bytes(v)
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'null';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'blob';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'zeroblob';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'empty';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'nul_text';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'huge_text';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'int_min';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'int_max';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'neg';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'real_big';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'real_neg';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'real_inf';
SELECT 'profdb_fmt_bytes(v)', k, typeof(profdb_fmt_bytes(v)) FROM val WHERE k = 'kernel';
-- profdb_fmt_ns(v)
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'null';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'blob';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'zeroblob';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'empty';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'nul_text';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'huge_text';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'int_min';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'int_max';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'neg';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'real_big';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'real_neg';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'real_inf';
SELECT 'profdb_fmt_ns(v)', k, typeof(profdb_fmt_ns(v)) FROM val WHERE k = 'kernel';
-- profdb_median(v)
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'null';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'blob';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'zeroblob';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'empty';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'nul_text';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'bad_utf8';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'huge_text';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'int_min';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'int_max';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'neg';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'real_big';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'real_neg';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'real_inf';
SELECT 'profdb_median(v)', k, typeof(profdb_median(v)) FROM val WHERE k = 'kernel';
-- profdb_percentile(v, 50)
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'null';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'blob';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'zeroblob';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'empty';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'nul_text';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'bad_utf8';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'huge_text';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'int_min';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'int_max';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'neg';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'real_big';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'real_neg';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'real_inf';
SELECT 'profdb_percentile(v, 50)', k, typeof(profdb_percentile(v, 50)) FROM val WHERE k = 'kernel';
-- profdb_percentile(1, v)
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'null';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'blob';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'zeroblob';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'empty';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'nul_text';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'bad_utf8';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'huge_text';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'int_min';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'int_max';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'neg';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'real_big';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'real_neg';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'real_inf';
SELECT 'profdb_percentile(1, v)', k, typeof(profdb_percentile(1, v)) FROM val WHERE k = 'kernel';
-- interval_union(v, 10)
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'null';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'blob';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'zeroblob';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'empty';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'nul_text';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'bad_utf8';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'huge_text';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'int_min';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'int_max';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'neg';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'real_big';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'real_neg';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'real_inf';
SELECT 'interval_union(v, 10)', k, typeof(interval_union(v, 10)) FROM val WHERE k = 'kernel';
-- interval_union(0, v)
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'null';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'blob';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'zeroblob';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'empty';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'nul_text';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'bad_utf8';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'huge_text';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'int_min';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'int_max';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'neg';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'real_big';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'real_neg';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'real_inf';
SELECT 'interval_union(0, v)', k, typeof(interval_union(0, v)) FROM val WHERE k = 'kernel';
-- interval_overlap(0, 10, v)
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'null';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'blob';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'zeroblob';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'empty';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'nul_text';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'bad_utf8';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'huge_text';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'int_min';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'int_max';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'neg';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'real_big';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'real_neg';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'real_inf';
SELECT 'interval_overlap(0, 10, v)', k, typeof(interval_overlap(0, 10, v)) FROM val WHERE k = 'kernel';
-- interval_layers(0, v, 0)
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'null';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'blob';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'zeroblob';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'empty';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'nul_text';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'bad_utf8';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'huge_text';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'int_min';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'int_max';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'neg';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'real_big';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'real_neg';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'real_inf';
SELECT 'interval_layers(0, v, 0)', k, typeof(interval_layers(0, v, 0)) FROM val WHERE k = 'kernel';
-- interval_layers(0, 10, v)
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'null';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'blob';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'zeroblob';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'empty';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'nul_text';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'bad_utf8';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'huge_text';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'int_min';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'int_max';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'neg';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'real_big';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'real_neg';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'real_inf';
SELECT 'interval_layers(0, 10, v)', k, typeof(interval_layers(0, 10, v)) FROM val WHERE k = 'kernel';
-- interval_layers(0, 10, 0, v)
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'null';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'blob';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'zeroblob';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'empty';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'nul_text';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'bad_utf8';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'huge_text';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'int_min';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'int_max';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'neg';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'real_big';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'real_neg';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'real_inf';
SELECT 'interval_layers(0, 10, 0, v)', k, typeof(interval_layers(0, 10, 0, v)) FROM val WHERE k = 'kernel';
-- wrong argument counts: refused when the statement is prepared
SELECT kernel_category();
SELECT kernel_category(1, 2);
SELECT op_family();
SELECT frame_rank('a', 'b');
SELECT kernel_base();
SELECT profdb_fmt_bytes(1, 2);
SELECT profdb_fmt_ns();
SELECT profdb_median(1, 2);
SELECT profdb_percentile(1);
SELECT interval_union(1);
SELECT interval_overlap(1, 2);
SELECT interval_layers(1, 2);
SELECT interval_layers(1, 2, 3, 4, 5);
SELECT count(*) FROM mem_peak(1, 0, 'main', 4);
-- mem_* on a database without snapshot tables: no rows, no error cascade
SELECT 'missing', count(*) FROM mem_peak(1, 0);
SELECT 'missing', count(*) FROM mem_timeline(1, 0);
SELECT 'missing', count(*) FROM mem_live_at(1, 0, 5);
SELECT 'missing', count(*) FROM mem_trace_peak(1);
-- hostile arguments to the mem_* tables
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'null';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'blob';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'zeroblob';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'empty';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'nul_text';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'bad_utf8';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'huge_text';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'int_min';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'int_max';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'neg';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'real_big';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'real_neg';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'real_inf';
SELECT 'mem_peak', k, (SELECT count(*) FROM mem_peak(v, 0)) FROM val WHERE k = 'kernel';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'null';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'blob';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'zeroblob';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'empty';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'nul_text';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'bad_utf8';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'huge_text';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'int_min';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'int_max';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'neg';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'real_big';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'real_neg';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'real_inf';
SELECT 'mem_live_at', k, (SELECT count(*) FROM mem_live_at(1, 0, v)) FROM val WHERE k = 'kernel';
