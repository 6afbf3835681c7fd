/*
 * restore.h - the store's restore at start-up (restore.c). Internal to
 * src/broker.
 */
#ifndef AIRSPACE_BROKER_RESTORE_H
#define AIRSPACE_BROKER_RESTORE_H

#include "broker/internal.h"

/* Restore the state of the store at start-up (restore.c). */
int broker_restore(struct broker *b, struct as_err *e);

#endif
