/*
 * test.h - a minimal table-driven test harness.
 *
 * Each test file defines cases and calls them from main() through TEST_RUN;
 * CHECK* macros record failures with file:line and the case name, and
 * test_done() prints the machine-readable last line "N passed, N failed" and
 * returns the exit status.
 */
#ifndef AIRSPACE_TEST_H
#define AIRSPACE_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_passed, test_failed, test_case_failed;
static const char *test_case_name = "";

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__,        \
                __LINE__, test_case_name, #cond);                              \
            test_case_failed = 1;                                              \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(got, want, eps)                                             \
    do {                                                                       \
        double g_ = (got), w_ = (want);                                        \
        if (!(fabs(g_ - w_) <= (eps))) {                                       \
            fprintf(stderr, "%s:%d: [%s] %s = %.9g, want %.9g\n", __FILE__,    \
                __LINE__, test_case_name, #got, g_, w_);                       \
            test_case_failed = 1;                                              \
        }                                                                      \
    } while (0)

#define CHECK_INT(got, want)                                                   \
    do {                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);               \
        if (g_ != w_) {                                                        \
            fprintf(stderr, "%s:%d: [%s] %s = %lld, want %lld\n", __FILE__,    \
                __LINE__, test_case_name, #got, g_, w_);                       \
            test_case_failed = 1;                                              \
        }                                                                      \
    } while (0)

#define CHECK_STR(got, want)                                                   \
    do {                                                                       \
        const char *g_ = (got), *w_ = (want);                                  \
        if (!g_ || !w_ || strcmp(g_, w_)) {                                    \
            fprintf(stderr, "%s:%d: [%s] %s = \"%s\", want \"%s\"\n",          \
                __FILE__, __LINE__, test_case_name, #got, g_ ? g_ : "(null)",  \
                w_ ? w_ : "(null)");                                           \
            test_case_failed = 1;                                              \
        }                                                                      \
    } while (0)

/* Run fn() as a case named name. */
#define TEST_RUN(name, fn)                                                     \
    do {                                                                       \
        test_case_name = (name);                                               \
        test_case_failed = 0;                                                  \
        fn();                                                                  \
        if (test_case_failed)                                                  \
            test_failed++;                                                     \
        else                                                                   \
            test_passed++;                                                     \
    } while (0)

/* Start a named case inline (for table loops); end it with TEST_END(). */
#define TEST_BEGIN(name)                                                       \
    do {                                                                       \
        test_case_name = (name);                                               \
        test_case_failed = 0;                                                  \
    } while (0)
#define TEST_END()                                                             \
    do {                                                                       \
        if (test_case_failed)                                                  \
            test_failed++;                                                     \
        else                                                                   \
            test_passed++;                                                     \
    } while (0)

/* rm -rf p, without a shell: a fixture's cleanup. 0 or -1. */
static inline int
test_rm_rf(const char *p)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", p, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid ? 0 : -1;
}

static inline int
test_done(void)
{
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}

#endif
