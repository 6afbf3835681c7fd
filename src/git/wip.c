/*
 * wip.c - work in progress shared through git: snapshot trees written as
 * commits under refs/airspace/wip/, pushed and fetched.
 */
#include "git/wip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void
add_name(struct strbuf *sb, const char *s)
{
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '-' || c == '_';
        strbuf_addf(sb, "%c", ok ? c : '_');
    }
}

char *
wip_ref_name(const char *node, const char *agent)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s", WIP_REF_PREFIX);
    add_name(&sb, node);
    strbuf_addf(&sb, "-%06llx/",
        (unsigned long long)(fnv1a_str(FNV1A_INIT, node) & 0xffffff));
    add_name(&sb, *agent ? agent : "_");
    return sb.s;
}

bool
wip_ref_ok(const char *ref)
{
    size_t n = strlen(WIP_REF_PREFIX);
    if (!ref || strncmp(ref, WIP_REF_PREFIX, n) || strlen(ref) > 600)
        return false;
    size_t slashes = 0;
    for (const char *p = ref + n; *p; p++) {
        char c = *p;
        if (c == '/')
            slashes++;
        else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return false;
    }
    return slashes == 1 && ref[n] != '/' && ref[strlen(ref) - 1] != '/';
}

bool
wip_have(struct repo *r, const char *hex)
{
    git_oid id;
    git_odb *odb;
    if (!hex || strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(&id, hex) ||
        git_repository_odb(&odb, repo_git(r))) {
        git_error_clear();
        return false;
    }
    bool have = git_odb_exists(odb, &id);
    git_odb_free(odb);
    return have;
}

/* Copy object id from src to dst unless dst has it. */
static int
copy_object(git_odb *src, git_odb *dst, const git_oid *id)
{
    if (git_odb_exists(dst, id))
        return 0;
    git_odb_object *o;
    if (git_odb_read(&o, src, id))
        return -1;
    git_oid out;
    int rc = git_odb_write(&out, dst, git_odb_object_data(o),
        git_odb_object_size(o), git_odb_object_type(o));
    git_odb_object_free(o);
    return rc;
}

/* Tree id and everything under it that dst lacks, from src; a tree dst
 * has is taken to be there whole (objects arrive with their trees). */
static int
copy_tree(git_repository *g, git_odb *src, git_odb *dst, const git_oid *id)
{
    if (git_odb_exists(dst, id))
        return 0;
    git_tree *t;
    if (git_tree_lookup(&t, g, id))
        return -1;
    int rc = 0;
    for (size_t k = 0; k < git_tree_entrycount(t) && !rc; k++) {
        const git_tree_entry *en = git_tree_entry_byindex(t, k);
        git_object_t type = git_tree_entry_type(en);
        if (type == GIT_OBJECT_TREE)
            rc = copy_tree(g, src, dst, git_tree_entry_id(en));
        else if (type == GIT_OBJECT_BLOB)
            rc = copy_object(src, dst, git_tree_entry_id(en));
        /* a submodule's commit is not ours to copy */
    }
    git_tree_free(t);
    return rc ? rc : copy_object(src, dst, id);
}

/* The remote by name (its url), else remote as a URL or path. Read from
 * the configuration, not with git_remote_lookup(), which leaks a regular
 * expression's match data on every call in libgit2 1.5 (so does applying
 * url.<base>.insteadOf, left out). */
static int
lookup_remote(
    git_remote **out, git_repository *g, const char *remote, struct as_err *e)
{
    git_config *cfg = NULL;
    git_buf url = { 0 };
    char *key = xasprintf("remote.%s.url", remote);
    bool named = !git_repository_config_snapshot(&cfg, g) &&
                 !git_config_get_string_buf(&url, cfg, key);
    git_error_clear();
    git_remote_create_options co = GIT_REMOTE_CREATE_OPTIONS_INIT;
    co.repository = g;
    co.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
               GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
    int rc = git_remote_create_with_opts(out, named ? url.ptr : remote, &co);
    git_buf_dispose(&url);
    git_config_free(cfg);
    free(key);
    return rc ? repo_git_errorf(e, "no remote '%s'", remote) : 0;
}

int
wip_push(struct repo *r, const char *remote, const char *ref,
    const char *base_hex, const char *tree_hex, int64_t now_ms,
    char commit_hex[41], struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_oid base, tree, commit;
    if (!base_hex || !tree_hex || strlen(base_hex) != GIT_OID_HEXSZ ||
        strlen(tree_hex) != GIT_OID_HEXSZ || git_oid_fromstr(&base, base_hex) ||
        git_oid_fromstr(&tree, tree_hex) || !wip_ref_ok(ref)) {
        git_error_clear();
        return as_errorf(e, AS_EINVAL, "bad work in progress '%s'", ref);
    }
    git_odb *src = NULL, *disk = NULL;
    git_commit *parent = NULL;
    git_tree *t = NULL;
    git_signature *sig = NULL;
    git_buf buf = { 0 };
    git_reference *rf = NULL;
    git_remote *rm = NULL;
    char *dir = xasprintf("%s/objects", repo_common_dir(r));
    int rc = AS_EGIT;
    if (git_repository_odb(&src, g) || git_odb_open(&disk, dir)) {
        repo_git_errorf(e, "cannot open the object directory '%s'", dir);
        goto out;
    }
    if (copy_tree(g, src, disk, &tree) || copy_object(src, disk, &base)) {
        repo_git_errorf(e, "cannot write the tree '%s'", tree_hex);
        goto out;
    }
    if (git_commit_lookup(&parent, g, &base) || git_tree_lookup(&t, g, &tree) ||
        git_signature_new(&sig, "airspace", "airspace@localhost",
            (git_time_t)(now_ms / 1000), 0) ||
        git_commit_create_buffer(&buf, g, sig, sig, NULL,
            "airspace: work in progress\n", t, 1,
            (const git_commit **)&parent) ||
        git_odb_write(&commit, disk, buf.ptr, buf.size, GIT_OBJECT_COMMIT)) {
        repo_git_errorf(e, "cannot write a commit of '%s'", tree_hex);
        goto out;
    }
    if (git_reference_create(
            &rf, g, ref, &commit, 1, "airspace: work in progress")) {
        repo_git_errorf(e, "cannot update '%s'", ref);
        goto out;
    }
    if (lookup_remote(&rm, g, remote, e))
        goto out;
    char *spec = xasprintf("+%s:%s", ref, ref);
    git_strarray specs = { &spec, 1 };
    git_push_options po = GIT_PUSH_OPTIONS_INIT;
    int prc = git_remote_push(rm, &specs, &po);
    free(spec);
    if (prc) {
        repo_git_errorf(e, "cannot push '%s' to '%s'", ref, remote);
        goto out;
    }
    git_oid_tostr(commit_hex, 41, &commit);
    rc = 0;
out:
    git_remote_free(rm);
    git_reference_free(rf);
    git_buf_dispose(&buf);
    git_signature_free(sig);
    git_tree_free(t);
    git_commit_free(parent);
    git_odb_free(disk);
    git_odb_free(src);
    free(dir);
    return rc;
}

/* 0 when ref is one of ours (wip_ref_ok), else AS_EINVAL. */
static int
check_ref(const char *ref, struct as_err *e)
{
    return wip_ref_ok(ref)
               ? 0
               : as_errorf(e, AS_EINVAL, "bad work in progress ref '%s'",
                     ref ? ref : "");
}

/* ref checked, then remote looked up into *rm. */
static int
ref_remote(struct repo *r, const char *remote, const char *ref, git_remote **rm,
    struct as_err *e)
{
    int rc = check_ref(ref, e);
    return rc ? rc : lookup_remote(rm, repo_git(r), remote, e);
}

int
wip_fetch(struct repo *r, const char *remote, const char *ref, struct as_err *e)
{
    git_remote *rm;
    int rc = ref_remote(r, remote, ref, &rm, e);
    if (rc)
        return rc;
    char *spec = xasprintf("+%s:%s", ref, ref);
    git_strarray specs = { &spec, 1 };
    git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    if (git_remote_fetch(rm, &specs, &fo, "airspace: work in progress"))
        rc = repo_git_errorf(e, "cannot fetch '%s' from '%s'", ref, remote);
    free(spec);
    git_remote_free(rm);
    return rc;
}

int
wip_forget(struct repo *r, const char *ref, struct as_err *e)
{
    int rc = check_ref(ref, e);
    if (rc)
        return rc;
    rc = git_reference_remove(repo_git(r), ref);
    if (rc && rc != GIT_ENOTFOUND)
        return repo_git_errorf(e, "cannot delete '%s'", ref);
    git_error_clear();
    return 0;
}

int
wip_drop(struct repo *r, const char *remote, const char *ref, struct as_err *e)
{
    git_remote *rm;
    int rc = ref_remote(r, remote, ref, &rm, e);
    if (rc)
        return rc;
    char *spec = xasprintf(":%s", ref);
    git_strarray specs = { &spec, 1 };
    git_push_options po = GIT_PUSH_OPTIONS_INIT;
    if (git_remote_push(rm, &specs, &po))
        rc = repo_git_errorf(e, "cannot delete '%s' on '%s'", ref, remote);
    free(spec);
    git_remote_free(rm);
    return rc ? rc : wip_forget(r, ref, e);
}
