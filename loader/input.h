/*
** input.h — read an artifact as a stream of decompressed chunks.
**
** Plain files are read in fixed-size chunks; gzip (detected by its magic
** bytes, never by the file name) is inflated chunk by chunk, including
** files of several concatenated gzip members.  Offsets reported to users
** are positions in the decompressed stream.  The decompressed bytes are
** hashed as they pass, for duplicate-load detection.  Reading and
** inflating run on a read-ahead thread (input.c), a few chunks ahead.
*/
#ifndef PROFDB_INPUT_H
#define PROFDB_INPUT_H

#include "hash.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

typedef enum ld_input_error {
  IN_OK = 0,
  IN_ENOENT,  /* no such file */
  IN_EACCES,  /* cannot open or read it (message says why) */
  IN_ENOTREG, /* not a regular file */
  IN_EGZIP,   /* corrupt gzip data */
  IN_EIO      /* read error */
} ld_input_error;

typedef struct ld_prefetch ld_prefetch;

typedef struct ld_input {
  const char *path;        /* as given by the user (not owned) */
  int fd;                  /* open file */
  int gzip;                /* 1 when the file starts with the gzip magic */
  uint64_t file_size;      /* bytes on disk */
  uint64_t raw_read;       /* bytes read from disk so far */
  uint64_t offset;         /* decompressed bytes delivered before the chunk
                           ** returned by the last input_read() */
  uint64_t delivered;      /* decompressed bytes delivered in total */
  size_t chunk;            /* decompressed chunk size */
  unsigned char *out;      /* decompressed chunk buffer (chunk bytes) */
  unsigned char *raw;      /* compressed read buffer (gzip only) */
  size_t raw_cap;          /* size of raw */
  z_stream z;              /* inflate state (gzip only) */
  int z_ready;             /* z is initialised */
  int z_member_done;       /* the current gzip member ended */
  int gzip_truncated;      /* EOF came inside a gzip member */
  uint64_t trailing_bytes; /* non-gzip bytes after the last member, ignored */
  int eof;                 /* no more data */
  ld_hash hash;            /* hash of the decompressed bytes */
  ld_input_error error;    /* why the last call failed */
  uint64_t error_offset;   /* decompressed bytes produced before it */
  char message[256];       /* human-readable reason, lower case */
  ld_prefetch *pf;         /* the read-ahead thread and the reader it runs
                           ** (input.c); the fields above are the reader's
                           ** state after the chunk last returned */
} ld_input;

/* Open path.  On failure returns -1 with in->error/in->message set. */
int input_open(ld_input *in, const char *path, size_t chunk);

/*
** Deliver the next decompressed chunk in *data.  Returns its length, 0 at
** the end of the stream, or -1 on error (in->error/in->message set).  A
** gzip stream cut short ends with 0 and in->gzip_truncated set.
*/
ssize_t input_read(ld_input *in, const unsigned char **data);

/* Rewind to the start (used after sniffing the artifact kind). */
int input_rewind(ld_input *in);

void input_close(ld_input *in);

/* The content hash of the file at path: XXH64 of its decompressed bytes as
** 16 hex digits (trace.content_hash, snapshot.content_hash), read whole.
** 0, or -1 when it cannot be read. */
int input_content_hash(const char *path, char out[17]);

#endif
