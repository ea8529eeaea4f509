/*
** families.h — the function families of the profdb extension.  Each file
** registers its functions on a connection; ext.c calls them in order.
*/
#ifndef PROFDB_FAMILIES_H
#define PROFDB_FAMILIES_H

#include <sqlite3ext.h>

int profdb_category_init(sqlite3 *db);      /* kernel_category()          category.c */
int profdb_opfamily_init(sqlite3 *db);      /* op_family()                opfamily.c */
int profdb_memreplay_init(sqlite3 *db);     /* mem_timeline, mem_peak, mem_live_at,
                                  ** mem_trace_peak            memreplay.c */
int profdb_intervals_init(sqlite3 *db);     /* interval_union, interval_overlap,
                                  ** interval_layers           intervals.c */
int profdb_stats_init(sqlite3 *db);         /* profdb_median, profdb_percentile
                                  **                           stats.c */
int profdb_format_init(sqlite3 *db);        /* profdb_fmt_bytes, profdb_fmt_ns,
                                  ** profdb_version            format.c */
int profdb_frames_init(sqlite3 *db);        /* frame_rank, kernel_base    frames.c */
int profdb_flops_init(sqlite3 *db);         /* op_flops, op_elements      flops.c */
int profdb_hta_init(sqlite3 *db);           /* hta_ts, hta_end, hta_start_ns,
                                  ** hta_end_ns, hta_busy, hta_span  hta.c */
int profdb_longest_path_init(sqlite3 *db);  /* profdb_longest_path  longest_path.c */
int profdb_critical_path_init(sqlite3 *db); /* profdb_critical_path,
                                  ** profdb_critical_path_sum  critical_path.c */
int profdb_replay_init(sqlite3 *db);        /* profdb_replay,
                                  ** profdb_replay_each     replay.c */

/* Error helpers shared by the families: "NAME(): Nth argument ..." */
const char *profdb_ext_ordinal(int i); /* "1st", "2nd", ... */

#endif
