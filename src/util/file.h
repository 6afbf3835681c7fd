/*
 * file.h - read a whole regular file into memory, with a size cap.
 */
#ifndef AIRSPACE_UTIL_FILE_H
#define AIRSPACE_UTIL_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* The first line of a small file (4 KiB at most), without its newline, as
 * a new string, or NULL. */
char *file_first_line(const char *path);

/*
 * Read the regular file at path (symlinks followed unless nofollow) into a
 * new NUL-terminated buffer (free with free()). Returns 0, AS_ENOENT when
 * it cannot be opened, AS_ETOOBIG when it is not a regular file or larger
 * than max bytes, AS_EIO when reading fails or the file changed size.
 */
int file_read_max(
    const char *path, size_t max, bool nofollow, char **buf, size_t *len);

/*
 * Replace the file at path with len bytes of data atomically: write a
 * temporary file in the same directory (mode 0600), then rename() it over
 * path. Returns 0 or AS_EIO with a message in e; path is untouched on
 * error.
 */
struct as_err;
int file_write_atomic(
    const char *path, const void *data, size_t len, struct as_err *e);

/* Whether directories a and b are the same place: the same string, or the
 * same real path (symbolic links resolved). False when either is NULL. */
bool file_same_dir(const char *a, const char *b);

#endif
