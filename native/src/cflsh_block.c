/*
 * cflsh_block.c - file-backed implementation of a subset of the CAPI-Flash
 * block library ABI (see include/capiblock.h and README.md).
 *
 * Each open chunk owns an fd, a fixed array of requests indexed by tag, and
 * a pool of worker threads.  A request is always in exactly one state:
 * FREE (on free_list), QUEUED (on queued), RUNNING (owned by a worker) or
 * DONE (on done, waiting for cblk_aresult).  One mutex per chunk guards all
 * of it; table_lock guards the chunk table, init_count and chunk->users.
 */
#define _GNU_SOURCE /* O_DIRECT */

#include "capiblock.h"
#include "fault.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK_SIZE          4096
#define MAX_TRANSFER_BLOCKS 4096
#define MIN_BUF_ALIGN       16
#define DEFAULT_REQUESTS    256
#define MAX_REQUESTS        8192
#define DEFAULT_WORKERS     8
#define MAX_WORKERS         64
#define MAX_CHUNKS          1024

/* Java reads these fields by offset; keep the real library's layout. */
_Static_assert(offsetof(chunk_stats_t, max_num_act_areads) == 76,
               "chunk_stats_t layout");
_Static_assert(offsetof(chunk_stats_t, num_blocks_read) == 80,
               "chunk_stats_t layout");
_Static_assert(offsetof(chunk_stats_t, primary_path_id) == 384,
               "chunk_stats_t layout");
_Static_assert(sizeof(chunk_stats_t) == 400, "chunk_stats_t size");

enum req_state { REQ_FREE, REQ_QUEUED, REQ_RUNNING, REQ_DONE };

struct request {
    struct request *prev, *next;
    enum req_state state;
    int tag;
    bool is_write;
    bool inject_failure;
    void *buf;
    cflash_offset_t lba;
    size_t nblocks;
    cblk_arw_status_t *user_status; /* NULL unless CBLK_ARW_USER_STATUS_FLAG */
    int error;                      /* errno of the finished I/O, or 0 */
};

struct req_list {
    struct request *head, *tail;
    size_t len;
};

struct chunk {
    pthread_mutex_t lock;
    pthread_cond_t work_ready; /* request queued, or closing */
    pthread_cond_t req_done;   /* request completed, or closing */
    pthread_cond_t tag_freed;  /* tag returned to free_list, or closing */
    int fd;
    bool writable;
    bool virt_lun;
    bool closing;
    size_t lun_blocks;
    size_t size_blocks;
    int max_requests;
    struct request *reqs; /* indexed by tag */
    struct req_list free_list, queued, done;
    int n_workers;
    pthread_t *workers;
    struct fault_config faults;
    uint64_t reads_seen, writes_seen; /* numbering for fault injection */
    chunk_stats_t stats;
    int users; /* threads inside API calls on this chunk (table_lock) */
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t users_gone = PTHREAD_COND_INITIALIZER;
static struct chunk *chunk_table[MAX_CHUNKS];
static int init_count;

static int fail(int err)
{
    errno = err;
    return -1;
}

/* ---- intrusive request lists ---- */

static void list_push(struct req_list *l, struct request *r)
{
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    l->len++;
}

static void list_remove(struct req_list *l, struct request *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        l->tail = r->prev;
    r->prev = r->next = NULL;
    l->len--;
}

static struct request *list_pop(struct req_list *l)
{
    struct request *r = l->head;

    if (r)
        list_remove(l, r);
    return r;
}

/* ---- chunk table: lookups take a reference so close cannot free a chunk
 * under a running call ---- */

static struct chunk *chunk_acquire(chunk_id_t id)
{
    struct chunk *c = NULL;

    pthread_mutex_lock(&table_lock);
    if (id >= 0 && id < MAX_CHUNKS && chunk_table[id]) {
        c = chunk_table[id];
        c->users++;
    }
    pthread_mutex_unlock(&table_lock);
    return c;
}

static void chunk_release(struct chunk *c)
{
    pthread_mutex_lock(&table_lock);
    c->users--;
    pthread_cond_broadcast(&users_gone);
    pthread_mutex_unlock(&table_lock);
}

/* Removes the id from the table (new lookups fail) and returns the chunk
 * with a reference held by the caller. */
static struct chunk *chunk_detach_locked(chunk_id_t id)
{
    struct chunk *c = chunk_table[id];

    chunk_table[id] = NULL;
    c->users++;
    return c;
}

static bool is_initialized(void)
{
    pthread_mutex_lock(&table_lock);
    bool ok = init_count > 0;
    pthread_mutex_unlock(&table_lock);
    return ok;
}

/* ---- I/O ---- */

static int transfer(int fd, bool is_write, void *buf, cflash_offset_t lba,
                    size_t nblocks)
{
    size_t len = nblocks * BLOCK_SIZE, done = 0;
    off_t offset = lba * BLOCK_SIZE;

    while (done < len) {
        char *p = (char *)buf + done;
        off_t at = offset + (off_t)done;
        ssize_t n = is_write ? pwrite(fd, p, len - done, at)
                             : pread(fd, p, len - done, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO; /* backing file shrank under us */
        done += (size_t)n;
    }
    return 0;
}

/* Runs without the chunk lock: fd and faults never change while open. */
static int perform_io(const struct chunk *c, bool is_write, void *buf,
                      cflash_offset_t lba, size_t nblocks, bool inject_failure)
{
    if (c->faults.latency_us)
        sleep_us(c->faults.latency_us);
    if (runtime_faults_apply(is_write))
        inject_failure = true;
    if (inject_failure)
        return EIO; /* buffer and file left untouched */
    return transfer(c->fd, is_write, buf, lba, nblocks);
}

static int validate_io(const struct chunk *c, const void *buf,
                       cflash_offset_t lba, size_t nblocks, bool is_write)
{
    if (c->closing || buf == NULL || (uintptr_t)buf % MIN_BUF_ALIGN != 0)
        return EINVAL;
    if (nblocks == 0 || nblocks > MAX_TRANSFER_BLOCKS || lba < 0)
        return EINVAL;
    if ((size_t)lba > c->size_blocks || nblocks > c->size_blocks - (size_t)lba)
        return EINVAL;
    if (is_write && !c->writable)
        return EBADF;
    return 0;
}

/* Numbers the operation and decides whether fault injection fails it. */
static bool next_op_fails(struct chunk *c, bool is_write)
{
    if (is_write)
        return fault_plan_hits(&c->faults.writes, ++c->writes_seen);
    return fault_plan_hits(&c->faults.reads, ++c->reads_seen);
}

static void raise_high_water(uint32_t *active, uint32_t *max)
{
    (*active)++;
    if (*active > *max)
        *max = *active;
}

static void count_transfer(struct chunk *c, bool is_write, size_t nblocks,
                           int err)
{
    if (err)
        c->stats.num_errors++;
    else if (is_write)
        c->stats.num_blocks_written += nblocks;
    else
        c->stats.num_blocks_read += nblocks;
}

static int sync_io(chunk_id_t id, void *buf, cflash_offset_t lba,
                   size_t nblocks, bool is_write)
{
    chunk_stats_t *s;
    struct chunk *c = chunk_acquire(id);
    bool inject = false;
    int err;

    if (!c)
        return fail(EINVAL);
    s = &c->stats;
    pthread_mutex_lock(&c->lock);
    err = validate_io(c, buf, lba, nblocks, is_write);
    if (!err) {
        inject = next_op_fails(c, is_write);
        if (is_write) {
            s->num_writes++;
            raise_high_water(&s->num_act_writes, &s->max_num_act_writes);
        } else {
            s->num_reads++;
            raise_high_water(&s->num_act_reads, &s->max_num_act_reads);
        }
    }
    pthread_mutex_unlock(&c->lock);

    if (!err) {
        err = perform_io(c, is_write, buf, lba, nblocks, inject);
        pthread_mutex_lock(&c->lock);
        if (is_write)
            s->num_act_writes--;
        else
            s->num_act_reads--;
        count_transfer(c, is_write, nblocks, err);
        pthread_mutex_unlock(&c->lock);
    }
    chunk_release(c);
    return err ? fail(err) : (int)nblocks;
}

/* ---- asynchronous requests ---- */

static void post_user_status(cblk_arw_status_t *st, cblk_status_type_t status,
                             size_t blocks, int err)
{
    st->blocks_transferred = blocks;
    st->fail_errno = err;
    /* Callers poll st->status without our lock: publish it last. */
    __atomic_store_n(&st->status, status, __ATOMIC_RELEASE);
}

static void complete_request(struct chunk *c, struct request *r, int err)
{
    r->error = err;
    r->state = REQ_DONE;
    list_push(&c->done, r);
    count_transfer(c, r->is_write, r->nblocks, err);
    if (r->user_status)
        post_user_status(r->user_status,
                         err ? CBLK_ARW_STATUS_FAIL : CBLK_ARW_STATUS_SUCCESS,
                         err ? 0 : r->nblocks, err);
    /* Broadcast: waiters for specific tags must each re-check. */
    pthread_cond_broadcast(&c->req_done);
}

static void *worker_main(void *arg)
{
    struct chunk *c = arg;
    struct request *r;

    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->queued.head && !c->closing)
            pthread_cond_wait(&c->work_ready, &c->lock);
        r = list_pop(&c->queued);
        if (!r)
            break; /* closing and the queue is drained */
        r->state = REQ_RUNNING;
        pthread_mutex_unlock(&c->lock);
        int err = perform_io(c, r->is_write, r->buf, r->lba, r->nblocks,
                             r->inject_failure);
        pthread_mutex_lock(&c->lock);
        complete_request(c, r, err);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

static int claim_user_tag(struct chunk *c, int tag, struct request **out)
{
    if (tag < 0 || tag >= c->max_requests || c->reqs[tag].state != REQ_FREE)
        return EINVAL;
    *out = &c->reqs[tag];
    list_remove(&c->free_list, *out);
    return 0;
}

static int claim_free_tag(struct chunk *c, bool wait, struct request **out)
{
    if (!c->free_list.head) {
        c->stats.num_no_cmds_free++;
        if (!wait) {
            c->stats.num_no_cmds_free_fail++;
            return EBUSY;
        }
        while (!c->free_list.head && !c->closing)
            pthread_cond_wait(&c->tag_freed, &c->lock);
        if (c->closing)
            return EINVAL;
    }
    *out = list_pop(&c->free_list);
    return 0;
}

static void queue_request(struct chunk *c, struct request *r, bool is_write,
                          void *buf, cflash_offset_t lba, size_t nblocks,
                          cblk_arw_status_t *user_status)
{
    chunk_stats_t *s = &c->stats;

    r->is_write = is_write;
    r->buf = buf;
    r->lba = lba;
    r->nblocks = nblocks;
    r->user_status = user_status;
    r->error = 0;
    r->inject_failure = next_op_fails(c, is_write);
    r->state = REQ_QUEUED;
    if (user_status)
        post_user_status(user_status, CBLK_ARW_STATUS_PENDING, 0, 0);
    if (is_write) {
        s->num_awrites++;
        raise_high_water(&s->num_act_awrites, &s->max_num_act_awrites);
    } else {
        s->num_areads++;
        raise_high_water(&s->num_act_areads, &s->max_num_act_areads);
    }
    list_push(&c->queued, r);
    pthread_cond_signal(&c->work_ready);
}

static int async_submit(chunk_id_t id, void *buf, cflash_offset_t lba,
                        size_t nblocks, int *tag, cblk_arw_status_t *status,
                        int flags, bool is_write)
{
    bool user_status = flags & CBLK_ARW_USER_STATUS_FLAG;
    struct request *r = NULL;
    struct chunk *c;
    int err;

    if (tag == NULL || (user_status && status == NULL))
        return fail(EINVAL);
    c = chunk_acquire(id);
    if (!c)
        return fail(EINVAL);
    pthread_mutex_lock(&c->lock);
    err = validate_io(c, buf, lba, nblocks, is_write);
    if (!err && (flags & CBLK_ARW_USER_TAG_FLAG))
        err = claim_user_tag(c, *tag, &r);
    else if (!err)
        err = claim_free_tag(c, flags & CBLK_ARW_WAIT_CMD_FLAGS, &r);
    if (!err) {
        queue_request(c, r, is_write, buf, lba, nblocks,
                      user_status ? status : NULL);
        *tag = r->tag;
    }
    pthread_mutex_unlock(&c->lock);
    chunk_release(c);
    return err ? fail(err) : 0;
}

/* Sets *out to a completed request, or leaves it NULL if the request(s)
 * asked for are still pending.  Returns an errno if there is nothing to
 * wait for. */
static int find_completion(struct chunk *c, int flags, int tag,
                           struct request **out)
{
    if (flags & CBLK_ARESULT_NEXT_TAG) {
        *out = c->done.head;
        if (!*out && c->free_list.len == (size_t)c->max_requests)
            return ENOENT; /* nothing outstanding: never block forever */
        return 0;
    }
    if (tag < 0 || tag >= c->max_requests || c->reqs[tag].state == REQ_FREE)
        return EINVAL;
    if (c->reqs[tag].state == REQ_DONE)
        *out = &c->reqs[tag];
    return 0;
}

/* Frees the tag.  Returns the request's errno (0 on success) and sets
 * *status to that errno or to the blocks transferred. */
static int harvest(struct chunk *c, struct request *r, uint64_t *status)
{
    int err = r->error;

    *status = err ? (uint64_t)err : r->nblocks;
    list_remove(&c->done, r);
    if (r->is_write)
        c->stats.num_act_awrites--;
    else
        c->stats.num_act_areads--;
    r->state = REQ_FREE;
    r->user_status = NULL;
    list_push(&c->free_list, r);
    pthread_cond_signal(&c->tag_freed);
    return err;
}

/* ---- chunk lifecycle ---- */

static struct chunk *chunk_alloc(int max_requests, int n_workers)
{
    struct chunk *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    c->reqs = calloc((size_t)max_requests, sizeof(*c->reqs));
    c->workers = calloc((size_t)n_workers, sizeof(*c->workers));
    if (!c->reqs || !c->workers) {
        free(c->reqs);
        free(c->workers);
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->work_ready, NULL);
    pthread_cond_init(&c->req_done, NULL);
    pthread_cond_init(&c->tag_freed, NULL);
    c->max_requests = max_requests;
    for (int tag = 0; tag < max_requests; tag++) {
        c->reqs[tag].tag = tag;
        list_push(&c->free_list, &c->reqs[tag]);
    }
    c->stats.block_size = BLOCK_SIZE;
    c->stats.num_paths = 1;
    c->stats.max_transfer_size = MAX_TRANSFER_BLOCKS;
    c->fd = -1;
    return c;
}

static void chunk_free(struct chunk *c)
{
    if (c->fd >= 0)
        close(c->fd);
    pthread_cond_destroy(&c->tag_freed);
    pthread_cond_destroy(&c->req_done);
    pthread_cond_destroy(&c->work_ready);
    pthread_mutex_destroy(&c->lock);
    free(c->workers);
    free(c->reqs);
    free(c);
}

/* Stops the workers after they drain the queue, and wakes every waiter. */
static void chunk_stop_workers(struct chunk *c)
{
    pthread_mutex_lock(&c->lock);
    c->closing = true;
    pthread_cond_broadcast(&c->work_ready);
    pthread_cond_broadcast(&c->req_done);
    pthread_cond_broadcast(&c->tag_freed);
    pthread_mutex_unlock(&c->lock);
    for (int i = 0; i < c->n_workers; i++)
        pthread_join(c->workers[i], NULL);
    c->n_workers = 0;
}

static int chunk_start_workers(struct chunk *c, int n_workers)
{
    for (int i = 0; i < n_workers; i++) {
        int err = pthread_create(&c->workers[i], NULL, worker_main, c);
        if (err) {
            chunk_stop_workers(c);
            return err;
        }
        c->n_workers++;
    }
    return 0;
}

/* Tears down a detached chunk; the caller holds one reference. */
static void chunk_shutdown(struct chunk *c)
{
    chunk_stop_workers(c);
    pthread_mutex_lock(&table_lock);
    while (c->users > 1)
        pthread_cond_wait(&users_gone, &table_lock);
    pthread_mutex_unlock(&table_lock);
    chunk_free(c);
}

static int open_backing(const char *path, int access_mode, size_t *lun_blocks)
{
    /* The capiblock API has no flush: a write the card completed is durable.
     * O_DSYNC gives a file the same promise (each write waits for the device's
     * cache), so a caller's checkpoint is durable once its writes complete. */
    int durable = (access_mode & O_ACCMODE) == O_RDONLY ? 0 : O_DSYNC;
    int fd = open(path, access_mode | durable | O_DIRECT | O_CLOEXEC);
    struct stat st;
    off_t end;

    if (fd < 0 && errno == EINVAL) /* filesystem without O_DIRECT */
        fd = open(path, access_mode | durable | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
        close(fd);
        return -EINVAL;
    }
    end = lseek(fd, 0, SEEK_END); /* st_size is 0 for block devices */
    if (end < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    *lun_blocks = (size_t)end / BLOCK_SIZE;
    return fd;
}

static int worker_count(int max_requests)
{
    unsigned long n;

    if (env_get_ulong("FLASHCHUNK_CBLK_WORKERS", 1, MAX_WORKERS, &n))
        return (int)n;
    return max_requests < DEFAULT_WORKERS ? max_requests : DEFAULT_WORKERS;
}

static chunk_id_t table_insert(struct chunk *c)
{
    chunk_id_t id = NULL_CHUNK_ID;

    pthread_mutex_lock(&table_lock);
    if (init_count == 0) {
        errno = EINVAL; /* cblk_term raced with this open */
    } else {
        for (int i = 0; i < MAX_CHUNKS && id == NULL_CHUNK_ID; i++)
            if (!chunk_table[i])
                id = i;
        if (id == NULL_CHUNK_ID)
            errno = EMFILE;
        else
            chunk_table[id] = c;
    }
    pthread_mutex_unlock(&table_lock);
    return id;
}

/* ---- public API ---- */

int cblk_init(void *arg, uint64_t flags)
{
    (void)arg;
    (void)flags;
    pthread_mutex_lock(&table_lock);
    init_count++;
    pthread_mutex_unlock(&table_lock);
    return 0;
}

int cblk_term(void *arg, uint64_t flags)
{
    struct chunk *open_chunks[MAX_CHUNKS];
    int n = 0;

    (void)arg;
    (void)flags;
    pthread_mutex_lock(&table_lock);
    if (init_count == 0) {
        pthread_mutex_unlock(&table_lock);
        return fail(EINVAL);
    }
    if (--init_count == 0)
        for (int id = 0; id < MAX_CHUNKS; id++)
            if (chunk_table[id])
                open_chunks[n++] = chunk_detach_locked(id);
    pthread_mutex_unlock(&table_lock);
    for (int i = 0; i < n; i++)
        chunk_shutdown(open_chunks[i]);
    return 0;
}

chunk_id_t cblk_open(const char *path, int max_num_requests, int mode,
                     chunk_ext_arg_t ext, int flags)
{
    int access_mode = mode & O_ACCMODE;
    size_t lun_blocks = 0;
    struct chunk *c;
    int fd, n_requests, n_workers, err;
    chunk_id_t id;

    (void)ext;
    if (!is_initialized() || path == NULL || max_num_requests < 0 ||
        max_num_requests > MAX_REQUESTS ||
        (access_mode != O_RDONLY && access_mode != O_RDWR))
        return fail(EINVAL);
    n_requests = max_num_requests ? max_num_requests : DEFAULT_REQUESTS;
    fd = open_backing(path, access_mode, &lun_blocks);
    if (fd < 0)
        return fail(-fd);
    n_workers = worker_count(n_requests);
    c = chunk_alloc(n_requests, n_workers);
    if (!c) {
        close(fd);
        return fail(ENOMEM);
    }
    c->fd = fd;
    c->writable = access_mode == O_RDWR;
    c->virt_lun = flags & CBLK_OPN_VIRT_LUN;
    c->lun_blocks = lun_blocks;
    c->size_blocks = c->virt_lun ? 0 : lun_blocks;
    fault_config_from_env(&c->faults);
    err = chunk_start_workers(c, n_workers);
    if (err) {
        chunk_free(c);
        return fail(err);
    }
    id = table_insert(c);
    if (id == NULL_CHUNK_ID) {
        err = errno;
        chunk_stop_workers(c);
        chunk_free(c);
        errno = err;
    }
    return id;
}

int cblk_close(chunk_id_t id, int flags)
{
    struct chunk *c = NULL;

    (void)flags;
    pthread_mutex_lock(&table_lock);
    if (id >= 0 && id < MAX_CHUNKS && chunk_table[id])
        c = chunk_detach_locked(id);
    pthread_mutex_unlock(&table_lock);
    if (!c)
        return fail(EINVAL);
    chunk_shutdown(c);
    return 0;
}

/* Reads one size field under the chunk lock. */
static int get_blocks(chunk_id_t id, size_t *nblocks, bool lun)
{
    struct chunk *c;

    if (nblocks == NULL)
        return fail(EINVAL);
    c = chunk_acquire(id);
    if (!c)
        return fail(EINVAL);
    pthread_mutex_lock(&c->lock);
    *nblocks = lun ? c->lun_blocks : c->size_blocks;
    pthread_mutex_unlock(&c->lock);
    chunk_release(c);
    return 0;
}

int cblk_get_lun_size(chunk_id_t id, size_t *nblocks, int flags)
{
    (void)flags;
    return get_blocks(id, nblocks, true);
}

int cblk_get_size(chunk_id_t id, size_t *nblocks, int flags)
{
    (void)flags;
    return get_blocks(id, nblocks, false);
}

int cblk_set_size(chunk_id_t id, size_t nblocks, int flags)
{
    struct chunk *c = chunk_acquire(id);
    int err = 0;

    (void)flags;
    if (!c)
        return fail(EINVAL);
    pthread_mutex_lock(&c->lock);
    if (!c->virt_lun || nblocks > c->lun_blocks)
        err = EINVAL;
    else
        c->size_blocks = nblocks;
    pthread_mutex_unlock(&c->lock);
    chunk_release(c);
    return err ? fail(err) : 0;
}

int cblk_read(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
              int flags)
{
    (void)flags;
    return sync_io(id, buf, lba, nblocks, false);
}

int cblk_write(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
               int flags)
{
    (void)flags;
    return sync_io(id, buf, lba, nblocks, true);
}

int cblk_aread(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
               int *tag, cblk_arw_status_t *status, int flags)
{
    return async_submit(id, buf, lba, nblocks, tag, status, flags, false);
}

int cblk_awrite(chunk_id_t id, void *buf, cflash_offset_t lba, size_t nblocks,
                int *tag, cblk_arw_status_t *status, int flags)
{
    return async_submit(id, buf, lba, nblocks, tag, status, flags, true);
}

int cblk_aresult(chunk_id_t id, int *tag, uint64_t *status, int flags)
{
    struct request *r = NULL;
    struct chunk *c;
    int err = 0, rc = 0, wanted;

    if (tag == NULL || status == NULL)
        return fail(EINVAL);
    wanted = (flags & CBLK_ARESULT_NEXT_TAG) ? -1 : *tag;
    c = chunk_acquire(id);
    if (!c)
        return fail(EINVAL);
    pthread_mutex_lock(&c->lock);
    for (;;) {
        err = c->closing ? EINVAL : find_completion(c, flags, wanted, &r);
        if (err || r)
            break;
        if (!(flags & CBLK_ARESULT_BLOCKING)) {
            c->stats.num_aresult_no_cmplt++;
            break;
        }
        pthread_cond_wait(&c->req_done, &c->lock);
    }
    if (r) {
        *tag = r->tag;
        err = harvest(c, r, status);
        rc = (int)*status;
    }
    pthread_mutex_unlock(&c->lock);
    chunk_release(c);
    return err ? fail(err) : rc;
}

int cblk_get_stats(chunk_id_t id, chunk_stats_t *stats, int flags)
{
    struct chunk *c;

    (void)flags;
    if (stats == NULL)
        return fail(EINVAL);
    c = chunk_acquire(id);
    if (!c)
        return fail(EINVAL);
    pthread_mutex_lock(&c->lock);
    *stats = c->stats;
    pthread_mutex_unlock(&c->lock);
    chunk_release(c);
    return 0;
}
