/* Tests of libflashchunk_uring on a real O_DIRECT file: reads return the file's bytes, short reads
 * and errors come back as such, and a busy ring refuses a second read. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/flashchunk_uring.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

int main(void)
{
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
