/*
 * hook_main.c - airspace-hook, the lean binary for agents' hooks: the same
 * code as `airspace hook`, linked with jansson only, so that a hook call
 * starts in well under a millisecond (the full binary loads libgit2,
 * libcurl and their TLS libraries first).
 */
#include "hooks/hook.h"
#include "util/banned.h"

int
main(int argc, char **argv)
{
    return cmd_hook(argc, argv);
}
