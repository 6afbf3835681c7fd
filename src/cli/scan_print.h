/*
 * scan_print.h - render a scan report as a human table or as JSON.
 *
 * The JSON document is described in docs/cli.md ("scan --json"); its shape is
 * versioned by the top-level "version" field.
 */
#ifndef AIRSPACE_CLI_SCAN_PRINT_H
#define AIRSPACE_CLI_SCAN_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "view/scan.h"

/* The version of the scan JSON document. */
#define SCAN_JSON_VERSION 1

void scan_print_table(
    struct scan_report *r, bool explain, bool color, FILE *out);
void scan_print_json(struct scan_report *r, bool explain, FILE *out);

#endif
