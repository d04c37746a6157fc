/*
 * capiblock.h - a file-backed stand-in for the CAPI-Flash block library
 * (libcflsh_block).  Declares the subset of the capiblock C ABI that this
 * project's libcflsh_block.so implements; types and constants match the
 * real header on x86_64 Linux (LP64) so code built here links unchanged
 * against the real library.
 *
 * Units: blocks of 4096 bytes.  LBAs and lengths are in blocks.
 * Errors: calls return -1 and set errno unless stated otherwise.
 */
#ifndef CAPIBLOCK_H
#define CAPIBLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int chunk_id_t;
#define NULL_CHUNK_ID -1

typedef uint64_t chunk_ext_arg_t;
typedef off_t cflash_offset_t;

/* Per-chunk statistics.  Layout matches the real chunk_stats_t; fields we
 * do not track are always zero. */
typedef struct chunk_stats_s {
    uint32_t block_size;            /* always 4096 */
    uint32_t num_paths;             /* always 1 */
    uint64_t max_transfer_size;     /* largest request, in blocks */
    uint64_t num_reads;             /* cblk_read calls accepted */
    uint64_t num_writes;            /* cblk_write calls accepted */
    uint64_t num_areads;            /* cblk_aread requests queued */
    uint64_t num_awrites;           /* cblk_awrite requests queued */
    uint32_t num_act_reads;         /* cblk_read calls in progress */
    uint32_t num_act_writes;        /* cblk_write calls in progress */
    uint32_t num_act_areads;        /* async reads queued, not harvested */
    uint32_t num_act_awrites;       /* async writes queued, not harvested */
    uint32_t max_num_act_writes;    /* high-water marks of the above */
    uint32_t max_num_act_reads;
    uint32_t max_num_act_awrites;
    uint32_t max_num_act_areads;
    uint64_t num_blocks_read;       /* blocks read successfully */
    uint64_t num_blocks_written;    /* blocks written successfully */
    uint64_t num_errors;            /* I/Os that failed (real or injected) */
    uint64_t num_aresult_no_cmplt;  /* cblk_aresult calls that found nothing */
    uint64_t num_retries;           /* always 0 */
    uint64_t num_timeouts;          /* always 0 */
    uint64_t num_fail_timeouts;     /* always 0 */
    uint64_t num_no_cmds_free;      /* submissions that found no free tag */
    uint64_t num_no_cmd_room;       /* always 0 */
    uint64_t num_no_cmds_free_fail; /* ... and failed with EBUSY */
    uint64_t reserved_0;            /* hardware counters of the real */
    uint64_t reserved_1;            /* library (FC, port, CAPI, thread, */
    uint64_t reserved_2;            /* reset counters): always 0 here */
    uint64_t reserved_3;
    uint64_t reserved_4;
    uint64_t reserved_5;
    uint64_t reserved_6;
    uint64_t reserved_7;
    uint64_t reserved_8;
    uint64_t reserved_9;
    uint64_t reserved_10;
    uint64_t reserved_11;
    uint64_t reserved_12;
    uint64_t reserved_13;
    uint64_t reserved_14;
    uint64_t reserved_15;
    uint64_t reserved_16;
    uint64_t reserved_17;
    uint64_t reserved_18;
    uint64_t reserved_19;
    uint64_t reserved_20;
    uint64_t reserved_21;
    uint64_t reserved_22;
    uint64_t reserved_23;
    uint64_t reserved_24;
    uint64_t reserved_25;
    uint64_t reserved_26;
    uint64_t reserved_27;
    uint32_t primary_path_id;       /* always 0 */
    uint64_t num_path_fail_overs;   /* always 0 */
} chunk_stats_t;

/* cblk_open flags.  Only CBLK_OPN_VIRT_LUN changes behaviour; other bits
 * are accepted and ignored. */
#define CBLK_OPN_VIRT_LUN         2 /* chunk starts empty; size via cblk_set_size */
#define CBLK_OPN_NO_INTRP_THREADS 4 /* ignored */
#define CBLK_OPN_SHARE_CTXT       8 /* ignored */

/* cblk_aread / cblk_awrite flags */
#define CBLK_ARW_WAIT_CMD_FLAGS   1 /* wait for a free tag instead of EBUSY */
#define CBLK_ARW_USER_TAG_FLAG    2 /* *tag on input is the tag to use */
#define CBLK_ARW_USER_STATUS_FLAG 4 /* post completion status into *status */

typedef enum {
    CBLK_ARW_STATUS_PENDING = 0, /* not completed yet */
    CBLK_ARW_STATUS_SUCCESS = 1, /* completed; see blocks_transferred */
    CBLK_ARW_STATUS_INVALID = 2, /* never set by this implementation */
    CBLK_ARW_STATUS_FAIL    = 3, /* completed with error; see fail_errno */
} cblk_status_type_t;

typedef struct cblk_arw_status_s {
    cblk_status_type_t status;
    size_t blocks_transferred;
    int fail_errno;
} cblk_arw_status_t;

/* cblk_aresult flags */
#define CBLK_ARESULT_NEXT_TAG   1 /* harvest any completed request */
#define CBLK_ARESULT_BLOCKING   2 /* wait for a completion */
#define CBLK_ARESULT_USER_TAG   4 /* accepted; tags share one namespace */
#define CBLK_ARESULT_NO_HARVEST 8 /* accepted and ignored */

/* Start using the library.  Reference counted; returns 0. */
int cblk_init(void *arg, uint64_t flags);

/* Drop one cblk_init reference (-1 EINVAL if none).  Dropping the last
 * one closes every chunk still open. */
int cblk_term(void *arg, uint64_t flags);

/* Open a regular file or block device as a chunk.  mode is O_RDONLY or
 * O_RDWR; max_num_requests is 1..8192 async tags (0 = 256); ext is ignored.
 * Returns a small non-negative chunk id, or NULL_CHUNK_ID with errno from
 * open(2) (ENOENT, EACCES, ...) or EINVAL (bad argument, cblk_init not
 * called, not a file/device).  EMFILE if the chunk table is full. */
chunk_id_t cblk_open(const char *path, int max_num_requests, int mode,
                     chunk_ext_arg_t ext, int flags);

/* Wait for queued and running requests, wake cblk_aresult waiters (they
 * fail with EINVAL), release the id.  Unharvested completions are dropped. */
int cblk_close(chunk_id_t id, int flags);

/* Size of the backing file/device in blocks. */
int cblk_get_lun_size(chunk_id_t id, size_t *nblocks, int flags);

/* Size of the chunk in blocks: the LUN size, or with CBLK_OPN_VIRT_LUN the
 * last cblk_set_size value (initially 0). */
int cblk_get_size(chunk_id_t id, size_t *nblocks, int flags);

/* Virtual LUNs only (else EINVAL): set the chunk size, <= LUN size. */
int cblk_set_size(chunk_id_t id, size_t nblocks, int flags);

/* Synchronous I/O of nblocks (1..4096) at lba.  buf must be 16-byte
 * aligned (the file is opened O_DIRECT, so 4096 is safest).  Returns
 * nblocks, or -1 with errno EINVAL (bad arguments), EBADF (write to an
 * O_RDONLY chunk) or the I/O error (EIO). */
int cblk_read(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
              int flags);
int cblk_write(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
               int flags);

/* Queue an asynchronous read/write.  Returns 0 and the request's tag in
 * *tag; -1 with EINVAL/EBADF as for cblk_read/cblk_write (nothing queued),
 * or EBUSY when all tags are taken and CBLK_ARW_WAIT_CMD_FLAGS is not set.
 * The tag stays busy until the completion is harvested by cblk_aresult. */
int cblk_aread(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
               int *tag, cblk_arw_status_t *status, int flags);
int cblk_awrite(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
                int *tag, cblk_arw_status_t *status, int flags);

/* Harvest a completion: tag *tag, or any tag with CBLK_ARESULT_NEXT_TAG
 * (written back to *tag).  Returns the blocks transferred (*status = same),
 * 0 if not complete and not CBLK_ARESULT_BLOCKING, or -1 with errno = the
 * I/O's error (*status = that errno, *tag = its tag).  -1 EINVAL for a tag
 * not in flight or a chunk being closed; -1 ENOENT for NEXT_TAG when no
 * request is outstanding at all (even when blocking). */
int cblk_aresult(chunk_id_t id, int *tag, uint64_t *status, int flags);

/* Copy the chunk's statistics into *stats. */
int cblk_get_stats(chunk_id_t id, chunk_stats_t *stats, int flags);

#ifdef __cplusplus
}
#endif

#endif /* CAPIBLOCK_H */
