/* fault.h - environment-driven fault injection and tuning, read at each
 * cblk_open so a test can setenv() and then open a fresh chunk. */
#ifndef CFLSH_FAULT_H
#define CFLSH_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAULT_MAX_LISTED 64

/* Which operations (1-based, in submission order) fail with EIO. */
struct fault_plan {
    uint64_t listed[FAULT_MAX_LISTED]; /* from FLASHCHUNK_CBLK_FAIL_<OP> */
    size_t n_listed;
    uint64_t every;                    /* from ..._EVERY; 0 = off */
};

struct fault_config {
    struct fault_plan reads;
    struct fault_plan writes;
    unsigned long latency_us;          /* extra delay per I/O */
};

void fault_config_from_env(struct fault_config *cfg);
bool fault_plan_hits(const struct fault_plan *plan, uint64_t op_number);

/* Reads env var name as an integer in [min, max].  False if unset or
 * malformed; malformed values are reported on stderr. */
bool env_get_ulong(const char *name, unsigned long min, unsigned long max,
                   unsigned long *out);

void sleep_us(unsigned long us);

#endif
