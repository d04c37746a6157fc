/* fault.c - parsing of the FLASHCHUNK_CBLK_* environment variables. */
#include "fault.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
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

/* ---- runtime faults ---- */

#define HANG_RECHECK_US 10000UL

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static struct runtime_faults runtime_current;
static struct timespec runtime_checked; /* monotonic; zero: never */
static struct timespec runtime_mtime;
static off_t runtime_size = -1;
static uint64_t runtime_reads;
static uint64_t runtime_writes;

static long elapsed_ms(const struct timespec *from, const struct timespec *to)
{
    return (long)(to->tv_sec - from->tv_sec) * 1000 + (to->tv_nsec - from->tv_nsec) / 1000000;
}

static void runtime_parse(FILE *f, struct runtime_faults *out)
{
    char line[128];

    memset(out, 0, sizeof(*out));
    while (fgets(line, sizeof(line), f) != NULL) {
        char *eq = strchr(line, '=');
        char *end;
        unsigned long n;

        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        if (eq == NULL || !parse_ulong(eq + 1, &end, &n) || *end != '\0') {
            report_malformed("FLASHCHUNK_CBLK_FAULT_FILE line", line);
            continue;
        }
        *eq = '\0';
        if (strcmp(line, "latency_us") == 0 && n <= MAX_LATENCY_US)
            out->latency_us = n;
        else if (strcmp(line, "read_error_every") == 0)
            out->read_error_every = n;
        else if (strcmp(line, "write_error_every") == 0)
            out->write_error_every = n;
        else if (strcmp(line, "hang") == 0 && n <= 1)
            out->hang = n == 1;
        else {
            *eq = '=';
            report_malformed("FLASHCHUNK_CBLK_FAULT_FILE line", line);
        }
    }
}

void runtime_faults_get(struct runtime_faults *out)
{
    const char *path = getenv("FLASHCHUNK_CBLK_FAULT_FILE");
    unsigned long poll_ms = 100;
    struct timespec now;
    struct stat st;

    if (path == NULL) {
        memset(out, 0, sizeof(*out));
        return;
    }
    env_get_ulong("FLASHCHUNK_CBLK_FAULT_FILE_POLL_MS", 0, 60000, &poll_ms);
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&runtime_lock);
    if ((runtime_checked.tv_sec == 0 && runtime_checked.tv_nsec == 0)
        || elapsed_ms(&runtime_checked, &now) >= (long)poll_ms) {
        runtime_checked = now;
        if (stat(path, &st) != 0) {
            memset(&runtime_current, 0, sizeof(runtime_current));
            runtime_size = -1;
        } else if (st.st_size != runtime_size || st.st_mtim.tv_sec != runtime_mtime.tv_sec
                   || st.st_mtim.tv_nsec != runtime_mtime.tv_nsec) {
            FILE *f = fopen(path, "r");

            if (f != NULL) {
                runtime_parse(f, &runtime_current);
                fclose(f);
                runtime_size = st.st_size;
                runtime_mtime = st.st_mtim;
            }
        }
    }
    *out = runtime_current;
    pthread_mutex_unlock(&runtime_lock);
}

bool runtime_faults_apply(bool is_write)
{
    struct runtime_faults rt;
    unsigned long every;
    uint64_t n;

    runtime_faults_get(&rt);
    while (rt.hang) {
        sleep_us(HANG_RECHECK_US);
        runtime_faults_get(&rt);
    }
    if (rt.latency_us)
        sleep_us(rt.latency_us);
    every = is_write ? rt.write_error_every : rt.read_error_every;
    if (every == 0)
        return false;
    n = __atomic_add_fetch(is_write ? &runtime_writes : &runtime_reads, 1, __ATOMIC_RELAXED);
    return n % every == 0;
}
