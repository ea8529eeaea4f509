/*
** sql.h — the loader's SQL scripts, embedded from loader/sql/NAME.sql by
** cmake/embed.cmake (each NUL-terminated; run with ld_exec_script).
*/
#ifndef PROFDB_SQL_H
#define PROFDB_SQL_H

extern const char profdb_sql_writer_settings[];        /* load.c, bench/floor.c */
extern const char profdb_sql_trace_finish[];           /* trace.c */
extern const char profdb_sql_postpass_legacy_blocks[]; /* postpass.c, in run order */
extern const char profdb_sql_postpass_indexes[];
extern const char profdb_sql_postpass_step_gpu[];
extern const char profdb_sql_postpass_attr[];
extern const char profdb_sql_postpass_links[];
extern const char profdb_sql_postpass_spans[];
extern const char profdb_sql_postpass_link_stats[];
extern const char profdb_sql_postpass_flow_stats[];
extern const char profdb_sql_merge_tables[]; /* dbswap.c */
extern const char profdb_sql_merge_missing[];
extern const char profdb_sql_merge_stale_stats[];
extern const char profdb_sql_merge_stats_add[];
extern const char profdb_sql_schema_check[];   /* schema.c */
extern const char profdb_sql_cpu_busy_index[]; /* postpass.c, export_merge.c */

#endif
