/*
 * file.h - read a whole regular file into memory, with a size cap.
 */
#ifndef AIRSPACE_UTIL_FILE_H
#define AIRSPACE_UTIL_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Read the regular file at path (symlinks followed unless nofollow) into a
 * new NUL-terminated buffer (free with free()). Returns 0, AS_ENOENT when
 * it cannot be opened, AS_ETOOBIG when it is not a regular file or larger
 * than max bytes, AS_EIO when reading fails or the file changed size.
 */
int file_read_max(
    const char *path, size_t max, bool nofollow, char **buf, size_t *len);

#endif
