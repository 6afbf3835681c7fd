/*
 * map_assets.h - the live map's page and assets, embedded in the binary
 * (a C file the build generates from web/, web/embedgen.c). Internal to
 * src/broker.
 */
#ifndef AIRSPACE_BROKER_MAP_ASSETS_H
#define AIRSPACE_BROKER_MAP_ASSETS_H

#include <stddef.h>

struct map_asset {
    const char *name; /* "index.html", "app.js", "three.module.js", ... */
    const unsigned char *data;
    size_t len;
};

/* map_nassets entries (then one of zeros). */
extern const struct map_asset map_assets[];
extern const size_t map_nassets;

#endif
