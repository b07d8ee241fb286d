/*===- gpuos_runtime.h - the resident-kernel runtime, C API -------*- C -*-===*
 *
 * For FFI (Python ctypes/cffi, Rust, ...). Opaque handles, plain structs,
 * status codes; gpuos_last_error() gives the message of the last failed
 * call on the calling thread. Mirrors gpuos/runtime/Runtime.h.
 *
 *   gpuos_runtime *rt;
 *   if (gpuos_open(0, NULL, &rt) != GPUOS_OK) puts(gpuos_last_error());
 *   gpuos_load_image_files(rt, "img.cubin", "img.json");
 *   ...
 *   gpuos_submit(rt, graph, GPUOS_PRIORITY_URGENT, &sub);
 *   gpuos_wait(rt, sub, -1);
 *   gpuos_destroy(rt);
 *
 *===----------------------------------------------------------------------===*/

#ifndef GPUOS_RUNTIME_GPUOS_RUNTIME_H
#define GPUOS_RUNTIME_GPUOS_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpuos_status {
  GPUOS_OK = 0,
  GPUOS_ERROR_INVALID_ARGUMENT = 1, /* rejected on the host */
  GPUOS_ERROR_NO_GPU = 2,
  GPUOS_ERROR_CUDA = 3,
  GPUOS_ERROR_CLOSED = 4,
  GPUOS_ERROR_TIMEOUT = 5,
  GPUOS_ERROR_NOT_READY = 6, /* gpuos_poll: still running */
  GPUOS_ERROR_TASK_FAILED = 7,
  GPUOS_ERROR_FAULTED = 8, /* the resident kernel died */
  GPUOS_ERROR_BAD_IMAGE = 9,
  GPUOS_ERROR_OUT_OF_MEMORY = 10,
  GPUOS_ERROR_UNSUPPORTED = 11,
  GPUOS_ERROR_DEADLINE_EXCEEDED = 12 /* the submission missed its timeout */
} gpuos_status;

enum {
  GPUOS_PRIORITY_DEFAULT = -1, /* the graph's own (manifest or creation) */
  GPUOS_PRIORITY_URGENT = 0,
  GPUOS_PRIORITY_NORMAL = 1,
  GPUOS_PRIORITY_BACKGROUND = 2
};

typedef struct gpuos_runtime gpuos_runtime;
typedef uint32_t gpuos_graph;
typedef uint64_t gpuos_submission;

typedef struct gpuos_options {
  uint32_t struct_size; /* sizeof(gpuos_options) */
  uint32_t workers_per_sm; /* 0 (default): as many as fit, at most 4 */
  uint32_t idle_park_us; /* 0: park only on request */
  uint32_t ring_capacity;
  uint32_t queue_capacity;
  uint32_t max_runs;
  uint64_t arena_bytes;
  uint32_t block_threads; /* 0: from the manifest */
  uint32_t own_context;
  uint32_t worker_idle_sleep_ns; /* 0: idle workers spin */
  uint32_t inline_urgent;        /* block 0 runs urgent one-tile graphs */
  uint32_t continue_successors;  /* a worker runs a successor it released */
  int64_t timeout_us;     /* per submission; 0: none (gpuos_graph_set_timeout) */
  int64_t hang_grace_us;  /* a tile this long past its deadline: recover */
  uint32_t recover_faults; /* recreate the context after a fault or hang */
  uint32_t record_jobs;    /* name the running tile in fault/timeout errors */
  uint32_t urgent_exclusive; /* no other work while an urgent run is in flight */
  uint32_t gang_policy; /* urgent graphs as gangs: 0 never, 1 when nothing
                          else runs, 2 when no other gang runs, 3 (default)
                          when no other urgent run is in flight */
  uint32_t isolate_device; /* the context in a gpuos-device-host process:
                              faults are survived (RuntimeOptions::
                              isolateDevice); the host's path from
                              $GPUOS_DEVICE_HOST or next to the binary */
} gpuos_options;

/* A buffer bound to a task. bytes = 0: the runtime's own allocation size
 * (or unchecked); shape (rank entries) and dtype may be NULL/0 (unchecked). */
typedef struct gpuos_buffer {
  uint64_t ptr;
  uint64_t bytes;
  const int64_t *shape;
  uint32_t rank;
  const char *dtype;
} gpuos_buffer;

typedef struct gpuos_task {
  const char *kind;
  const gpuos_buffer *buffers;
  uint32_t num_buffers;
  const int64_t *dynamic;
  uint32_t num_dynamic;
  const uint32_t *deps; /* indices of earlier or later tasks of the graph */
  uint32_t num_deps;
} gpuos_task;

typedef struct gpuos_stats {
  uint64_t submissions, completed, failed, tasks_run, tiles_run;
  uint64_t launches, parks, park_requests;
  uint32_t workers, block_threads, runs_in_flight, resident;
  uint64_t queue_depth[3];
  uint64_t queue_total[3];
  uint64_t swaps, recoveries, deadline_misses, host_queued;
  uint32_t num_sms; /* entries gpuos_get_sm_stats has */
  uint64_t gang_runs; /* submissions run as gangs (gang_policy) */
} gpuos_stats;

/* Per multiprocessor that ran blocks of the resident kernel (its clock). */
typedef struct gpuos_sm_stats {
  uint32_t smid, blocks;
  uint64_t tiles, busy_cycles, active_cycles;
} gpuos_sm_stats;

/* The message of the last failed call on this thread ("" if none). */
const char *gpuos_last_error(void);
const char *gpuos_status_name(gpuos_status status);

void gpuos_options_init(gpuos_options *options);
/* The most tiles one graph may have under `options` (all of them may be in
   flight at once); a graph of more is refused. Needs no GPU. */
uint64_t gpuos_max_graph_tiles(const gpuos_options *options);
/* options may be NULL (defaults). GPUOS_ERROR_NO_GPU without a driver. */
gpuos_status gpuos_open(int ordinal, const gpuos_options *options,
                        gpuos_runtime **out);
/* Parks and frees; the handle stays valid and answers GPUOS_ERROR_CLOSED
 * (a gpuos_wait already under way returns its drained submission's result).
 * No call lets a C++ exception out: one becomes its error
 * (GPUOS_ERROR_OUT_OF_MEMORY for host memory). */
gpuos_status gpuos_close(gpuos_runtime *rt);
/* Closes if needed and frees the handle. NULL is fine; as with free(), the
 * handle is gone afterwards: a second destroy or any later call through it
 * is undefined (use gpuos_close to keep a handle that answers CLOSED). */
void gpuos_destroy(gpuos_runtime *rt);

gpuos_status gpuos_load_image(gpuos_runtime *rt, const void *cubin,
                              size_t cubin_bytes, const char *manifest_json,
                              size_t manifest_bytes);
gpuos_status gpuos_load_image_files(gpuos_runtime *rt, const char *cubin_path,
                                    const char *manifest_path);

gpuos_status gpuos_alloc(gpuos_runtime *rt, uint64_t bytes, uint64_t *ptr);
gpuos_status gpuos_free(gpuos_runtime *rt, uint64_t ptr);
gpuos_status gpuos_copy_to_device(gpuos_runtime *rt, uint64_t dst,
                                  const void *src, uint64_t bytes);
gpuos_status gpuos_copy_from_device(gpuos_runtime *rt, void *dst, uint64_t src,
                                    uint64_t bytes);

gpuos_status gpuos_graph_create(gpuos_runtime *rt, const gpuos_task *tasks,
                                uint32_t num_tasks, int default_priority,
                                gpuos_graph *out);
/* A graph of the manifest; names[i] is bound to buffers[i]. */
gpuos_status gpuos_graph_from_manifest(gpuos_runtime *rt, const char *graph,
                                       const char *const *names,
                                       const gpuos_buffer *buffers,
                                       uint32_t num_bindings, gpuos_graph *out);
gpuos_status gpuos_graph_destroy(gpuos_runtime *rt, gpuos_graph graph);

gpuos_status gpuos_submit(gpuos_runtime *rt, gpuos_graph graph, int priority,
                          gpuos_submission *out);
/* Stream-ordered (Runtime::submitOnStream): the run starts after the work
 * enqueued on `stream` (a CUstream of the runtime's context, NULL: the
 * legacy default stream) before this call, and the stream's later work
 * starts after the run completes; the host does not wait. wait/poll report
 * the run's status. A stream capturing a CUDA graph is refused
 * (GPUOS_ERROR_INVALID_ARGUMENT). GPU runtimes in this process only.
 * priority: as for gpuos_submit (GPUOS_PRIORITY_DEFAULT: the graph's). */
gpuos_status gpuos_submit_on_stream(gpuos_runtime *rt, gpuos_graph graph, int priority,
                                    void *stream, gpuos_submission *out);
/* timeout_us < 0: no limit (values beyond a century count as a century). */
gpuos_status gpuos_wait(gpuos_runtime *rt, gpuos_submission submission,
                        int64_t timeout_us);
/* GPUOS_OK when done, GPUOS_ERROR_NOT_READY while running. */
gpuos_status gpuos_poll(gpuos_runtime *rt, gpuos_submission submission);
/* Calls fn(submission, status, message, user) once when the submission
 * ends (status as gpuos_wait would return it; message "" on success, valid
 * only during the call), on the runtime's notifier thread. fn may call
 * the runtime but must not destroy it. */
typedef void (*gpuos_completion_fn)(gpuos_submission submission,
                                    gpuos_status status, const char *message,
                                    void *user);
gpuos_status gpuos_on_complete(gpuos_runtime *rt, gpuos_submission submission,
                               gpuos_completion_fn fn, void *user);
gpuos_status gpuos_park(gpuos_runtime *rt);
/* Runs action(user) with the kernel drained and parked (a safe point for
 * freeing memory, loading modules, synchronizing). Its status is returned. */
gpuos_status gpuos_at_safe_point(gpuos_runtime *rt,
                                 gpuos_status (*action)(void *user), void *user);
/* 0: no limit; overrides gpuos_options.timeout_us for this graph. */
gpuos_status gpuos_graph_set_timeout(gpuos_runtime *rt, gpuos_graph graph,
                                     int64_t timeout_us);
gpuos_status gpuos_get_stats(gpuos_runtime *rt, gpuos_stats *out);
/* Copies min(capacity, stats.num_sms) entries; *count gets how many. */
gpuos_status gpuos_get_sm_stats(gpuos_runtime *rt, gpuos_sm_stats *out,
                                uint32_t capacity, uint32_t *count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUOS_RUNTIME_GPUOS_RUNTIME_H */
