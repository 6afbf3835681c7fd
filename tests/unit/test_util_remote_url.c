/* test_util_remote_url.c - remote_url_airspace(): the spellings of one
 * remote agree, and different remotes stay apart (an IPv6 host was cut at
 * its first colon: two servers were one airspace). */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/remote_url.h"
#include "util/banned.h"

static const struct {
    const char *url, *want;
} cases[] = {
    { "https://github.com/Acme/airspace.git", "github.com/Acme/airspace" },
    { "https://GitHub.com/Acme/airspace", "github.com/Acme/airspace" },
    { "git@github.com:Acme/airspace.git", "github.com/Acme/airspace" },
    { "ssh://git@github.com:22/Acme/airspace.git/",
        "github.com/Acme/airspace" },
    { "https://user:token@github.com/Acme/airspace.git",
        "github.com/Acme/airspace" },
    { "git://github.com/Acme/airspace", "github.com/Acme/airspace" },
    { "https://github.com/Acme/airspace.git?x=1", "github.com/Acme/airspace" },
    { "https://github.com/Acme/airspace#main", "github.com/Acme/airspace" },
    { "ssh://git@[2001:db8::1]:2222/team/app.git", "[2001:db8::1]/team/app" },
    { "ssh://git@[2001:DB8::2]/team/app.git", "[2001:db8::2]/team/app" },
    { "/srv/git/app.git", "/srv/git/app" },
    { "file:///srv/git/app.git", "/srv/git/app" },
    { "../app", "../app" },
};

int
main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        TEST_BEGIN(cases[i].url);
        char *got = remote_url_airspace(cases[i].url);
        CHECK_STR(got, cases[i].want);
        free(got);
        TEST_END();
    }
    return test_done();
}
