#include "cli/hook_parse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* Paths an apply_patch (Codex) touches: "*** Update File: x" and kin. */
size_t
hook_patch_paths(const char *patch, char ***out)
{
    static const char *const heads[] = { "*** Update File: ", "*** Add File: ",
        "*** Delete File: ", "*** Move to: " };
    size_t n = 0, a = 0;
    *out = NULL;
    for (const char *l = patch; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        for (size_t k = 0; k < 4; k++) {
            size_t hl = strlen(heads[k]);
            if (len > hl && !strncmp(l, heads[k], hl)) {
                ALLOC_GROW(*out, n + 1, a);
                (*out)[n++] = xstrndup(l + hl, len - hl);
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    return n;
}

/*
 * Paths a shell command obviously writes: the target of '>' and '>>', the
 * files of 'sed -i', 'tee', 'rm', 'touch', 'truncate', and the last
 * argument of 'mv' and 'cp', in each ';', '&&', '||' or '|' separated part.
 * Quotes are stripped, nothing is expanded: a best effort that never
 * blocks a command it does not understand.
 */
size_t
hook_shell_writes(const char *cmd, char ***out)
{
    size_t n = 0, a = 0;
    *out = NULL;
    char *copy = xstrdup(cmd);
    char *tok[256];
    size_t nt = 0;
    for (char *p = copy; *p && nt < 256;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            *p++ = '\0';
        if (!*p)
            break;
        if (*p == ';' || *p == '|' || *p == '&') {
            tok[nt++] = ";"; /* a new command */
            while (*p == ';' || *p == '|' || *p == '&')
                *p++ = '\0';
            continue;
        }
        if (*p == '>') {
            tok[nt++] = ">";
            while (*p == '>')
                *p++ = '\0';
            continue;
        }
        char q = *p == '\'' || *p == '"' ? *p : 0;
        if (q)
            p++;
        tok[nt++] = p;
        while (
            *p && (q ? *p != q
                     : !(*p == ' ' || *p == '\t' || *p == '\n' || *p == ';' ||
                           *p == '|' || *p == '&' || *p == '>')))
            p++;
        if (q && *p)
            *p++ = '\0';
    }
    for (size_t i = 0; i < nt; i++) {
        if (!strcmp(tok[i], ">") && i + 1 < nt && strcmp(tok[i + 1], ";") &&
            strcmp(tok[i + 1], ">") && strcmp(tok[i + 1], "/dev/null")) {
            ALLOC_GROW(*out, n + 1, a);
            (*out)[n++] = xstrdup(tok[i + 1]);
            continue;
        }
        if (i && strcmp(tok[i - 1], ";"))
            continue; /* only command words start a command */
        const char *w = tok[i];
        bool sed = !strcmp(w, "sed"),
             all = !strcmp(w, "tee") || !strcmp(w, "rm") ||
                   !strcmp(w, "touch") || !strcmp(w, "truncate");
        bool last = !strcmp(w, "mv") || !strcmp(w, "cp");
        if (!sed && !all && !last)
            continue;
        size_t end = i + 1;
        while (end < nt && strcmp(tok[end], ";") && strcmp(tok[end], ">"))
            end++;
        bool inplace = false;
        for (size_t k = i + 1; k < end; k++)
            inplace = inplace || !strncmp(tok[k], "-i", 2) ||
                      !strcmp(tok[k], "--in-place");
        if (sed && !inplace)
            continue;
        for (size_t k = i + 1; k < end; k++) {
            if (tok[k][0] == '-' || (sed && k == i + 1) ||
                (last && k != end - 1))
                continue;
            if (sed && k + 1 < end)
                continue; /* sed: the files come last; keep the last */
            ALLOC_GROW(*out, n + 1, a);
            (*out)[n++] = xstrdup(tok[k]);
        }
    }
    free(copy);
    return n;
}
