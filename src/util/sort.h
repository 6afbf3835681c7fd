/*
 * sort.h - sorting of uint32_t and uint64_t arrays (symbol and file ids,
 * packed keys), faster than qsort with a comparison callback: insertion
 * sort for short arrays, an LSD radix sort (a pass of 8 bits per byte,
 * skipping passes whose byte is the same everywhere) for long ones.
 */
#ifndef AIRSPACE_UTIL_SORT_H
#define AIRSPACE_UTIL_SORT_H

#include <stddef.h>
#include <stdint.h>

void sort_u32(uint32_t *v, size_t n);

void sort_u64(uint64_t *v, size_t n);

/* Sort and drop duplicates; returns the new length. */
size_t sort_uniq_u32(uint32_t *v, size_t n);

/* Sort strings (strcmp order) and free and drop the duplicates; returns
 * the new length. */
size_t sort_uniq_strv(char **v, size_t n);

#endif
