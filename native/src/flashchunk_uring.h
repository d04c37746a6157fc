/* libflashchunk_uring: io_uring reads for the flash chunk cache, one at a time per ring. */
#ifndef FLASHCHUNK_URING_H
#define FLASHCHUNK_URING_H

/* Raised whenever a signature or a meaning below changes; the Java side checks it at load. */
#define FC_ABI_VERSION 1

typedef struct fc_ring fc_ring;

/* FC_ABI_VERSION of the library loaded. */
int fc_abi_version(void);

/*
 * A ring with fd registered as its fixed file 0; NULL with *error set to an errno if not (EOPNOTSUPP:
 * the kernel has no IORING_FEAT_EXT_ARG, Linux before 5.11).
 */
fc_ring *fc_ring_open(int fd, int *error);

/*
 * Reads length bytes at offset into buffer and waits up to timeout_ns (negative: no limit).
 * Returns the bytes read, a negative errno, or -ETIME: the read is still in flight, the ring is
 * busy and the buffer the kernel's until fc_ring_reap returns its result. -EBUSY: the ring is busy.
 */
int fc_ring_read(fc_ring *r, void *buffer, unsigned length, unsigned long long offset, long long timeout_ns);

/* For a busy ring: waits up to timeout_ns (0: only looks) for its read; its result, or -ETIME. */
int fc_ring_reap(fc_ring *r, long long timeout_ns);

/* Whether a read is in flight. */
int fc_ring_busy(const fc_ring *r);

/* Frees the ring and returns 0; -EBUSY, and frees nothing, while a read is in flight. */
int fc_ring_close(fc_ring *r);

#endif
