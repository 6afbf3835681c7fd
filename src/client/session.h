/*
 * session.h - one agent per client session: the hooks, the MCP server and
 * the CLI commands a session runs resolve to the same agent id.
 *
 * A session is known by its client's process: the nearest ancestor of the
 * hook that is not a shell. The hook that first sees a session chooses the
 * agent's id and records it under <git-common-dir>/airspace/sessions/:
 *
 *   s-<client>-<hash of the session id>   "<agent> <pid> <start>"
 *   p-<pid>                               "<agent> <start> <session>"
 *   a-<agent>                             "<pid> <start>"   (a claimed name)
 *
 * <start> is the process's start time (field 22 of /proc/<pid>/stat), so a
 * record of a process that is gone (or has exited and waits to be reaped:
 * a zombie), or of a reused pid, is told apart; <session> is the key
 * "<client>-<hash>" of the session the p- record was written for. The
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
 * A session met while the process its record names still runs it is the
 * same agent when one process runs the other (a client's helper process);
 * otherwise it is a second client of the session (one that lets a running
 * session be resumed), an agent of its own: the worktree's agent when it
 * can claim that name, else <client prefix>-<hash of the session and the
 * process>, which only its p- record names. Ending, each forgets its own
 * records only.
 *
 * No daemon is involved: the files are written atomically (a name is
 * claimed with O_EXCL) and read without locks.
 */
#ifndef AIRSPACE_CLIENT_SESSION_H
#define AIRSPACE_CLIENT_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

/* What session_agent found when a session is not the agent it was. */
struct session_seen {
    char *was; /* the agent the session was, a new string; NULL: the same */
    bool twin; /* was goes on in another client process of the session;
                  else another session holds the name was now */
};

/*
 * The agent id of the session session_id of client prefix ("cc", "codex",
 * "gemini") working in worktree root, whose airspace directory is dir:
 * recorded on first sight, then the same on every call. Returns a new
 * string; never NULL (without dir or a session id it records nothing and
 * the id is made from what is known). *seen (NULL: not wanted) says, at
 * the call that decided it, that the session is not the agent it was: the
 * name another live session holds now, or the agent another client process
 * of the session runs as (free seen->was).
 */
char *session_agent(const char *dir, const char *prefix, const char *session_id,
    const char *root, struct session_seen *seen);

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

/*
 * The agent session_id of client prefix runs as in the calling hook's
 * client process, as its records name it, or NULL: recorded nowhere (a
 * session that ended already, or was never seen). Writes nothing: a
 * session's end must not record it again (session_agent would, and
 * could take the records of the session its process runs now).
 */
char *session_known(
    const char *dir, const char *prefix, const char *session_id);

/*
 * Forget session session_id's records (its session ended in the calling
 * hook's client process): this process's own, and the session's s-
 * record and name when they are this process's, its helper's or a dead
 * one's; never a record naming another session (one its client process
 * runs now) or another client process of the session. Returns whether the
 * agent's session is over: false when another session of the same
 * client process runs as that agent now (a client that began a new
 * session in the same process, the one before ending late).
 */
bool session_forget(
    const char *dir, const char *prefix, const char *session_id);

/*
 * For a command run in worktree top without --agent, AIRSPACE_AGENT or a
 * client session above it (a person's command): the agent it acts as,
 * among agents (the array of GET /v1/agents), borrowed: the one agent
 * flying (not exited) in top that is not a running session's agent
 * (a live client process is recorded as it: not this command's, or
 * session_cli_agent would have found it; acting as it, a person's lock would
 * neither keep that session off nor outlive it). NULL when there is no such
 * agent: with *error (a new string naming each agent there with its client)
 * when several are there; with *person when only running sessions' agents fly
 * there (the person at the keyboard of top is the one to act as: api_person);
 * with neither when nobody flies there.
 */
struct json_t;
const char *session_person_agent(
    struct json_t *agents, const char *top, bool *person, char **error);

#endif
