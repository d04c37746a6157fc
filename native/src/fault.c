/* fault.c - parsing of the FLASHCHUNK_CBLK_* environment variables. */
#include "fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LATENCY_US 10000000UL /* 10 s: anything larger is a typo */

static void report_malformed(const char *name, const char *value)
{
    fprintf(stderr, "libcflsh_block: ignoring malformed %s=\"%s\"\n",
            name, value);
}

/* Parses leading decimal digits only (strtoul alone would accept signs
 * and blanks).  *end is left after the number. */
static bool parse_ulong(const char *s, char **end, unsigned long *out)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    *out = strtoul(s, end, 10);
    return errno == 0;
}

bool env_get_ulong(const char *name, unsigned long min, unsigned long max,
                   unsigned long *out)
{
    const char *value = getenv(name);
    char *end;
    unsigned long n;

    if (value == NULL)
        return false;
    if (!parse_ulong(value, &end, &n) || *end != '\0' || n < min || n > max) {
        report_malformed(name, value);
        return false;
    }
    *out = n;
    return true;
}

/* "N" or "N,M,...": positive operation numbers. */
static bool parse_list(const char *value, struct fault_plan *plan)
{
    const char *p = value;
    char *end;
    unsigned long n;

    plan->n_listed = 0;
    for (;;) {
        if (!parse_ulong(p, &end, &n) || n == 0 ||
            plan->n_listed == FAULT_MAX_LISTED)
            return false;
        plan->listed[plan->n_listed++] = n;
        if (*end == '\0')
            return true;
        if (*end != ',')
            return false;
        p = end + 1;
    }
}

static void plan_from_env(struct fault_plan *plan, const char *list_name,
                          const char *every_name)
{
    const char *list = getenv(list_name);
    unsigned long every;

    memset(plan, 0, sizeof(*plan));
    if (list != NULL && !parse_list(list, plan)) {
        plan->n_listed = 0;
        report_malformed(list_name, list);
    }
    if (env_get_ulong(every_name, 1, ~0UL, &every))
        plan->every = every;
}

void fault_config_from_env(struct fault_config *cfg)
{
    unsigned long latency = 0;

    plan_from_env(&cfg->reads, "FLASHCHUNK_CBLK_FAIL_READ",
                  "FLASHCHUNK_CBLK_FAIL_READ_EVERY");
    plan_from_env(&cfg->writes, "FLASHCHUNK_CBLK_FAIL_WRITE",
                  "FLASHCHUNK_CBLK_FAIL_WRITE_EVERY");
    env_get_ulong("FLASHCHUNK_CBLK_LATENCY_US", 0, MAX_LATENCY_US, &latency);
    cfg->latency_us = latency;
}

bool fault_plan_hits(const struct fault_plan *plan, uint64_t op_number)
{
    if (plan->every != 0 && op_number % plan->every == 0)
        return true;
    for (size_t i = 0; i < plan->n_listed; i++)
        if (plan->listed[i] == op_number)
            return true;
    return false;
}

void sleep_us(unsigned long us)
{
    struct timespec left = {
        .tv_sec = (time_t)(us / 1000000),
        .tv_nsec = (long)(us % 1000000) * 1000,
    };

    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}
