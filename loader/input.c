/*
** input.c — decompressing chunk reader (see input.h).
*/
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAW_CAP (256 * 1024)

static int fail(ld_input *in, ld_input_error e, const char *fmt, const char *arg) {
  in->error = e;
  snprintf(in->message, sizeof in->message, fmt, arg);
  return -1;
}

/* read() that retries on EINTR and short reads; returns bytes or -1. */
static ssize_t read_full(int fd, unsigned char *p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, p + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static int start_inflate(ld_input *in) {
  memset(&in->z, 0, sizeof in->z);
  /* 16 + MAX_WBITS: expect a gzip header and trailer. */
  if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK)
    return fail(in, IN_EGZIP, "%s", "cannot initialise zlib");
  in->z_ready = 1;
  in->z_member_done = 0;
  return 0;
}

int input_open(ld_input *in, const char *path, size_t chunk) {
  struct stat st;
  memset(in, 0, sizeof *in);
  in->path = path;
  in->fd = -1;
  in->chunk = chunk ? chunk : 256 * 1024;
  if (in->chunk > (size_t)1 << 30) in->chunk = (size_t)1 << 30; /* zlib counts in 32 bits */
  hash_init(&in->hash);
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) return fail(in, IN_ENOENT, "%s", "no such file");
    return fail(in, IN_EACCES, "cannot access file: %s", strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    return fail(in, IN_ENOTREG, "%s",
                S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
  in->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (in->fd < 0) return fail(in, IN_EACCES, "cannot open: %s", strerror(errno));
  in->file_size = (uint64_t)st.st_size;
  in->out = malloc(in->chunk);
  if (!in->out) return fail(in, IN_EIO, "%s", "out of memory");
  return input_rewind(in);
}

int input_rewind(ld_input *in) {
  unsigned char magic[2];
  if (lseek(in->fd, 0, SEEK_SET) != 0)
    return fail(in, IN_EIO, "cannot seek: %s", strerror(errno));
  ssize_t n = read_full(in->fd, magic, 2);
  if (n < 0) return fail(in, IN_EIO, "read error: %s", strerror(errno));
  if (lseek(in->fd, 0, SEEK_SET) != 0)
    return fail(in, IN_EIO, "cannot seek: %s", strerror(errno));
  in->gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  in->raw_read = in->offset = in->delivered = 0;
  in->eof = in->gzip_truncated = 0;
  in->trailing_bytes = 0;
  hash_init(&in->hash);
  if (in->z_ready) {
    inflateEnd(&in->z);
    in->z_ready = 0;
  }
  if (in->gzip) {
    if (!in->raw) {
      in->raw_cap = RAW_CAP;
      in->raw = malloc(in->raw_cap);
      if (!in->raw) return fail(in, IN_EIO, "%s", "out of memory");
    }
    if (start_inflate(in)) return -1;
  }
  return 0;
}

/* Refill z.next_in from disk; returns bytes read, 0 at EOF, -1 on error. */
static ssize_t refill(ld_input *in) {
  ssize_t r = read_full(in->fd, in->raw, in->raw_cap);
  if (r < 0) return fail(in, IN_EIO, "read error: %s", strerror(errno));
  in->raw_read += (uint64_t)r;
  in->z.next_in = in->raw;
  in->z.avail_in = (uInt)r;
  return r;
}

static ssize_t read_gzip(ld_input *in) {
  in->z.next_out = in->out;
  in->z.avail_out = (uInt)in->chunk;
  while (in->z.avail_out > 0) {
    if (in->z.avail_in == 0) {
      ssize_t r = refill(in);
      if (r < 0) return -1;
      if (r == 0) {
        /* End of file: fine between members, truncation inside one. */
        if (!in->z_member_done) in->gzip_truncated = 1;
        in->eof = 1;
        break;
      }
    }
    if (in->z_member_done) {
      /* Another member follows only if it starts with the magic bytes;
      ** anything else is trailing data that gzip(1) also ignores. */
      if (in->z.avail_in >= 1 && in->z.next_in[0] == 0x1f &&
          (in->z.avail_in < 2 || in->z.next_in[1] == 0x8b)) {
        inflateReset(&in->z);
        in->z_member_done = 0;
      } else {
        uint64_t rest = in->z.avail_in + (in->file_size - in->raw_read);
        in->trailing_bytes = rest;
        in->eof = 1;
        break;
      }
    }
    int zr = inflate(&in->z, Z_NO_FLUSH);
    if (zr == Z_STREAM_END) {
      in->z_member_done = 1;
      continue;
    }
    if (zr == Z_BUF_ERROR) continue; /* needs more input */
    if (zr != Z_OK) {
      char msg[160];
      /* Everything inflated before the bad data, whatever the chunk size. */
      in->error_offset = in->delivered + (in->chunk - in->z.avail_out);
      snprintf(msg, sizeof msg, "corrupt gzip data near compressed byte %llu (%s)",
               (unsigned long long)(in->raw_read - in->z.avail_in),
               in->z.msg ? in->z.msg : "inflate failed");
      return fail(in, IN_EGZIP, "%s", msg);
    }
  }
  return (ssize_t)(in->chunk - in->z.avail_out);
}

ssize_t input_read(ld_input *in, const unsigned char **data) {
  ssize_t n;
  in->offset = in->delivered;
  if (in->eof) return 0;
  if (in->gzip) {
    n = read_gzip(in);
    if (n < 0) return -1;
  } else {
    n = read_full(in->fd, in->out, in->chunk);
    if (n < 0) {
      in->error_offset = in->delivered;
      return fail(in, IN_EIO, "read error: %s", strerror(errno));
    }
    in->raw_read += (uint64_t)n;
    if (n == 0) in->eof = 1;
  }
  hash_update(&in->hash, in->out, (size_t)n);
  *data = in->out;
  /* A UTF-8 byte order mark (Windows editors write one) is not JSON:
  ** skip it, keeping offsets those of the file. */
  if (in->delivered == 0 && n >= 3 && !memcmp(in->out, "\xEF\xBB\xBF", 3)) {
    in->delivered = in->offset = 3;
    *data += 3;
    n -= 3;
  }
  in->delivered += (uint64_t)n;
  return n;
}

void input_close(ld_input *in) {
  if (in->z_ready) inflateEnd(&in->z);
  if (in->fd >= 0) close(in->fd);
  free(in->out);
  free(in->raw);
  in->out = in->raw = NULL;
  in->fd = -1;
  in->z_ready = 0;
}
