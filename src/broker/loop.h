/*
 * loop.h - the daemon's loop (broker.c): its TCP listener, opened on
 * demand. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_LOOP_H
#define AIRSPACE_BROKER_LOOP_H

#include "broker/internal.h"

/* Listen on 127.0.0.1:port too (0: a free port, which the caller reads
 * from b->tcp_socket), with a fresh token in <dir>/token, unless the daemon
 * already does. */
int broker_listen_tcp(struct broker *b, int port, struct as_err *e);

#endif
