/*
 * fuzz.h - every parser of untrusted input has a fuzz target here: a
 * function LLVMFuzzerTestOneInput(data, size) that must never crash, leak,
 * hang or trip a sanitizer on any input. Built with libFuzzer when
 * AIRSPACE_FUZZ=ON (clang); otherwise linked with driver.c, which runs the
 * target over every file of its seed corpus (fuzz/corpus/<name>/) as a
 * ctest case under ASan+UBSan.
 */
#ifndef AIRSPACE_FUZZ_H
#define AIRSPACE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
