/*
 * bench_api.c - the daemon's API under load, over its Unix socket with one
 * kept-alive connection (libcurl), against a running daemon.
 *
 *   bench_api locks SOCKET N HELD [CLIENTS]
 *                                    N lock acquire+release pairs while HELD
 *                                    unrelated locks are held (taken first,
 *                                    by other agents); CLIENTS processes
 *                                    (default 1) each with its own
 *                                    connection, agent and path share N
 *   bench_api activity SOCKET BATCHES
 *                                    BATCHES posts of 1000 activity deltas
 *   bench_api rescore SOCKET AGENTS  AGENTS agents with 10 reported files
 *                                    each; then time 200 single-file edits
 *                                    (each re-scores that agent's pairs)
 *
 * Prints key=value lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "util/xalloc.h"
#include "util/banned.h"

static CURL *h;
static long last_status;
static const char *sock;
static struct curl_slist *hdr;

static char reply[512]; /* the start of the last reply's body */
static size_t reply_len;

static size_t
sink(char *p, size_t s, size_t n, void *arg)
{
    (void)arg;
    size_t room = sizeof(reply) - 1 - reply_len, take = s * n;
    if (take > room)
        take = room;
    memcpy(reply + reply_len, p, take);
    reply_len += take;
    reply[reply_len] = '\0';
    return s * n;
}

/* The fencing token in the last reply (a grant), or 0. */
static long long
reply_token(void)
{
    const char *t = strstr(reply, "\"token\":");
    return t ? strtoll(t + 8, NULL, 10) : 0;
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
post(const char *path, const char *body)
{
    char url[256];
    snprintf(url, sizeof(url), "http://airspace%s", path);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    reply_len = 0;
    reply[0] = '\0';
    if (curl_easy_perform(h) != CURLE_OK)
        return -1;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &last_status);
    return 0;
}

static int
cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int
bench_locks(long n, long held, long clients)
{
    char body[256];
    post("/v1/agents", "{\"id\":\"bench\"}");
    for (long k = 0; k < held; k++) {
        if (k % 100 == 0) {
            snprintf(body, sizeof(body), "{\"id\":\"holder%ld\"}", k / 100);
            post("/v1/agents", body);
        }
        snprintf(body, sizeof(body),
            "{\"agent\":\"holder%ld\",\"pattern\":\"pkg%05ld/src/f%ld.c\"}",
            k / 100, k, k);
        if (post("/v1/locks", body) || last_status != 200) {
            fprintf(stderr, "bench_api: holding lock %ld failed (%ld)\n", k,
                last_status);
            return 1;
        }
    }
    for (long c = 0; c < clients; c++) {
        snprintf(body, sizeof(body), "{\"id\":\"bench%ld\"}", c);
        post("/v1/agents", body);
    }
    double t0 = now_ms();
    for (long c = 0; c < clients; c++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid)
            continue;
        /* A child: its own connection. */
        curl_easy_cleanup(h);
        h = curl_easy_init();
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, sock);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        char acq[128], rel[160];
        snprintf(acq, sizeof(acq),
            "{\"agent\":\"bench%ld\",\"pattern\":\"hot/path%ld.c\"}", c, c);
        for (long k = c; k < n; k += clients)
            if (post("/v1/locks", acq) || last_status != 200 ||
                snprintf(rel, sizeof(rel),
                    "{\"agent\":\"bench%ld\",\"pattern\":\"hot/path%ld.c\","
                    "\"token\":%lld}",
                    c, c, reply_token()) < 0 ||
                post("/v1/locks/release", rel) || last_status != 200) {
                fprintf(stderr, "bench_api: pair %ld failed (%ld)\n", k,
                    last_status);
                _exit(1);
            }
        _exit(0);
    }
    int failed = 0;
    for (long c = 0; c < clients; c++) {
        int st;
        wait(&st);
        failed += !WIFEXITED(st) || WEXITSTATUS(st);
    }
    double ms = now_ms() - t0;
    if (failed)
        return 1;
    printf("bench=locks held=%ld clients=%ld pairs=%ld ms=%.1f "
           "pairs_per_s=%.0f\n",
        held, clients, n, ms, (double)n * 1000.0 / ms);
    return 0;
}

static int
bench_rescore(long agents)
{
    char body[512];
    for (long a = 0; a < agents; a++) {
        snprintf(body, sizeof(body), "{\"id\":\"ag%03ld\"}", a);
        post("/v1/agents", body);
        for (int f = 0; f < 10; f++) {
            char path[64];
            snprintf(path, sizeof(path), "/v1/agents/ag%03ld/edits", a);
            /* neighbouring agents share directories and some files */
            snprintf(body, sizeof(body),
                "{\"path\":\"mod%02ld/file%d.c\",\"lines\":[[%d,%d]]}",
                (a + f) % 40, f, 10 * f + 1, 10 * f + 5);
            post(path, body);
        }
    }
    enum { EDITS = 200 };
    double t[EDITS];
    for (int k = 0; k < EDITS; k++) {
        char path[64];
        snprintf(
            path, sizeof(path), "/v1/agents/ag%03ld/edits", (long)(k % agents));
        snprintf(body, sizeof(body),
            "{\"path\":\"mod%02d/file3.c\",\"lines\":[[%d,%d]]}", k % 40,
            k % 90 + 1, k % 90 + 4);
        double t0 = now_ms();
        if (post(path, body) || last_status != 200) {
            fprintf(
                stderr, "bench_api: edit %d failed (%ld)\n", k, last_status);
            return 1;
        }
        t[k] = now_ms() - t0;
    }
    qsort(t, EDITS, sizeof(t[0]), cmp_double);
    printf("bench=rescore agents=%ld edits=%d p50_ms=%.3f p99_ms=%.3f\n",
        agents, EDITS, t[EDITS / 2], t[EDITS * 99 / 100]);
    return 0;
}

/* Activity ingest: BATCHES posts of 1000 deltas each (one session, files
 * cycling over 500 paths), events/s. */
static int
bench_activity(long batches)
{
    post("/v1/agents", "{\"id\":\"act\"}");
    enum { PER = 1000 };
    size_t cap = 64 + PER * 128;
    char *body = xmalloc(cap);
    uint64_t seq = 0;
    double t0 = now_ms();
    for (long k = 0; k < batches; k++) {
        size_t n = (size_t)snprintf(
            body, cap, "{\"agent\":\"act\",\"session\":\"s1\",\"events\":[");
        for (int j = 0; j < PER; j++) {
            seq++;
            n += (size_t)snprintf(body + n, cap - n,
                "%s{\"seq\":%llu,\"file\":\"src/f%d.c\",\"heat\":0.5,"
                "\"inContext\":true,\"action\":\"read\",\"at\":%llu}",
                j ? "," : "", (unsigned long long)seq, (int)(seq % 500),
                (unsigned long long)(1767225600000ULL + seq));
        }
        snprintf(body + n, cap - n, "]}");
        if (post("/v1/activity", body) || last_status != 200) {
            fprintf(
                stderr, "bench_api: batch %ld failed (%ld)\n", k, last_status);
            free(body);
            return 1;
        }
    }
    double ms = now_ms() - t0;
    printf("bench=activity events=%ld ms=%.1f events_per_s=%.0f\n",
        batches * PER, ms, (double)batches * PER * 1000.0 / ms);
    free(body);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_api locks SOCKET N HELD | "
                        "rescore SOCKET AGENTS\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_NOTHING);
    h = curl_easy_init();
    sock = argv[2];
    curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, sock);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    hdr = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    int rc;
    if (!strcmp(argv[1], "locks") && (argc == 5 || argc == 6))
        rc = bench_locks(strtol(argv[3], NULL, 10), strtol(argv[4], NULL, 10),
            argc == 6 ? strtol(argv[5], NULL, 10) : 1);
    else if (!strcmp(argv[1], "activity"))
        rc = bench_activity(strtol(argv[3], NULL, 10));
    else if (!strcmp(argv[1], "rescore"))
        rc = bench_rescore(strtol(argv[3], NULL, 10));
    else
        rc = 2;
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    return rc;
}
