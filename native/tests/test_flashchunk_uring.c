/* Tests of libflashchunk_uring on a real O_DIRECT file: reads return the file's bytes, short reads
 * and errors come back as such; and on a pipe, whose read waits until something is written: a read
 * past its deadline stays in flight (its ring busy, refusing another read and a close) until reaped,
 * and a signal during the wait does not cut the deadline short. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/flashchunk_uring.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

static long long millis(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static pthread_t reader;

static void on_signal(int signal)
{
    (void) signal;
}

static void *signal_reader(void *arg)
{
    (void) arg;
    usleep(100 * 1000);
    pthread_kill(reader, SIGUSR1);
    return NULL;
}

/* Reads of a pipe: nothing to read until the test writes, so the deadline decides. */
static void deadlines(void)
{
    int p[2];
    if (pipe(p)) {
        perror("pipe");
        failures++;
        return;
    }
    int error = -1;
    fc_ring *ring = fc_ring_open(p[0], &error);
    CHECK(ring != NULL, "fc_ring_open on a pipe: %d", error);
    if (ring == NULL) {
        return;
    }
    static char buffer[64];
    long long start = millis();
    int rc = fc_ring_read(ring, buffer, sizeof(buffer), (unsigned long long) -1, 100000000LL);
    CHECK(rc == -ETIME && millis() - start >= 100, "a read with nothing to read: %d after %lld ms", rc, millis() - start);
    CHECK(fc_ring_busy(ring), "the late read keeps its ring busy");
    CHECK(fc_ring_read(ring, buffer, sizeof(buffer), (unsigned long long) -1, 0) == -EBUSY, "a busy ring takes no read");
    CHECK(fc_ring_close(ring) == -EBUSY, "a busy ring is not closed");
    CHECK(fc_ring_reap(ring, 0) == -ETIME, "reap before the data: still in flight");
    CHECK(write(p[1], "late", 4) == 4, "write");
    rc = fc_ring_reap(ring, 5000000000LL);
    CHECK(rc == 4 && memcmp(buffer, "late", 4) == 0, "the late read's result: %d", rc);
    CHECK(!fc_ring_busy(ring), "idle once reaped");

    /* A signal 100 ms into a 400 ms wait (SA_RESTART, as the JVM's handlers): the wait goes on. */
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = on_signal;
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &action, NULL);
    reader = pthread_self();
    pthread_t signaller;
    pthread_create(&signaller, NULL, signal_reader, NULL);
    start = millis();
    rc = fc_ring_read(ring, buffer, sizeof(buffer), (unsigned long long) -1, 400000000LL);
    long long waited = millis() - start;
    pthread_join(signaller, NULL);
    CHECK(rc == -ETIME && waited >= 400, "a signal cut the wait short: %d after %lld ms", rc, waited);
    CHECK(write(p[1], "again", 5) == 5, "write");
    CHECK(fc_ring_reap(ring, -1) == 5, "reaped without a limit");
    CHECK(fc_ring_close(ring) == 0, "an idle ring closes");
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    CHECK(fc_abi_version() == FC_ABI_VERSION, "ABI version %d", fc_abi_version());
    deadlines();
    char path[] = "/tmp/flashchunk-uring-XXXXXX";
    int setup = mkstemp(path);
    if (setup < 0) {
        perror("mkstemp");
        return 2;
    }
    enum { BLOCK = 4096, BLOCKS = 16 };
    unsigned char *data = NULL, *buffer = NULL;
    if (posix_memalign((void **) &data, BLOCK, BLOCK * BLOCKS) || posix_memalign((void **) &buffer, BLOCK, BLOCK * 4)) {
        return 2;
    }
    for (int i = 0; i < BLOCK * BLOCKS; i++) {
        data[i] = (unsigned char) (i * 7 + i / BLOCK);
    }
    if (pwrite(setup, data, BLOCK * BLOCKS, 0) != BLOCK * BLOCKS) {
        perror("pwrite");
        return 2;
    }
    close(setup);
    int fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0) {
        perror("open O_DIRECT");
        return 2;
    }

    int error = -1;
    fc_ring *ring = fc_ring_open(fd, &error);
    CHECK(ring != NULL && error == 0, "fc_ring_open: error %d", error);
    if (ring == NULL) {
        return 1;
    }
    for (int round = 0; round < 100; round++) {
        int block = (round * 5) % (BLOCKS - 2);
        memset(buffer, 0, BLOCK * 2);
        int rc = fc_ring_read(ring, buffer, BLOCK * 2, (unsigned long long) block * BLOCK, 5000000000LL);
        CHECK(rc == BLOCK * 2, "read %d: %d", round, rc);
        CHECK(memcmp(buffer, data + block * BLOCK, BLOCK * 2) == 0, "read %d: wrong bytes", round);
        CHECK(!fc_ring_busy(ring), "read %d: ring busy after its read", round);
    }
    /* No limit on the wait. */
    CHECK(fc_ring_read(ring, buffer, BLOCK, 0, -1) == BLOCK, "read without a timeout");
    /* Past the end: a short read (nothing), returned as such. */
    CHECK(fc_ring_read(ring, buffer, BLOCK, (unsigned long long) BLOCKS * BLOCK, 5000000000LL) == 0,
          "read past the end");
    /* O_DIRECT refuses a buffer off the block alignment: the read's own error. */
    int rc = fc_ring_read(ring, buffer + 1, BLOCK, 0, 5000000000LL);
    CHECK(rc == -EINVAL, "misaligned read: %d", rc);
    CHECK(fc_ring_reap(ring, 0) == -EALREADY, "reap of an idle ring");
    fc_ring_close(ring);

    /* A descriptor that is not open: refused, with its errno. */
    error = 0;
    CHECK(fc_ring_open(-1, &error) == NULL && error == EBADF, "open on fd -1: error %d", error);
    error = 0;
    CHECK(fc_ring_open(1000, &error) == NULL && error == EBADF, "open on a closed fd: error %d", error);

    close(fd);
    unlink(path);
    free(data);
    free(buffer);
    printf("%s\n", failures ? "flashchunk_uring: FAILED" : "flashchunk_uring: all passed");
    return failures ? 1 : 0;
}
