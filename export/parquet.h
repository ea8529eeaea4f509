/*
** parquet.h — a small Parquet file writer (module prefix pq_).
**
** Written from the Apache Parquet format specification (parquet-format:
** parquet.thrift, Encodings.md): no Parquet or Arrow library for C exists
** in Debian 12.  It writes what profdb's export needs and nothing more:
**
**   - flat schemas of OPTIONAL columns: INT64, DOUBLE and BYTE_ARRAY
**     strings (logical type STRING / converted type UTF8);
**   - strings dictionary-encoded (a PLAIN dictionary page, then
**     RLE_DICTIONARY indices), numbers PLAIN;
**   - definition levels in the RLE/bit-packed hybrid encoding;
**   - data pages v1 of at most PQ_PAGE_ROWS rows, compressed with zstd
**     (libzstd) or stored uncompressed;
**   - min/max statistics and null counts per column chunk;
**   - key/value metadata and created_by in the footer (Thrift compact
**     protocol).
**
** Usage:
**   pq_writer *w = pq_open(path, PQ_ZSTD, errbuf, sizeof errbuf);
**   pq_column(w, "ts", PQ_INT64);  pq_column(w, "name", PQ_STRING);
**   for each row: pq_int64(w, 0, ts); pq_text(w, 1, name, len);
**                 pq_end_row(w);   (a column not set in a row is NULL)
**   pq_kv(w, "profdb.schema_version", "2");
**   pq_close(w);                   (0 ok, -1 with the reason in errbuf)
** Row groups are cut every PQ_GROUP_ROWS rows (fewer: pq_group_rows), or
** earlier when the buffered values pass PQ_GROUP_BYTES; pq_row_group()
** cuts one now.  Memory is one row group's values (bounded by
** PQ_GROUP_BYTES plus one row) and one page's encoding.
*/
#ifndef PROFDB_PARQUET_H
#define PROFDB_PARQUET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Physical column types written (values of parquet.thrift's Type). */
typedef enum pq_type {
  PQ_INT64 = 2,  /* signed 64-bit integers (ns, bytes, ids) */
  PQ_DOUBLE = 5, /* IEEE 754 doubles */
  PQ_STRING = 6  /* BYTE_ARRAY with logical type STRING, dictionary-encoded */
} pq_type;

/* Compression codecs (parquet.thrift's CompressionCodec). */
typedef enum pq_codec { PQ_UNCOMPRESSED = 0, PQ_ZSTD = 6 } pq_codec;

#define PQ_GROUP_ROWS (1 << 20)   /* rows per row group at most */
#define PQ_GROUP_BYTES (96 << 20) /* buffered value bytes before a cut */
#define PQ_PAGE_ROWS 65536        /* rows per data page at most */
#define PQ_STAT_MAX_BYTES 256     /* longer strings get no min/max */

typedef struct pq_writer pq_writer;

/* Create path (truncating it; never through a symbolic link) and write the
** magic.  NULL with the reason in err on failure. */
pq_writer *pq_open(const char *path, pq_codec codec, char *err, size_t nerr);
/* Write to f instead, which stays the caller's: pq_close flushes it, the
** caller syncs, closes and publishes it (publish.h). */
pq_writer *pq_open_file(FILE *f, pq_codec codec, char *err, size_t nerr);
/* Add a column (before the first row); returns its index or -1. */
int pq_column(pq_writer *w, const char *name, pq_type type);
/* Set column col of the current row. */
void pq_int64(pq_writer *w, int col, int64_t v);
void pq_double(pq_writer *w, int col, double v);
void pq_text(pq_writer *w, int col, const char *s, size_t n);
/* End the current row (unset columns are NULL).  -1 on an I/O error. */
int pq_end_row(pq_writer *w);
/* Write the buffered rows as a row group now (no-op when none).  0 or -1. */
int pq_row_group(pq_writer *w);
/* Add a key/value pair to the footer (copied). */
void pq_kv(pq_writer *w, const char *key, const char *value);
/* Rows written so far (ended rows). */
int64_t pq_rows(const pq_writer *w);
/* Bytes in the file so far: the magic and the row groups written (the
** buffered rows and the footer not yet). */
int64_t pq_bytes(const pq_writer *w);
/* Cut row groups every n rows (1 to PQ_GROUP_ROWS; default PQ_GROUP_ROWS)
** instead; before the first row.  0, or -1 when n is out of range. */
int pq_group_rows(pq_writer *w, int64_t n);
/* Flush, write the footer and close the file; frees w.  0 ok, -1 error
** (the reason in the err buffer given to pq_open). */
int pq_close(pq_writer *w);
/* Close and free without finishing the file (after an error). */
void pq_abort(pq_writer *w);

/* ---- encoders, exposed for the unit tests -------------------------------
** The RLE/bit-packed hybrid encoding (Encodings.md) of n values of
** bit_width bits, without the length prefix, appended to *out (grown with
** realloc; *len and *cap updated).  0 ok, -1 out of memory. */
int pq_rle_hybrid(const uint32_t *v, size_t n, int bit_width, uint8_t **out, size_t *len,
                  size_t *cap);

#endif
