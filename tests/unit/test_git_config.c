/*
 * test_git_config.c - the configuration files: key mapping (every risk
 * model key round-trips), layers and their precedence, the user file's
 * location, and errors naming file, line, key and value.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "core/risk.h"
#include "git/config.h"
#include "git/repo.h"
#include "util/error.h"

static char dir[600];

/* Write text to dir/name and return its path (static buffer). */
static const char *
put(const char *name, const char *text)
{
    static char path[800];
    fx_write(dir, name, text);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

/* Every key risk_config_set() accepts, as a config file writes it, with a
 * value that is not its default. */
static const struct {
    const char *key, *file, *value;
} risk_keys[] = {
    { "weight.overlap", "[risk \"weight\"]\n\toverlap = 0.51\n", "0.51" },
    { "weight.merge", "[risk \"weight\"]\n\tmerge = 0.52\n", "0.52" },
    { "weight.dependency", "[risk \"weight\"]\n\tdependency = 0.53\n", "0.53" },
    { "weight.symbol", "[risk \"weight\"]\n\tsymbol = 0.54\n", "0.54" },
    { "weight.intent", "[risk \"weight\"]\n\tintent = 0.55\n", "0.55" },
    { "weight.context", "[risk \"weight\"]\n\tcontext = 0.56\n", "0.56" },
    { "weight.topic", "[risk \"weight\"]\n\ttopic = 0.57\n", "0.57" },
    { "weight.tree", "[risk \"weight\"]\n\ttree = 0.58\n", "0.58" },
    { "weight.forward", "[risk \"weight\"]\n\tforward = 0.19\n", "0.19" },
    { "weight.activity", "[risk \"weight\"]\n\tactivity = 0.21\n", "0.21" },
    { "margin", "[risk]\n\tmargin = 7\n", "7" },
    { "gamma", "[risk]\n\tgamma = 0.45\n", "0.45" },
    { "cap", "[risk]\n\tcap = 4\n", "4" },
    { "sigma0", "[risk]\n\tsigma0 = 0.25\n", "0.25" },
    { "symbol.enclosing", "[risk \"symbol\"]\n\tenclosing = 0.44\n", "0.44" },
    { "symbols", "[risk]\n\tsymbols = off\n", "off" },
    { "recency.floor", "[risk \"recency\"]\n\tfloor = 0.33\n", "0.33" },
    { "recency.half_life_ms", "[risk \"recency\"]\n\thalf-life-ms = 1234\n",
        "1234" },
    { "tau.traffic", "[risk \"tau\"]\n\ttraffic = 0.31\n", "0.31" },
    { "tau.resolution", "[risk \"tau\"]\n\tresolution = 0.71\n", "0.71" },
    { "leave.traffic", "[risk \"leave\"]\n\ttraffic = 0.29\n", "0.29" },
    { "leave.resolution", "[risk \"leave\"]\n\tresolution = 0.59\n", "0.59" },
    { "dwell_ms", "[risk]\n\tdwell-ms = 321\n", "321" },
    { "tau_min_ms", "[risk]\n\ttau-min-ms = 999\n", "999" },
    { "early_min", "[risk]\n\tearly-min = 0.21\n", "0.21" },
    { "closure.window", "[risk \"closure\"]\n\twindow = 9\n", "9" },
    { "forward.min_rate", "[risk \"forward\"]\n\tmin-rate = 0.12\n", "0.12" },
    { "overlap.merged", "[risk \"overlap\"]\n\tmerged = 0.45\n", "0.45" },
    { "activity.k", "[risk \"activity\"]\n\tk = 75\n", "75" },
};
#define NKEYS (sizeof(risk_keys) / sizeof(risk_keys[0]))

static void
test_risk_keys_round_trip(void)
{
    for (size_t i = 0; i < NKEYS; i++) {
        struct config c;
        struct risk_config got, want, def;
        struct as_err e;
        memset(&got, 0, sizeof(got));
        memset(&want, 0, sizeof(want));
        memset(&def, 0, sizeof(def));
        risk_config_default(&got);
        risk_config_default(&want);
        risk_config_default(&def);
        config_init(&c);
        const char *path = put("keys", risk_keys[i].file);
        int rc = config_read_file(&c, path, &e);
        CHECK_INT(rc, 0);
        if (rc)
            fprintf(stderr, "  %s: %s\n", risk_keys[i].key, e.msg);
        CHECK_INT(c.nrisk, 1);
        if (c.nrisk == 1) {
            CHECK_STR(c.risk[0].key, risk_keys[i].key);
            CHECK_STR(c.risk[0].value, risk_keys[i].value);
        }
        config_apply_risk(&c, &got);
        CHECK_INT(
            risk_config_set(&want, risk_keys[i].key, risk_keys[i].value, &e),
            0);
        CHECK(memcmp(&want, &def, sizeof(want)) != 0); /* not the default */
        if (memcmp(&got, &want, sizeof(got)))
            fprintf(stderr, "  %s did not round-trip\n", risk_keys[i].key);
        CHECK(memcmp(&got, &want, sizeof(got)) == 0);
        config_release(&c);
    }
}

/* The table above names every key of risk.c's config_keys[] (read from
 * the source next to this test), so a new model key cannot be left out. */
static void
test_risk_keys_complete(void)
{
    char path[1024];
    const char *slash = strrchr(__FILE__, '/');
    snprintf(path, sizeof(path), "%.*s/../../src/core/risk.c",
        (int)(slash ? slash - __FILE__ : 1), slash ? __FILE__ : ".");
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[512];
    bool in = false;
    size_t seen = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "config_keys[] = {")) {
            in = true;
            continue;
        }
        if (!in)
            continue;
        if (!strncmp(line, "};", 2))
            break;
        char key[128];
        const char *q = strchr(line, '"');
        if (!q)
            continue;
        const char *end = strchr(q + 1, '"');
        if (!end)
            continue;
        snprintf(key, sizeof(key), "%s%.*s",
            strstr(line, "WKEY(") ? "weight." : "", (int)(end - q - 1), q + 1);
        bool found = false;
        for (size_t i = 0; i < NKEYS; i++)
            found = found || !strcmp(risk_keys[i].key, key);
        if (!found)
            fprintf(stderr, "  risk key '%s' has no config file case\n", key);
        CHECK(found);
        seen++;
    }
    fclose(f);
    CHECK_INT(seen, NKEYS);
}

static void
test_mapping_forms(void)
{
    struct config c;
    struct as_err e;
    struct risk_config got;
    config_init(&c);
    /* Old-style [risk.weight], a bare boolean, case-insensitive section and
     * variable names, other sections ignored, the last value wins. */
    const char *path =
        put("forms", "[core]\n\tbare = false\n[user]\n\tname = x\n"
                     "[risk.weight]\n\tmerge = 0.2\n"
                     "[RISK]\n\tSymbols\n\tMargin = 3\n\tmargin = 4\n"
                     "[daemon]\n\tstale-ms = 250\n\ttick-ms = 10\n"
                     "\tidle-exit-ms = 0\n\tagent-timeout-ms = 90000\n"
                     "[airspace]\n\tintegration = trunk\n");
    CHECK_INT(config_read_file(&c, path, &e), 0);
    risk_config_default(&got);
    got.use_symbols = false;
    config_apply_risk(&c, &got);
    CHECK_NEAR(got.weight[RISK_MERGE], 0.2, 1e-12);
    CHECK(got.use_symbols);
    CHECK_INT(got.margin, 4);
    CHECK_INT(c.timer[CONFIG_STALE_MS], 250);
    CHECK_INT(c.timer[CONFIG_TICK_MS], 10);
    CHECK_INT(c.timer[CONFIG_RESCAN_MS], -1);
    CHECK_INT(c.timer[CONFIG_IDLE_EXIT_MS], 0); /* 0: never */
    CHECK_INT(c.timer[CONFIG_AGENT_TIMEOUT_MS], 90000);
    CHECK_STR(c.integration, "trunk");
    config_release(&c);

    /* a missing file is an empty layer */
    config_init(&c);
    CHECK_INT(config_read_file(&c, "/nonexistent/airspace/config", &e), 0);
    CHECK_INT(c.nrisk, 0);
    CHECK(c.integration == NULL);
    config_release(&c);
}

static const struct {
    const char *name, *text;
    int code;
    const char *want[3]; /* substrings of the message besides the path */
} bad_cases[] = {
    { "malformed section", "[risk]\n\tmargin = 1\n[bad\n", AS_EPARSE,
        { ":3)", NULL, NULL } },
    { "underscore in a variable name", "[risk]\n\tdwell_ms = 1\n", AS_EPARSE,
        { ":2)", NULL, NULL } },
    { "unknown risk key", "[risk]\n\tnosuch = 1\n", AS_EINVAL,
        { "risk.nosuch", "= 1", "unknown model key" } },
    { "unknown risk subsection", "[risk \"weight\"]\n\tspeed = 0.5\n",
        AS_EINVAL, { "risk.weight.speed", "= 0.5", NULL } },
    { "bad number", "[risk \"weight\"]\n\tmerge = lots\n", AS_EINVAL,
        { "risk.weight.merge", "lots", "not a number" } },
    { "out of range", "[risk]\n\tcap = 99\n", AS_EINVAL,
        { "risk.cap", "99", NULL } },
    { "number without a value", "[risk]\n\tgamma\n", AS_EINVAL,
        { "risk.gamma", "no value", NULL } },
    { "bad boolean", "[risk]\n\tsymbols = maybe\n", AS_EINVAL,
        { "risk.symbols", "maybe", NULL } },
    { "unknown daemon key", "[daemon]\n\tspeed-ms = 5\n", AS_EINVAL,
        { "daemon.speed-ms", "= 5", "unknown key" } },
    { "bad timer", "[daemon]\n\tstale-ms = 1.5s\n", AS_EINVAL,
        { "daemon.stale-ms", "1.5s", ">= 1" } },
    { "timer below its minimum", "[daemon]\n\ttick-ms = 5\n", AS_EINVAL,
        { "daemon.tick-ms", "= 5", ">= 10" } },
    { "negative idle exit", "[daemon]\n\tidle-exit-ms = -1\n", AS_EINVAL,
        { "daemon.idle-exit-ms", "= -1", ">= 0" } },
    { "unknown airspace key", "[airspace]\n\tintegrate = main\n", AS_EINVAL,
        { "airspace.integrate", "main", NULL } },
    { "bad branch name", "[airspace]\n\tintegration = a..b\n", AS_EINVAL,
        { "airspace.integration", "a..b", "branch" } },
    { "a store with no path", "[store]\n\turl = sqlite:\n", AS_EINVAL,
        { "store.url", "= sqlite:", "no path after 'sqlite:'" } },
    { "a store of another scheme", "[store]\n\turl = ftp://host/x\n", AS_EINVAL,
        { "store.url", "ftp://host/x", "an unknown scheme" } },
    { "an empty store", "[store]\n\turl =\n", AS_EINVAL,
        { "store.url", "want a path", NULL } },
};

/* store.url values config_store_url_check() takes, and refuses. */
static const struct {
    const char *url;
    bool ok;
} store_urls[] = {
    { "/var/db/airspace.db", true }, { "relative/a.db", true },
    { "sqlite:/var/db/a.db", true }, { "sqlite:a.db", true },
    { "postgresql://host/db", true },
    { "postgres://u@host:5432/db?sslmode=require", true },
    { "postgresql://", true }, /* libpq's defaults */
    { "dir/x://y", true },     /* a path: no scheme before '://' */
    { "", false }, { "sqlite:", false }, { "ftp://x", false },
    { "mysql://host/db", false },
    { "sqlite:///var/db/a.db", true }, /* the path "///var/db/a.db" */
};

static void
test_store_urls(void)
{
    for (size_t i = 0; i < sizeof(store_urls) / sizeof(store_urls[0]); i++) {
        bool ok = config_store_url_check(store_urls[i].url) == NULL;
        if (ok != store_urls[i].ok)
            fprintf(stderr, "  store url '%s': want %s\n", store_urls[i].url,
                store_urls[i].ok ? "ok" : "refused");
        CHECK(ok == store_urls[i].ok);
    }
    CHECK(config_store_url_check(NULL) != NULL);
}

/* An [alerts] command cut short by a comment: what is warned about. */
static const struct {
    const char *name, *text;
    char cut; /* the character named, NUL: no warning */
} cut_cases[] = {
    { "a ';' with more after it", "[alerts]\n\tcommand = a >> f; b\n", ';' },
    { "a '#' with more after it", "[alerts]\n\tcommand = a # note\n", '#' },
    { "quoted", "[alerts]\n\tcommand = \"a >> f; b # c\"\n", 0 },
    { "quoted in part", "[alerts]\n\tcommand = a \"x;y\" b\n", 0 },
    { "an escaped quote is no quote", "[alerts]\n\tcommand = a \\\"x;y\\\"\n",
        ';' },
    { "nothing after it", "[alerts]\n\tcommand = a ;\n", 0 },
    { "on the header's line", "[alerts] command = a; b\n", ';' },
    { "the last one counts", "[alerts]\n\tcommand = a; b\n\tcommand = c\n", 0 },
    { "the last one counts, cut",
        "[alerts]\n\tcommand = c\n[alerts]\n\tCOMMAND = a # b\n", '#' },
    { "another section's command",
        "[alerts]\n\tcommand = c\n[x]\n\tcommand = a; b\n", 0 },
    { "a comment line", "[alerts]\n\t; a; b\n\tcommand = c\n", 0 },
    { "a continued line", "[alerts]\n\tcommand = a \\\n b; c\n", ';' },
};

static void
test_alerts_command_cut(void)
{
    for (size_t i = 0; i < sizeof(cut_cases) / sizeof(cut_cases[0]); i++) {
        TEST_BEGIN(cut_cases[i].name);
        struct config c;
        struct as_err e = { "" };
        config_init(&c);
        const char *path = put("cut", cut_cases[i].text);
        CHECK_INT(config_read_file(&c, path, &e), 0);
        CHECK(c.alerts_command != NULL);
        if (!cut_cases[i].cut) {
            CHECK(c.alerts_warning == NULL);
        } else {
            char want[64];
            snprintf(want, sizeof(want), "stops at the '%c'", cut_cases[i].cut);
            CHECK(c.alerts_warning && strstr(c.alerts_warning, want));
            CHECK(c.alerts_warning && strstr(c.alerts_warning, path));
        }
        config_release(&c);
        TEST_END();
    }
}

/* Thresholds out of order: the message names where each was set. */
static void
test_check_risk_origins(void)
{
    struct config c;
    struct risk_config cfg;
    struct as_err e = { "" };
    config_init(&c);
    const char *path = put("order", "[risk \"tau\"]\n\ttraffic = 0.8\n");
    CHECK_INT(config_read_file(&c, path, &e), 0);
    CHECK_STR(c.risk[0].file, path);
    risk_config_default(&cfg);
    config_apply_risk(&c, &cfg);
    CHECK_INT(config_check_risk(&c, NULL, 0, &cfg, &e), AS_EINVAL);
    char want[1200];
    snprintf(want, sizeof(want),
        "'tau.traffic' (0.8, from config file '%s') is above "
        "'tau.resolution' (0.7, built in)",
        path);
    CHECK_STR(e.msg, want);

    /* a --set beats the file, and the last --set of a key counts */
    const char *sets[] = { "tau.traffic=0.75", "tau.traffic=0.9" };
    CHECK_INT(risk_config_set(&cfg, "tau.traffic", "0.9", &e), 0);
    CHECK_INT(config_check_risk(&c, sets, 2, &cfg, &e), AS_EINVAL);
    CHECK_STR(e.msg,
        "'tau.traffic' (0.9, from --set) is above 'tau.resolution' (0.7, "
        "built in)");

    /* the files' settings not applied (scan --model): never named */
    const char *tt[] = { "tau.traffic=0.8" };
    risk_config_default(&cfg);
    CHECK_INT(risk_config_set(&cfg, "tau.traffic", "0.8", &e), 0);
    CHECK_INT(config_check_risk(NULL, tt, 1, &cfg, &e), AS_EINVAL);
    CHECK_STR(e.msg,
        "'tau.traffic' (0.8, from --set) is above 'tau.resolution' (0.7, "
        "built in)");

    /* in order: nothing to say */
    risk_config_default(&cfg);
    CHECK_INT(config_check_risk(&c, NULL, 0, &cfg, &e), 0);
    config_release(&c);
}

static void
test_errors(void)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        TEST_BEGIN(bad_cases[i].name);
        struct config c;
        struct as_err e = { "" };
        config_init(&c);
        const char *path = put("bad", bad_cases[i].text);
        CHECK_INT(config_read_file(&c, path, &e), bad_cases[i].code);
        CHECK(strstr(e.msg, path) != NULL);
        for (int k = 0; k < 3 && bad_cases[i].want[k]; k++)
            if (!strstr(e.msg, bad_cases[i].want[k])) {
                fprintf(stderr, "  message '%s' lacks '%s'\n", e.msg,
                    bad_cases[i].want[k]);
                CHECK(0);
            }
        config_release(&c);
        TEST_END();
    }
    TEST_BEGIN("a directory is not a config file");
    struct config c;
    struct as_err e = { "" };
    config_init(&c);
    CHECK_INT(config_read_file(&c, dir, &e), AS_EIO);
    CHECK(strstr(e.msg, dir) != NULL);
    config_release(&c);
    TEST_END();
}

static void
test_user_path(void)
{
    char *p;
    setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
    setenv("HOME", "/home/u", 1);
    p = config_user_path();
    CHECK_STR(p, "/x/cfg/airspace/config");
    free(p);
    setenv("XDG_CONFIG_HOME", "relative", 1); /* ignored, as XDG says */
    p = config_user_path();
    CHECK_STR(p, "/home/u/.config/airspace/config");
    free(p);
    unsetenv("XDG_CONFIG_HOME");
    p = config_user_path();
    CHECK_STR(p, "/home/u/.config/airspace/config");
    free(p);
    unsetenv("HOME");
    p = config_user_path();
    CHECK(p == NULL);
    free(p);
    setenv("HOME", fx_root, 1);
}

static void
test_layers(void)
{
    char repo_dir[700], xdg[700], path[900];
    struct repo *r = NULL;
    struct config c;
    struct as_err e = { "" };
    struct risk_config got;
    char *integ = NULL;

    fx_init("layers", repo_dir, sizeof(repo_dir));
    fx_write(repo_dir, "a", "a\n");
    fx_git(repo_dir, "add", "-A", NULL);
    fx_commit(repo_dir, "base");
    snprintf(xdg, sizeof(xdg), "%s/xdg", fx_root);
    mkdir(xdg, 0755);
    setenv("XDG_CONFIG_HOME", xdg, 1);
    CHECK_INT(repo_open(repo_dir, &r, &e), 0);
    if (!r)
        return;

    /* user only */
    fx_write(xdg, "airspace/config",
        "[risk \"weight\"]\n\tmerge = 0.1\n[risk]\n\tmargin = 1\n"
        "[daemon]\n\tstale-ms = 100\n\ttick-ms = 20\n"
        "[airspace]\n\tintegration = user-branch\n");
    config_init(&c);
    CHECK_INT(config_read(&c, r, &e), 0);
    CHECK_STR(c.integration, "user-branch");
    config_release(&c);
    CHECK_INT(repo_integration_branch(r, &integ, &e), 0);
    CHECK_STR(integ, "user-branch");
    free(integ);

    /* repository over user */
    fx_write(repo_dir, ".airspace/config",
        "[risk \"weight\"]\n\tmerge = 0.2\n[risk]\n\tcap = 3\n"
        "[daemon]\n\tstale-ms = 200\n"
        "[airspace]\n\tintegration = repo-branch\n");
    config_init(&c);
    CHECK_INT(config_read(&c, r, &e), 0);
    risk_config_default(&got);
    config_apply_risk(&c, &got);
    CHECK_NEAR(got.weight[RISK_MERGE], 0.2, 1e-12);
    CHECK_INT(got.margin, 1);
    CHECK_INT(got.cap, 3);
    CHECK_INT(c.timer[CONFIG_STALE_MS], 200);
    CHECK_INT(c.timer[CONFIG_TICK_MS], 20);
    CHECK_STR(c.integration, "repo-branch");
    config_release(&c);

    char *from = NULL;
    CHECK_INT(repo_integration_branch_from(r, &integ, &from, &e), 0);
    CHECK_STR(integ, "repo-branch");
    snprintf(path, sizeof(path), "config file '%s/.airspace/config'", repo_dir);
    CHECK_STR(from, path);
    free(integ);
    free(from);

    /* git config over the repository file */
    fx_git(repo_dir, "config", "airspace.integration", "git-branch", NULL);
    CHECK_INT(repo_integration_branch(r, &integ, &e), 0);
    CHECK_STR(integ, "git-branch");
    free(integ);
    CHECK_INT(repo_integration_branch_from(r, &integ, &from, &e), 0);
    CHECK_STR(from, "git config 'airspace.integration'");
    free(integ);
    free(from);

    /* local over all */
    snprintf(path, sizeof(path), "%s/.git", repo_dir);
    fx_write(path, "airspace/config",
        "[risk \"weight\"]\n\tmerge = 0.3\n[daemon]\n\tstale-ms = 300\n"
        "[airspace]\n\tintegration = local-branch\n");
    config_init(&c);
    CHECK_INT(config_read(&c, r, &e), 0);
    risk_config_default(&got);
    config_apply_risk(&c, &got);
    CHECK_NEAR(got.weight[RISK_MERGE], 0.3, 1e-12);
    CHECK_INT(got.margin, 1);
    CHECK_INT(got.cap, 3);
    CHECK_INT(c.timer[CONFIG_STALE_MS], 300);
    CHECK_INT(c.timer[CONFIG_TICK_MS], 20);
    config_release(&c);
    CHECK_INT(repo_integration_branch(r, &integ, &e), 0);
    CHECK_STR(integ, "local-branch");
    free(integ);

    /* no repository: the user file only */
    config_init(&c);
    CHECK_INT(config_read(&c, NULL, &e), 0);
    CHECK_INT(c.timer[CONFIG_STALE_MS], 100);
    CHECK_STR(c.integration, "user-branch");
    config_release(&c);

    /* a bad layer is an error, for the integration branch too */
    fx_write(path, "airspace/config", "[daemon]\n\tstale-ms = soon\n");
    config_init(&c);
    CHECK_INT(config_read(&c, r, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "/.git/airspace/config") != NULL);
    config_release(&c);
    integ = NULL;
    CHECK_INT(repo_integration_branch(r, &integ, &e), AS_EINVAL);
    CHECK(integ == NULL);

    repo_free(r);
    unsetenv("XDG_CONFIG_HOME");
}

int
main(void)
{
    fx_setup();
    unsetenv("XDG_CONFIG_HOME");
    snprintf(dir, sizeof(dir), "%s/files", fx_root);
    mkdir(dir, 0755);
    TEST_RUN("every risk key round-trips", test_risk_keys_round_trip);
    TEST_RUN("every risk key has a case", test_risk_keys_complete);
    TEST_RUN("mapping forms and ignored sections", test_mapping_forms);
    test_errors();
    TEST_RUN("store urls", test_store_urls);
    test_alerts_command_cut();
    TEST_RUN(
        "thresholds out of order name their origins", test_check_risk_origins);
    TEST_RUN("user file location (XDG)", test_user_path);
    TEST_RUN("layers and precedence", test_layers);
    fx_teardown();
    return test_done();
}
