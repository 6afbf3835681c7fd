/*
 * daemon_thread.h - for fuzz targets that talk to a real daemon: a scratch
 * repository (one commit, src/a.c; removed at exit) and `airspace serve`
 * for it in a thread of this process, started by fuzz_daemon_start() and
 * again after an input stopped it. Header-only (static): each target is
 * one file.
 */
#ifndef AIRSPACE_FUZZ_DAEMON_THREAD_H
#define AIRSPACE_FUZZ_DAEMON_THREAD_H

#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "broker/broker.h"
#include "util/xalloc.h"

static char *repo, *sock;
static pthread_t thread;
static volatile int running; /* 1 serving, 0 stopped (joinable) */
static int ready[2];

static void *
serve(void *arg)
{
    (void)arg;
    struct broker_options o;
    broker_options_init(&o);
    o.repo_path = repo;
    o.threads = 1;
    o.idle_exit_ms = 0;
    o.agent_timeout_ms = 0;
    o.rescan_ms = 600000;
    o.ready_fd = ready[1];
    struct as_err e;
    if (broker_run(&o, &e))
        fprintf(stderr, "fuzz_http: the daemon: %s\n", e.msg);
    running = 0;
    return NULL;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void
cleanup(void)
{
    if (repo)
        nftw(repo, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A repository with one commit holding src/a.c, removed at exit. */
static void
make_repo(void)
{
    char tmpl[] = "/tmp/airspace-fuzz-http.XXXXXX";
    if (!mkdtemp(tmpl))
        abort();
    repo = xstrdup(tmpl);
    atexit(cleanup);
    char *p = xasprintf("%s/src", repo);
    mkdir(p, 0700);
    free(p);
    p = xasprintf("%s/src/a.c", repo);
    FILE *f = fopen(p, "w");
    fputs("int a(void)\n{\n    return 0;\n}\n", f);
    fclose(f);
    free(p);
    git_libgit2_init();
    git_repository *r;
    git_index *idx;
    git_oid tree_id, commit_id;
    git_tree *tree;
    git_signature *sig;
    if (git_repository_init(&r, repo, 0) || git_repository_index(&idx, r) ||
        git_index_add_bypath(idx, "src/a.c") || git_index_write(idx) ||
        git_index_write_tree(&tree_id, idx) ||
        git_tree_lookup(&tree, r, &tree_id) ||
        git_signature_new(
            &sig, "fuzz", "fuzz@example.invalid", 1767225600, 0) ||
        git_commit_create_v(
            &commit_id, r, "HEAD", sig, sig, NULL, "base", tree, 0))
        abort();
    git_signature_free(sig);
    git_tree_free(tree);
    git_index_free(idx);
    git_repository_free(r);
    sock = xasprintf("%s/.git/airspace/sock", repo);
}

/* Serve the scratch repository (made at the first call) unless served. */
static void
fuzz_daemon_start(void)
{
    if (!repo)
        make_repo();
    if (running)
        return;
    if (thread)
        pthread_join(thread, NULL);
    if (pipe(ready))
        abort();
    running = 1;
    if (pthread_create(&thread, NULL, serve, NULL))
        abort();
    char c = 0;
    ssize_t n = read(ready[0], &c, 1);
    close(ready[0]);
    if (n != 1 || c != 'R') {
        fprintf(stderr, "fuzz_http: the daemon did not start\n");
        abort();
    }
}

#endif
