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

/* Faults that change while a chunk is open, from the file FLASHCHUNK_CBLK_FAULT_FILE names (if set):
 * lines "latency_us=N", "read_error_every=K", "write_error_every=K", "hang=0|1".  The file is
 * re-read when its modification time or size changes, checked at most every
 * FLASHCHUNK_CBLK_FAULT_FILE_POLL_MS (default 100; 0: at every I/O).  A missing file means no
 * faults.  Process-wide: it drives every open chunk, as a failing card would. */
struct runtime_faults {
    unsigned long latency_us;
    unsigned long read_error_every;
    unsigned long write_error_every;
    bool hang;
};

void runtime_faults_get(struct runtime_faults *out);
/* Applies the runtime faults to one I/O about to run: waits while hung, sleeps the latency, and
 * says whether the I/O fails with EIO. */
bool runtime_faults_apply(bool is_write);

#endif
