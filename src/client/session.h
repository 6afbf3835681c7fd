/*
 * session.h - one agent per client session: the hooks, the MCP server and
 * the CLI commands a session runs resolve to the same agent id.
 *
 * A session is known by its client's process: the nearest ancestor of the
 * hook that is not a shell. The hook that first sees a session chooses the
 * agent's id and records it under <git-common-dir>/airspace/sessions/:
 *
 *   s-<client>-<hash of the session id>   "<agent> <pid> <start>"
 *   p-<pid>                               "<agent> <start>"
 *   a-<agent>                             "<pid> <start>"   (a claimed name)
 *
 * <start> is the process's start time (field 22 of /proc/<pid>/stat), so a
 * record of a process that is gone, or of a reused pid, is told apart. The
 * id is the name of the worktree's agent when the worktree was made by
 * `airspace agent new` (its branch is airspace/<name>) and no live session
 * holds that name already; otherwise <client prefix>-<8 hex digits of a
 * hash of the whole session id>. Any process in the session (the MCP
 * server the client started, a CLI command run by its shell tool) finds
 * the id by walking its own ancestors to a p- record.
 *
 * A session met again in another client process (a client killed, then
 * its session resumed) keeps its id, and claims its name again for the new
 * process, so that a new session cannot take the name a dead process had
 * claimed; when another live session holds the name by then, it goes on
 * as <client prefix>-<hash>. Its records then name the new process.
 *
 * No daemon is involved: the files are written atomically (a name is
 * claimed with O_EXCL) and read without locks.
 */
#ifndef AIRSPACE_CLIENT_SESSION_H
#define AIRSPACE_CLIENT_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The agent id of the session session_id of client prefix ("cc", "codex",
 * "gemini") working in worktree root, whose airspace directory is dir:
 * recorded on first sight, then the same on every call. Returns a new
 * string; never NULL (without dir or a session id it records nothing and
 * the id is made from what is known).
 */
char *session_agent(const char *dir, const char *prefix, const char *session_id,
    const char *root);

/*
 * The agent id of the session this process runs in, or NULL: the record
 * of the session $CLAUDE_CODE_SESSION_ID names (Claude Code sets it for
 * its hooks, MCP servers and shell commands), else a p- record of one of
 * its ancestors, alive. dir is the airspace directory.
 */
char *session_lookup(const char *dir);

/*
 * The agent a command run without --agent acts as: $AIRSPACE_AGENT when
 * set and not empty, else session_lookup(dir). A new string, or NULL.
 */
char *session_default_agent(const char *dir);

/*
 * For a CLI command run in repository repo (any directory in it) without
 * --agent: session_default_agent of its airspace directory, kept for the
 * life of the process (borrowed), or NULL.
 */
const char *session_cli_agent(const char *repo);

/*
 * For a client whose session has no id to record (an MCP server started
 * by a client that runs no airspace hooks): the name of the worktree
 * agent of root (made by `airspace agent new`), claimed for the client
 * process as a session would claim it, or NULL when root is no such
 * worktree or a live session holds the name. A new string.
 */
char *session_claim_worktree(const char *dir, const char *root);

/*
 * Clear out what sessions that ended without a word (a client killed,
 * no SessionEnd) left in the airspace directory dir, as of now_s (epoch
 * seconds): a process's record or a name's claim once the process is
 * gone, a session's record once its process is gone and it has not been
 * seen for SESSION_KEEP_S (kept till then: a session resumed finds its
 * name), the hooks' snapshots of files older than a day (a PreToolUse
 * whose PostToolUse never came) and crew-update hashes older than
 * SESSION_KEEP_S. Returns how many files it removed.
 */
#define SESSION_KEEP_S (7 * 24 * 3600)
size_t session_prune(const char *dir, long long now_s);

/* Forget session session_id's records (its session ended). */
void session_forget(
    const char *dir, const char *prefix, const char *session_id);

#endif
