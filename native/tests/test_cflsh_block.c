/*
 * test_cflsh_block.c - tests for the file-backed libcflsh_block.
 * Creates a scratch LUN file in a fresh temp directory and removes it.
 * Prints one line per test and a closing "N passed, M failed" line.
 */
#define _GNU_SOURCE

#include "capiblock.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK        4096
#define LUN_BLOCKS   1024
#define MAX_XFER     4096

#define TEST_TIMEOUT_S 120 /* a hung call fails the run instead */

static char scratch_dir[256];
static char lun_path[300];
static int checks_failed; /* within the current test */
static const char *current_test = "(setup)";

#define CHECK(cond, ...) check((cond), __LINE__, #cond, __VA_ARGS__)

static void check(bool ok, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;

    if (ok)
        return;
    checks_failed++;
    fprintf(stderr, "  line %d: check failed: %s\n    ", line, expr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));
}

/* Expects rc == -1 with the given errno. */
#define CHECK_FAILS(call, want_errno, what)                                  \
    do {                                                                     \
        errno = 0;                                                           \
        long rc_ = (long)(call);                                             \
        int err_ = errno;                                                    \
        CHECK(rc_ == -1 && err_ == (want_errno),                             \
              "%s: want -1/%s, got %ld/%s", what, strerror(want_errno), rc_, \
              strerror(err_));                                               \
    } while (0)

static void *block_buf(size_t nblocks)
{
    void *p = NULL;

    if (posix_memalign(&p, BLOCK, nblocks * BLOCK) != 0) {
        perror("posix_memalign");
        exit(2);
    }
    memset(p, 0, nblocks * BLOCK);
    return p;
}

static void fill_random(void *buf, size_t len, unsigned *seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)rand_r(seed);
}

static void fill_pattern(void *buf, size_t nblocks, int salt)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < nblocks * BLOCK; i++)
        p[i] = (unsigned char)(i * 31 + (size_t)salt * 7 + i / BLOCK);
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static chunk_id_t open_lun(int max_requests, int mode, int flags)
{
    errno = 0;
    chunk_id_t id = cblk_open(lun_path, max_requests, mode, 0, flags);
    CHECK(id >= 0, "cblk_open(%s) failed", lun_path);
    return id;
}

/* Opens with one environment variable set only for this open. */
static chunk_id_t open_lun_with_env(const char *name, const char *value,
                                    int max_requests)
{
    setenv(name, value, 1);
    chunk_id_t id = open_lun(max_requests, O_RDWR, 0);
    unsetenv(name);
    return id;
}

static void close_lun(chunk_id_t id)
{
    CHECK(cblk_close(id, 0) == 0, "cblk_close(%d)", id);
}

static chunk_stats_t stats_of(chunk_id_t id)
{
    chunk_stats_t s;

    memset(&s, 0xff, sizeof(s));
    CHECK(cblk_get_stats(id, &s, 0) == 0, "cblk_get_stats(%d)", id);
    return s;
}

/* Harvests one completion with NEXT_TAG|BLOCKING. */
static int harvest_next(chunk_id_t id, int *tag, uint64_t *status)
{
    return cblk_aresult(id, tag, status,
                        CBLK_ARESULT_NEXT_TAG | CBLK_ARESULT_BLOCKING);
}

/* ---- tests ---- */

static void test_init_required(void)
{
    CHECK_FAILS(cblk_open(lun_path, 0, O_RDWR, 0, 0), EINVAL,
                "open before cblk_init");
    CHECK_FAILS(cblk_open("/nonexistent/lun", 0, O_RDWR, 0, 0), EINVAL,
                "open of a missing path before cblk_init");
    CHECK_FAILS(cblk_term(NULL, 0), EINVAL, "term without init");
    CHECK(cblk_init(NULL, 0) == 0, "first cblk_init");
    CHECK(cblk_init(NULL, 0) == 0, "second cblk_init");
    CHECK(cblk_term(NULL, 0) == 0, "term of second reference");
    chunk_id_t id = open_lun(0, O_RDWR, 0);
    CHECK(cblk_term(NULL, 0) == 0, "term of last reference");
    CHECK_FAILS(cblk_get_stats(id, &(chunk_stats_t){0}, 0), EINVAL,
                "last cblk_term closes open chunks");
    CHECK_FAILS(cblk_open(lun_path, 0, O_RDWR, 0, 0), EINVAL,
                "open after last cblk_term");
    CHECK(cblk_init(NULL, 0) == 0, "re-init for the remaining tests");
}

static void test_open_close_sizes(void)
{
    size_t n = 0;
    chunk_id_t id = open_lun(0, O_RDWR, 0);

    CHECK(cblk_get_lun_size(id, &n, 0) == 0 && n == LUN_BLOCKS,
          "lun size %zu, want %d", n, LUN_BLOCKS);
    n = 0;
    CHECK(cblk_get_size(id, &n, 0) == 0 && n == LUN_BLOCKS,
          "chunk size %zu, want %d", n, LUN_BLOCKS);
    CHECK_FAILS(cblk_set_size(id, 10, 0), EINVAL, "set_size on physical lun");
    chunk_stats_t s = stats_of(id);
    CHECK(s.block_size == BLOCK && s.num_paths == 1 &&
          s.max_transfer_size == MAX_XFER,
          "stats header %u/%u/%llu", s.block_size, s.num_paths,
          (unsigned long long)s.max_transfer_size);
    close_lun(id);
    CHECK_FAILS(cblk_close(id, 0), EINVAL, "double close");
}

/* Flags of this process's descriptors open on the scratch lun, OR-ed; -1 when none. */
static int lun_fd_flags(void)
{
    char want[PATH_MAX], link[64], target[PATH_MAX];
    int flags = -1;

    CHECK(realpath(lun_path, want) != NULL, "realpath(%s)", lun_path);
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, want) == 0) {
            int f = fcntl(fd, F_GETFL);
            flags = (flags < 0 ? 0 : flags) | f;
        }
    }
    return flags;
}

/* capiblock has no flush call: a completed write must already be durable, as
 * on the card, so a writable lun is opened O_DSYNC (and a read-only one need not). */
static void test_writes_are_durable_on_completion(void)
{
    chunk_id_t id = open_lun(0, O_RDWR, 0);
    int flags = lun_fd_flags();

    CHECK(flags >= 0 && (flags & O_DSYNC) == O_DSYNC,
          "writable lun opened without O_DSYNC (flags 0%o)", flags);
    close_lun(id);
    id = open_lun(0, O_RDONLY, 0);
    flags = lun_fd_flags();
    CHECK(flags >= 0 && (flags & O_DSYNC) == 0,
          "read-only lun opened with O_DSYNC (flags 0%o)", flags);
    close_lun(id);
}

static void test_many_open_chunks(void)
{
    enum { N = 64 };
    chunk_id_t ids[N];
    bool seen[4096] = { false };

    setenv("FLASHCHUNK_CBLK_WORKERS", "1", 1);
    for (int i = 0; i < N; i++) {
        ids[i] = open_lun(1, O_RDONLY, 0);
        CHECK(ids[i] >= 0 && ids[i] < 4096 && !seen[ids[i]],
              "chunk %d got id %d (duplicate or out of range)", i, ids[i]);
        if (ids[i] >= 0 && ids[i] < 4096)
            seen[ids[i]] = true;
    }
    unsetenv("FLASHCHUNK_CBLK_WORKERS");
    close_lun(ids[5]);
    chunk_id_t again = open_lun(1, O_RDONLY, 0);
    CHECK(again == ids[5], "closed id %d not reused (got %d)", ids[5], again);
    ids[5] = again;
    for (int i = 0; i < N; i++)
        close_lun(ids[i]);
}

static void test_sync_roundtrip(void)
{
    unsigned seed = 12345;
    unsigned char *shadow = calloc(LUN_BLOCKS, BLOCK);
    unsigned char *buf = block_buf(16);
    chunk_id_t id = open_lun(0, O_RDWR, 0);

    /* Zero the LUN so the shadow copy is exact. */
    memset(buf, 0, 16 * BLOCK);
    for (int lba = 0; lba < LUN_BLOCKS; lba += 16)
        CHECK(cblk_write(id, buf, lba, 16, 0) == 16, "zero lba %d", lba);
    for (int i = 0; i < 200; i++) {
        size_t nb = 1 + (size_t)rand_r(&seed) % 16;
        cflash_offset_t lba = rand_r(&seed) % (LUN_BLOCKS - (int)nb + 1);
        fill_random(buf, nb * BLOCK, &seed);
        CHECK(cblk_write(id, buf, lba, nb, 0) == (int)nb,
              "write %zu blocks at %ld", nb, (long)lba);
        memcpy(shadow + lba * BLOCK, buf, nb * BLOCK);
    }
    for (int i = 0; i < 200; i++) {
        size_t nb = 1 + (size_t)rand_r(&seed) % 16;
        cflash_offset_t lba = rand_r(&seed) % (LUN_BLOCKS - (int)nb + 1);
        CHECK(cblk_read(id, buf, lba, nb, 0) == (int)nb,
              "read %zu blocks at %ld", nb, (long)lba);
        CHECK(memcmp(buf, shadow + lba * BLOCK, nb * BLOCK) == 0,
              "data mismatch reading %zu blocks at %ld", nb, (long)lba);
    }
    chunk_stats_t s = stats_of(id);
    CHECK(s.num_reads == 200 && s.num_errors == 0 && s.num_act_reads == 0 &&
          s.max_num_act_reads == 1,
          "sync stats reads=%llu errors=%llu act=%u max=%u",
          (unsigned long long)s.num_reads, (unsigned long long)s.num_errors,
          s.num_act_reads, s.max_num_act_reads);
    close_lun(id);
    free(buf);
    free(shadow);
}

static void test_async_full_queue(void)
{
    enum { N = 64, NB = 2 };
    unsigned char *wbuf = block_buf(N * NB), *rbuf = block_buf(N * NB);
    bool tag_seen[N] = { false };
    int tag, rc, ok = 0;
    uint64_t status;
    chunk_id_t id = open_lun(N, O_RDWR, 0);

    for (int i = 0; i < N; i++)
        fill_pattern(wbuf + i * NB * BLOCK, NB, i);
    for (int i = 0; i < N; i++) {
        rc = cblk_awrite(id, wbuf + i * NB * BLOCK, i * NB, NB, &tag, NULL, 0);
        CHECK(rc == 0 && tag >= 0 && tag < N && !tag_seen[tag],
              "awrite %d: rc %d tag %d", i, rc, tag);
        if (rc == 0 && tag >= 0 && tag < N)
            tag_seen[tag] = true;
    }
    for (int i = 0; i < N; i++) {
        rc = harvest_next(id, &tag, &status);
        ok += rc == NB && status == NB;
    }
    CHECK(ok == N, "%d of %d awrites harvested with %d blocks", ok, N, NB);
    for (int i = 0; i < N; i++)
        CHECK(cblk_aread(id, rbuf + i * NB * BLOCK, i * NB, NB, &tag, NULL,
                         0) == 0, "aread %d", i);
    for (ok = 0; ok < N; ok++)
        if (harvest_next(id, &tag, &status) != NB)
            break;
    CHECK(ok == N, "only %d of %d areads harvested", ok, N);
    CHECK(memcmp(wbuf, rbuf, N * NB * BLOCK) == 0, "async data mismatch");
    CHECK_FAILS(harvest_next(id, &tag, &status), ENOENT,
                "NEXT_TAG|BLOCKING with nothing outstanding");
    chunk_stats_t s = stats_of(id);
    CHECK(s.num_areads == N && s.num_awrites == N && s.num_act_areads == 0 &&
          s.num_act_awrites == 0 && s.max_num_act_awrites == N &&
          s.num_blocks_written == N * NB && s.num_blocks_read == N * NB,
          "async stats areads=%llu awrites=%llu max_aw=%u",
          (unsigned long long)s.num_areads, (unsigned long long)s.num_awrites,
          s.max_num_act_awrites);
    close_lun(id);
    free(wbuf);
    free(rbuf);
}

struct delayed_harvest {
    chunk_id_t id;
    int harvested_tag;
};

static void *harvest_after_delay(void *arg)
{
    struct delayed_harvest *d = arg;
    uint64_t status;

    sleep_ms(50);
    d->harvested_tag = -1;
    if (harvest_next(d->id, &d->harvested_tag, &status) != 1)
        d->harvested_tag = -2;
    return NULL;
}

static void test_tags_exhausted(void)
{
    enum { N = 4 };
    unsigned char *buf = block_buf(1);
    int tag, tags[N];
    uint64_t status;
    chunk_id_t id = open_lun(N, O_RDWR, 0);

    for (int i = 0; i < N; i++)
        CHECK(cblk_aread(id, buf, i, 1, &tags[i], NULL, 0) == 0, "aread %d", i);
    CHECK_FAILS(cblk_aread(id, buf, 0, 1, &tag, NULL, 0), EBUSY,
                "submit with every tag busy");
    chunk_stats_t s = stats_of(id);
    CHECK(s.num_no_cmds_free == 1 && s.num_no_cmds_free_fail == 1,
          "no_cmds_free %llu fail %llu", (unsigned long long)s.num_no_cmds_free,
          (unsigned long long)s.num_no_cmds_free_fail);

    /* With WAIT the submitter blocks until the helper frees a tag. */
    struct delayed_harvest d = { id, -1 };
    pthread_t t;
    pthread_create(&t, NULL, harvest_after_delay, &d);
    double start = now_ms();
    int rc = cblk_aread(id, buf, 0, 1, &tag, NULL, CBLK_ARW_WAIT_CMD_FLAGS);
    double waited = now_ms() - start;
    pthread_join(t, NULL);
    CHECK(rc == 0 && tag == d.harvested_tag && waited >= 40,
          "WAIT submit rc %d tag %d (freed %d) after %.1f ms", rc, tag,
          d.harvested_tag, waited);
    for (int i = 0; i < N; i++)
        CHECK(harvest_next(id, &tag, &status) == 1, "drain %d", i);
    close_lun(id);
    free(buf);
}

static void test_specific_tag_and_user_tag(void)
{
    unsigned char *buf = block_buf(3);
    int tags[3], tag, rc;
    uint64_t status = 0;
    chunk_id_t id = open_lun(8, O_RDWR, 0);

    for (int i = 0; i < 3; i++)
        CHECK(cblk_aread(id, buf + i * BLOCK, i, 1, &tags[i], NULL, 0) == 0,
              "aread %d", i);
    tag = tags[1];
    rc = cblk_aresult(id, &tag, &status, CBLK_ARESULT_BLOCKING);
    CHECK(rc == 1 && status == 1 && tag == tags[1],
          "specific tag %d: rc %d status %llu", tags[1], rc,
          (unsigned long long)status);
    tag = tags[1];
    CHECK_FAILS(cblk_aresult(id, &tag, &status, CBLK_ARESULT_BLOCKING), EINVAL,
                "aresult on an already harvested tag");
    tag = 99;
    CHECK_FAILS(cblk_aresult(id, &tag, &status, 0), EINVAL,
                "aresult on an out-of-range tag");
    for (int i = 0; i < 2; i++)
        CHECK(harvest_next(id, &tag, &status) == 1 && tag != tags[1],
              "harvest remaining %d got tag %d", i, tag);

    tag = 5;
    CHECK(cblk_aread(id, buf, 0, 1, &tag, NULL, CBLK_ARW_USER_TAG_FLAG) == 0 &&
          tag == 5, "user tag 5 gave %d", tag);
    tag = 5;
    CHECK_FAILS(cblk_aread(id, buf, 0, 1, &tag, NULL, CBLK_ARW_USER_TAG_FLAG),
                EINVAL, "user tag already in flight");
    tag = 8;
    CHECK_FAILS(cblk_aread(id, buf, 0, 1, &tag, NULL, CBLK_ARW_USER_TAG_FLAG),
                EINVAL, "user tag out of range");
    tag = 5;
    CHECK(cblk_aresult(id, &tag, &status,
                       CBLK_ARESULT_BLOCKING | CBLK_ARESULT_USER_TAG) == 1,
          "harvest user tag 5");
    close_lun(id);
    free(buf);
}

static void test_nonblocking_and_user_status(void)
{
    unsigned char *buf = block_buf(2);
    cblk_arw_status_t st;
    uint64_t status = 0;
    int tag = -1, rc;
    chunk_id_t id = open_lun_with_env("FLASHCHUNK_CBLK_LATENCY_US", "200000", 4);

    memset(&st, 0xff, sizeof(st));
    CHECK(cblk_aread(id, buf, 3, 2, &tag, &st, CBLK_ARW_USER_STATUS_FLAG) == 0,
          "aread with user status");
    CHECK(st.status == CBLK_ARW_STATUS_PENDING, "status %d right after submit",
          st.status);
    int want = tag;
    rc = cblk_aresult(id, &tag, &status, 0);
    CHECK(rc == 0, "non-blocking aresult on pending tag returned %d", rc);
    rc = cblk_aresult(id, &tag, &status, CBLK_ARESULT_NEXT_TAG);
    CHECK(rc == 0, "non-blocking NEXT_TAG with pending I/O returned %d", rc);
    chunk_stats_t s = stats_of(id);
    CHECK(s.num_aresult_no_cmplt == 2, "num_aresult_no_cmplt %llu",
          (unsigned long long)s.num_aresult_no_cmplt);
    tag = want;
    rc = cblk_aresult(id, &tag, &status, CBLK_ARESULT_BLOCKING);
    CHECK(rc == 2 && status == 2, "blocking aresult rc %d status %llu", rc,
          (unsigned long long)status);
    CHECK(st.status == CBLK_ARW_STATUS_SUCCESS && st.blocks_transferred == 2,
          "user status %d blocks %zu", st.status, st.blocks_transferred);

    double start = now_ms();
    CHECK(cblk_read(id, buf, 0, 1, 0) == 1, "sync read with latency");
    CHECK(now_ms() - start >= 190, "sync read took %.1f ms, want >= 200",
          now_ms() - start);
    close_lun(id);
    free(buf);
}

static void test_invalid_inputs(void)
{
    unsigned char *buf = block_buf(2);
    int tag = 0;
    size_t n;
    uint64_t status;
    chunk_id_t id = open_lun(4, O_RDWR, 0);

    CHECK_FAILS(cblk_read(-1, buf, 0, 1, 0), EINVAL, "read id -1");
    CHECK_FAILS(cblk_read(100000, buf, 0, 1, 0), EINVAL, "read huge id");
    CHECK_FAILS(cblk_read(id + 1, buf, 0, 1, 0), EINVAL, "read unopened id");
    CHECK_FAILS(cblk_get_size(id + 1, &n, 0), EINVAL, "get_size unopened id");
    CHECK_FAILS(cblk_read(id, buf, LUN_BLOCKS, 1, 0), EINVAL, "lba at end");
    CHECK_FAILS(cblk_read(id, buf, LUN_BLOCKS - 1, 2, 0), EINVAL,
                "range past end");
    CHECK_FAILS(cblk_read(id, buf, -1, 1, 0), EINVAL, "negative lba");
    CHECK_FAILS(cblk_read(id, buf, 0, 0, 0), EINVAL, "nblocks 0");
    CHECK_FAILS(cblk_read(id, NULL, 0, 1, 0), EINVAL, "NULL buffer");
    CHECK_FAILS(cblk_read(id, buf + 1, 0, 1, 0), EINVAL, "misaligned buffer");
    CHECK_FAILS(cblk_write(id, buf, 0, MAX_XFER + 1, 0), EINVAL,
                "transfer above max_transfer_size");
    CHECK_FAILS(cblk_aread(id, buf, LUN_BLOCKS, 1, &tag, NULL, 0), EINVAL,
                "async lba past end");
    CHECK_FAILS(cblk_awrite(id, buf, 0, 0, &tag, NULL, 0), EINVAL,
                "async nblocks 0");
    CHECK_FAILS(cblk_aread(id, buf, 0, 1, NULL, NULL, 0), EINVAL, "NULL tag");
    CHECK_FAILS(harvest_next(id, &tag, &status), ENOENT,
                "invalid submissions queued nothing");

    /* 16-byte aligned but not sector aligned: O_DIRECT may refuse it. */
    int rc = cblk_read(id, buf + 16, 0, 1, 0);
    CHECK(rc == 1 || (rc == -1 && errno == EINVAL),
          "16-byte aligned buffer: rc %d", rc);
    close_lun(id);
    CHECK_FAILS(cblk_read(id, buf, 0, 1, 0), EINVAL, "read after close");
    CHECK_FAILS(cblk_aread(id, buf, 0, 1, &tag, NULL, 0), EINVAL,
                "aread after close");
    CHECK_FAILS(cblk_aresult(id, &tag, &status, CBLK_ARESULT_NEXT_TAG), EINVAL,
                "aresult after close");

    id = open_lun(0, O_RDONLY, 0);
    CHECK_FAILS(cblk_write(id, buf, 0, 1, 0), EBADF, "write to O_RDONLY chunk");
    CHECK_FAILS(cblk_awrite(id, buf, 0, 1, &tag, NULL, 0), EBADF,
                "awrite to O_RDONLY chunk");
    close_lun(id);

    char missing[400];
    snprintf(missing, sizeof(missing), "%s/no-such-file", scratch_dir);
    CHECK_FAILS(cblk_open(missing, 0, O_RDWR, 0, 0), ENOENT, "missing path");
    CHECK_FAILS(cblk_open(scratch_dir, 0, O_RDONLY, 0, 0), EINVAL, "directory");
    CHECK_FAILS(cblk_open(lun_path, 8193, O_RDWR, 0, 0), EINVAL,
                "max_num_requests 8193");
    CHECK_FAILS(cblk_open(lun_path, -1, O_RDWR, 0, 0), EINVAL,
                "max_num_requests -1");
    CHECK_FAILS(cblk_open(lun_path, 0, O_WRONLY, 0, 0), EINVAL, "O_WRONLY");
    CHECK_FAILS(cblk_open(NULL, 0, O_RDWR, 0, 0), EINVAL, "NULL path");
    free(buf);
}

static void test_fault_read_nth(void)
{
    unsigned char *data = block_buf(4), *buf = block_buf(1);
    uint64_t status = 0;
    int tag = -1, failed_tag, rc;
    chunk_id_t id = open_lun_with_env("FLASHCHUNK_CBLK_FAIL_READ", "3", 8);

    fill_pattern(data, 4, 77);
    CHECK(cblk_write(id, data, 0, 4, 0) == 4, "write pattern");
    CHECK(cblk_read(id, buf, 0, 1, 0) == 1, "read 1 (sync)");
    CHECK(cblk_aread(id, buf, 1, 1, &tag, NULL, 0) == 0 &&
          harvest_next(id, &tag, &status) == 1, "read 2 (async)");
    memset(buf, 0xab, BLOCK);
    CHECK(cblk_aread(id, buf, 2, 1, &failed_tag, NULL, 0) == 0,
          "read 3 submits fine");
    errno = 0;
    rc = harvest_next(id, &tag, &status);
    CHECK(rc == -1 && errno == EIO && tag == failed_tag && status == EIO,
          "read 3: rc %d tag %d (want %d) status %llu", rc, tag, failed_tag,
          (unsigned long long)status);
    CHECK(buf[0] == 0xab && buf[BLOCK - 1] == 0xab,
          "failed read modified the buffer");
    CHECK(cblk_aread(id, buf, 3, 1, &tag, NULL, 0) == 0 &&
          harvest_next(id, &tag, &status) == 1, "read 4 (async) succeeds");
    CHECK(memcmp(buf, data + 3 * BLOCK, BLOCK) == 0, "read 4 data");
    CHECK(cblk_read(id, buf, 2, 1, 0) == 1 &&
          memcmp(buf, data + 2 * BLOCK, BLOCK) == 0, "read 5 (sync) data");
    chunk_stats_t s = stats_of(id);
    CHECK(s.num_errors == 1, "num_errors %llu", (unsigned long long)s.num_errors);
    close_lun(id);
    free(data);
    free(buf);
}

static void test_fault_write_list_and_every(void)
{
    unsigned char *a = block_buf(1), *b = block_buf(1), *buf = block_buf(1);
    cblk_arw_status_t st;
    uint64_t status;
    int tag, rc;
    chunk_id_t id = open_lun_with_env("FLASHCHUNK_CBLK_FAIL_WRITE", "2,4", 4);

    fill_pattern(a, 1, 1);
    fill_pattern(b, 1, 2);
    CHECK(cblk_write(id, a, 7, 1, 0) == 1, "write 1");
    CHECK_FAILS(cblk_write(id, b, 7, 1, 0), EIO, "write 2 (sync) injected");
    CHECK(cblk_read(id, buf, 7, 1, 0) == 1 && memcmp(buf, a, BLOCK) == 0,
          "failed write changed the data");
    CHECK(cblk_write(id, b, 8, 1, 0) == 1, "write 3");
    CHECK(cblk_awrite(id, b, 7, 1, &tag, &st, CBLK_ARW_USER_STATUS_FLAG) == 0,
          "write 4 (async) submits");
    errno = 0;
    rc = harvest_next(id, &tag, &status);
    CHECK(rc == -1 && errno == EIO && st.status == CBLK_ARW_STATUS_FAIL &&
          st.fail_errno == EIO, "write 4: rc %d status %d errno %d", rc,
          st.status, st.fail_errno);
    close_lun(id);

    id = open_lun_with_env("FLASHCHUNK_CBLK_FAIL_READ_EVERY", "2", 4);
    int failures = 0;
    for (int i = 1; i <= 6; i++)
        failures += (cblk_read(id, buf, 0, 1, 0) == -1) << (i - 1);
    CHECK(failures == 0x2a, "READ_EVERY=2 failure mask 0x%x, want 0x2a",
          failures);
    close_lun(id);

    /* Malformed values are ignored (a warning goes to stderr). */
    fprintf(stderr, "  (expect a warning about FLASHCHUNK_CBLK_FAIL_READ)\n");
    id = open_lun_with_env("FLASHCHUNK_CBLK_FAIL_READ", "3,x", 4);
    for (int i = 0; i < 4; i++)
        CHECK(cblk_read(id, buf, 0, 1, 0) == 1, "read %d with malformed env", i);
    close_lun(id);
    free(a);
    free(b);
    free(buf);
}

static void test_virtual_lun(void)
{
    unsigned char *buf = block_buf(1);
    size_t n = 99;
    chunk_id_t id = open_lun(0, O_RDWR, CBLK_OPN_VIRT_LUN);

    CHECK(cblk_get_size(id, &n, 0) == 0 && n == 0, "virtual size %zu, want 0",
          n);
    CHECK(cblk_get_lun_size(id, &n, 0) == 0 && n == LUN_BLOCKS,
          "lun size %zu", n);
    CHECK_FAILS(cblk_read(id, buf, 0, 1, 0), EINVAL, "I/O on empty chunk");
    CHECK(cblk_set_size(id, 10, 0) == 0, "set_size 10");
    CHECK(cblk_get_size(id, &n, 0) == 0 && n == 10, "size %zu, want 10", n);
    CHECK(cblk_write(id, buf, 9, 1, 0) == 1, "write last block");
    CHECK_FAILS(cblk_write(id, buf, 10, 1, 0), EINVAL, "write past size");
    CHECK_FAILS(cblk_set_size(id, LUN_BLOCKS + 1, 0), EINVAL,
                "set_size above lun size");
    CHECK(cblk_set_size(id, LUN_BLOCKS, 0) == 0, "set_size to lun size");
    close_lun(id);
    free(buf);
}

struct submitter {
    chunk_id_t id;
    int index;
    int count;
    int failures;
};

static void *submit_many(void *arg)
{
    struct submitter *s = arg;
    unsigned char *buf = block_buf(1);
    int tag;

    memset(buf, s->index, BLOCK);
    for (int i = 0; i < s->count; i++) {
        cflash_offset_t lba = s->index * 100 + i % 100;
        int rc = (i % 2)
            ? cblk_aread(s->id, buf, lba, 1, &tag, NULL, CBLK_ARW_WAIT_CMD_FLAGS)
            : cblk_awrite(s->id, buf, lba, 1, &tag, NULL,
                          CBLK_ARW_WAIT_CMD_FLAGS);
        s->failures += rc != 0;
    }
    /* Wait for the reaper before freeing buf: the I/O may still be queued. */
    return buf;
}

struct reaper {
    chunk_id_t id;
    pthread_mutex_t lock; /* guards submitters_done */
    bool submitters_done;
    int harvested;
    int failures;
};

static bool submitters_done(struct reaper *r)
{
    pthread_mutex_lock(&r->lock);
    bool done = r->submitters_done;
    pthread_mutex_unlock(&r->lock);
    return done;
}

/* Harvests until the submitters are done and nothing is outstanding. */
static void *reap_all(void *arg)
{
    struct reaper *r = arg;
    uint64_t status;
    int tag;

    for (;;) {
        bool done = submitters_done(r);
        int rc = harvest_next(r->id, &tag, &status);
        if (rc == 1)
            r->harvested++;
        else if (rc == -1 && errno == ENOENT && done)
            break;
        else if (rc == -1 && errno == ENOENT)
            sleep_ms(1); /* submitters have not caught up yet */
        else
            r->failures++;
    }
    return NULL;
}

static void test_concurrent_high_water(void)
{
    enum { THREADS = 4, PER_THREAD = 200, MAX_REQ = 16 };
    struct submitter subs[THREADS];
    struct reaper reaper = { 0, PTHREAD_MUTEX_INITIALIZER, false, 0, 0 };
    pthread_t sub_threads[THREADS], reaper_thread;
    void *bufs[THREADS];
    int sub_failures = 0;
    chunk_id_t id =
        open_lun_with_env("FLASHCHUNK_CBLK_LATENCY_US", "300", MAX_REQ);

    reaper.id = id;
    pthread_create(&reaper_thread, NULL, reap_all, &reaper);
    for (int i = 0; i < THREADS; i++) {
        subs[i] = (struct submitter){ id, i, PER_THREAD, 0 };
        pthread_create(&sub_threads[i], NULL, submit_many, &subs[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(sub_threads[i], &bufs[i]);
        sub_failures += subs[i].failures;
    }
    pthread_mutex_lock(&reaper.lock);
    reaper.submitters_done = true;
    pthread_mutex_unlock(&reaper.lock);
    pthread_join(reaper_thread, NULL);
    for (int i = 0; i < THREADS; i++)
        free(bufs[i]);
    CHECK(sub_failures == 0, "%d submissions failed", sub_failures);
    CHECK(reaper.harvested == THREADS * PER_THREAD && reaper.failures == 0,
          "harvested %d, failures %d", reaper.harvested, reaper.failures);
    chunk_stats_t s = stats_of(id);
    CHECK(s.max_num_act_areads <= MAX_REQ && s.max_num_act_awrites <= MAX_REQ &&
          s.max_num_act_areads > 0 && s.max_num_act_awrites > 0,
          "high-water areads %u awrites %u (limit %d)", s.max_num_act_areads,
          s.max_num_act_awrites, MAX_REQ);
    CHECK(s.num_areads + s.num_awrites == THREADS * PER_THREAD &&
          s.num_act_areads == 0 && s.num_act_awrites == 0,
          "areads %llu awrites %llu active %u/%u",
          (unsigned long long)s.num_areads, (unsigned long long)s.num_awrites,
          s.num_act_areads, s.num_act_awrites);
    close_lun(id);
}

struct blocked_reaper {
    chunk_id_t id;
    int last_rc;
    int last_errno;
};

static void *reap_until_error(void *arg)
{
    struct blocked_reaper *r = arg;
    uint64_t status;
    int tag;

    do {
        errno = 0;
        r->last_rc = harvest_next(r->id, &tag, &status);
        r->last_errno = errno;
    } while (r->last_rc > 0);
    return NULL;
}

static void test_close_with_inflight(void)
{
    enum { N = 32 };
    unsigned char *data = block_buf(N), *check_buf = block_buf(N);
    int tag;
    chunk_id_t id = open_lun_with_env("FLASHCHUNK_CBLK_LATENCY_US", "20000", N);
    struct blocked_reaper reaper = { id, 0, 0 };
    pthread_t t;

    fill_pattern(data, N, 99);
    for (int i = 0; i < N; i++)
        CHECK(cblk_awrite(id, data + i * BLOCK, 500 + i, 1, &tag, NULL, 0) == 0,
              "awrite %d", i);
    pthread_create(&t, NULL, reap_until_error, &reaper);
    sleep_ms(5); /* let the reaper block in cblk_aresult */
    double start = now_ms();
    CHECK(cblk_close(id, 0) == 0, "close with requests in flight");
    double took = now_ms() - start;
    pthread_join(t, NULL);
    CHECK(took >= 10, "close returned after %.1f ms without waiting", took);
    CHECK(reaper.last_rc == -1 && reaper.last_errno == EINVAL,
          "blocked reaper ended with %d/%s, want -1/EINVAL", reaper.last_rc,
          strerror(reaper.last_errno));

    id = open_lun(0, O_RDONLY, 0);
    CHECK(cblk_read(id, check_buf, 500, N, 0) == N &&
          memcmp(check_buf, data, N * BLOCK) == 0,
          "writes queued before close were not all completed");
    close_lun(id);
    free(data);
    free(check_buf);
}

/* ---- driver ---- */

static void on_timeout(int sig)
{
    static const char msg[] = "FAIL: timed out (a call blocked) in test ";

    (void)sig;
    unlink(lun_path);
    rmdir(scratch_dir);
    (void)!write(2, msg, sizeof(msg) - 1);
    (void)!write(2, current_test, strlen(current_test));
    (void)!write(2, "\n", 1);
    _exit(3);
}

static void make_scratch_lun(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(scratch_dir, sizeof(scratch_dir), "%s/cblk-test-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch_dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(lun_path, sizeof(lun_path), "%s/lun", scratch_dir);
    int fd = open(lun_path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)LUN_BLOCKS * BLOCK) != 0) {
        perror(lun_path);
        exit(2);
    }
    close(fd);
}

static void remove_scratch_lun(void)
{
    unlink(lun_path);
    rmdir(scratch_dir);
}


static void write_fault_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", path);
}

struct hung_read {
    chunk_id_t id;
    unsigned char *buf;
    int rc;
};

static void *read_one(void *arg)
{
    struct hung_read *r = arg;

    r->rc = cblk_read(r->id, r->buf, 0, 1, 0);
    return NULL;
}

/* FLASHCHUNK_CBLK_FAULT_FILE: errors, and a hang that holds I/O until it is lifted, while open. */
static void test_runtime_fault_file(void)
{
    char path[] = "/tmp/cflsh-faults-XXXXXX";
    int fd = mkstemp(path);
    unsigned char *data = block_buf(1), *buf = block_buf(1);
    struct hung_read r;
    pthread_t thread;
    chunk_id_t id;

    CHECK(fd >= 0, "mkstemp");
    close(fd);
    setenv("FLASHCHUNK_CBLK_FAULT_FILE", path, 1);
    setenv("FLASHCHUNK_CBLK_FAULT_FILE_POLL_MS", "0", 1);
    id = open_lun(8, O_RDWR, 0);
    fill_pattern(data, 1, 31);
    CHECK(cblk_write(id, data, 0, 1, 0) == 1, "write with no faults");

    write_fault_file(path, "read_error_every=1\n");
    errno = 0;
    CHECK(cblk_read(id, buf, 0, 1, 0) == -1 && errno == EIO, "every read fails while the file says so");
    CHECK(cblk_write(id, data, 0, 1, 0) == 1, "writes still work");
    write_fault_file(path, "# healthy again\n");
    CHECK(cblk_read(id, buf, 0, 1, 0) == 1 && memcmp(buf, data, BLOCK) == 0, "reads work again");

    write_fault_file(path, "hang=1\n");
    chunk_stats_t before = stats_of(id);
    r.id = id;
    r.buf = buf;
    r.rc = 0;
    CHECK(pthread_create(&thread, NULL, read_one, &r) == 0, "start a reader");
    while (stats_of(id).num_act_reads == 0)
        sched_yield();
    CHECK(stats_of(id).num_blocks_read == before.num_blocks_read, "the read is held while hung");
    write_fault_file(path, "hang=0\n");
    pthread_join(thread, NULL);
    CHECK(r.rc == 1 && memcmp(buf, data, BLOCK) == 0, "the held read finishes once the hang is lifted");

    close_lun(id);
    unsetenv("FLASHCHUNK_CBLK_FAULT_FILE");
    unsetenv("FLASHCHUNK_CBLK_FAULT_FILE_POLL_MS");
    unlink(path);
    free(data);
    free(buf);
}

int main(void)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {
        { "init_required", test_init_required },
        { "open_close_sizes", test_open_close_sizes },
        { "writes_are_durable_on_completion", test_writes_are_durable_on_completion },
        { "many_open_chunks", test_many_open_chunks },
        { "sync_roundtrip", test_sync_roundtrip },
        { "async_full_queue", test_async_full_queue },
        { "tags_exhausted", test_tags_exhausted },
        { "specific_tag_and_user_tag", test_specific_tag_and_user_tag },
        { "nonblocking_and_user_status", test_nonblocking_and_user_status },
        { "invalid_inputs", test_invalid_inputs },
        { "fault_read_nth", test_fault_read_nth },
        { "fault_write_list_and_every", test_fault_write_list_and_every },
        { "runtime_fault_file", test_runtime_fault_file },
        { "virtual_lun", test_virtual_lun },
        { "concurrent_high_water", test_concurrent_high_water },
        { "close_with_inflight", test_close_with_inflight },
    };
    int passed = 0, failed = 0;

    make_scratch_lun();
    signal(SIGALRM, on_timeout);
    alarm(TEST_TIMEOUT_S);
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        checks_failed = 0;
        current_test = tests[i].name;
        tests[i].run();
        printf("%s %s\n", checks_failed ? "FAIL" : "ok  ", tests[i].name);
        fflush(stdout);
        if (checks_failed)
            failed++;
        else
            passed++;
    }
    cblk_term(NULL, 0);
    remove_scratch_lun();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
