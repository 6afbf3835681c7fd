/*
 * main.c - the airspace command: dispatch to one subcommand per table entry.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "hooks/hook.h"
#include "util/banned.h"

static const struct cli_command commands[] = {
    { "scan", "score every pair of agents and print advisories", cmd_scan },
    { "serve", "run the repository's daemon (started on demand)", cmd_serve },
    { "stop", "stop the repository's daemon", cmd_stop },
    { "status", "the daemon, agents and advisories on one screen", cmd_status },
    { "agents", "list the agents flying in this repository", cmd_agents },
    { "agent", "make or remove an agent's worktree and branch", cmd_agent },
    { "fleet", "start, watch and stop a fleet of agents in tmux", cmd_fleet },
    { "commit", "commit only your own files, without the index lock",
        cmd_commit },
    { "land", "merge an agent's branch into the integration branch", cmd_land },
    { "advisories", "list the live traffic and resolution advisories",
        cmd_advisories },
    { "alerts", "what needs a person now: silent agents, stale locks, ...",
        cmd_alerts },
    { "watch", "follow the live events", cmd_watch },
    { "top", "the live picture in the terminal, updated as it changes",
        cmd_top },
    { "open", "the live map of the repository in the browser", cmd_open },
    { "lock", "lock paths or globs", cmd_lock },
    { "unlock", "release locks you hold", cmd_unlock },
    { "locks", "list live locks and claims", cmd_locks },
    { "claim", "claim paths (contestable locks)", cmd_claim },
    { "contest", "contest someone's claim", cmd_contest },
    { "release", "release claims, or force one you contested", cmd_release },
    { "intent", "declare what you are about to touch", cmd_intent },
    { "conflicts", "forward, in-flight, committed, ownership, integration",
        cmd_conflicts },
    { "msg", "send a message to an agent, a label or all", cmd_msg },
    { "inbox", "read your new messages", cmd_inbox },
    { "log", "what happened, from the daemon's record", cmd_log },
    { "hook", "answer an agent client's hook (claude-code, codex, gemini)",
        cmd_hook },
    { "api", "send one raw request to the daemon", cmd_api },
    { "mcp", "serve the Model Context Protocol on stdio", cmd_mcp },
    { "init", "wire airspace into agent clients and git hooks", cmd_init },
    { "replay", "measure how well the risk model predicts recorded merges",
        cmd_replay },
    { "version", "print the version", cmd_version },
};

static void
usage(FILE *f)
{
    fprintf(f, "usage: airspace <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'airspace <command> --help' for a command's options.\n");
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version"))
        return cmd_version(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "airspace: unknown command '%s'\nTry 'airspace --help'.\n",
        argv[1]);
    return CLI_EXIT_USAGE;
}
