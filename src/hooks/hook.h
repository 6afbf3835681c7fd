/*
 * hook.h - `airspace hook claude-code|codex|gemini`: one hook call of an
 * agent client, answered from the daemon (docs/hooks.md). Built into both
 * the airspace binary and the small airspace-hook binary.
 */
#ifndef AIRSPACE_HOOKS_HOOK_H
#define AIRSPACE_HOOKS_HOOK_H

/* Runs one hook call: argv[1] names the client; the event's JSON is read
 * from standard input and the answer written to standard output. Returns
 * the process exit status (util/exitcode.h). */
int cmd_hook(int argc, char **argv);

#endif
