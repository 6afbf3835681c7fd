/* conn.c - connections. #include "fake.h" in a comment */
#include "net/conn.h"
#include <stdlib.h>

#define MAX_CONN 64
#define CONN_OK(c) ((c)->fd >= 0)

struct pool {
    struct conn *items[MAX_CONN];
    int n;
};

typedef struct pool pool_t;

static const char *banner = "call fake_call() here";

int
conn_open(struct conn *c, const char *host)
{
    if (!CONN_OK(c))
        return -1;
    c->fd = socket_connect(host);
    c->ops->start(c);
    return 0;
}

void conn_close(struct conn *c);

enum state { IDLE, BUSY };
