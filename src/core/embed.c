#include "core/embed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

void
embed_config_default(struct embed_config *c)
{
    c->rounds = 6;
    c->pull = 0.3;
    c->radius = 100.0;
    c->shrink = 0.4;
}

/* A well-mixed 64-bit value from a 32-bit hash and a lane (splitmix64). */
static uint64_t
mix(uint32_t h, uint32_t lane)
{
    uint64_t z = ((uint64_t)h << 32 | lane) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A direction for a path prefix: a point of the unit ball's surface,
 * picked by the prefix's hash alone. */
static void
direction(const char *s, size_t len, double out[3])
{
    uint32_t h = strmap_hash(s, len);
    double v[3], n = 0;
    for (uint32_t lane = 0;; lane += 3) {
        n = 0;
        for (int k = 0; k < 3; k++) {
            uint64_t m = mix(h, lane + (uint32_t)k);
            v[k] = (double)(m >> 11) / 4503599627370496.0 - 1.0; /* [-1,1) */
            n += v[k] * v[k];
        }
        if (n > 1e-4 && n <= 1.0)
            break; /* rejection sampling keeps the direction uniform */
    }
    n = sqrt(n);
    for (int k = 0; k < 3; k++)
        out[k] = v[k] / n;
}

static void
path_position(const char *p, const struct embed_config *c, double pos[3])
{
    pos[0] = pos[1] = pos[2] = 0;
    double r = c->radius;
    for (size_t j = 0;; j++) {
        if (p[j] != '/' && p[j] != '\0')
            continue;
        if (j > 0) {
            double d[3];
            direction(p, j, d);
            for (int k = 0; k < 3; k++)
                pos[k] += r * d[k];
            r *= c->shrink;
        }
        if (p[j] == '\0')
            break;
    }
}

void
embed_layout(const struct graph *g, const struct embed_config *c, float *xyz)
{
    struct embed_config def;
    if (!c) {
        embed_config_default(&def);
        c = &def;
    }
    size_t n = g->nfiles;
    if (!n)
        return;
    double *base = xmalloc(3 * n * sizeof(*base));
    double *cur = xmalloc(3 * n * sizeof(*cur));
    double *next = xmalloc(3 * n * sizeof(*next));
    for (size_t i = 0; i < n; i++)
        path_position(g->files[i].path, c, base + 3 * i);
    memcpy(cur, base, 3 * n * sizeof(*cur));
    for (unsigned round = 0; round < c->rounds; round++) {
        for (size_t i = 0; i < n; i++) {
            const struct graph_file *f = &g->files[i];
            uint32_t deg = f->nout + f->nin;
            if (!deg) {
                memcpy(next + 3 * i, base + 3 * i, 3 * sizeof(*next));
                continue;
            }
            double m[3] = { 0, 0, 0 };
            for (uint32_t k = 0; k < f->nout; k++)
                for (int d = 0; d < 3; d++)
                    m[d] += cur[3 * f->out[k] + d];
            for (uint32_t k = 0; k < f->nin; k++)
                for (int d = 0; d < 3; d++)
                    m[d] += cur[3 * f->in[k] + d];
            for (int d = 0; d < 3; d++)
                next[3 * i + d] =
                    (1 - c->pull) * base[3 * i + d] + c->pull * m[d] / deg;
        }
        double *t = cur;
        cur = next;
        next = t;
    }
    for (size_t i = 0; i < 3 * n; i++)
        xyz[i] = (float)cur[i];
    free(base);
    free(cur);
    free(next);
}
