//===- CApi.cpp - the C API over gpuos::runtime::Runtime ------------------===//

#include "gpuos/runtime/gpuos_runtime.h"
#include "CApiInternal.h"

#include <algorithm>
#include <exception>
#include <new>
#include <string>

using namespace gpuos::runtime;

struct gpuos_runtime {
  std::unique_ptr<Runtime> rt;
};

namespace {

thread_local std::string lastError;

gpuos_status report(const Status &st) {
  if (st.ok())
    return GPUOS_OK;
  lastError = st.message();
  return static_cast<gpuos_status>(st.code());
}

gpuos_status fail(gpuos_status code, std::string message) {
  lastError = std::move(message);
  return code;
}

/// An option error with RuntimeOptions' field names as gpuos_options spells
/// them ("ringCapacity must be ..." -> "gpuos_options.ring_capacity must be").
std::string withCFieldNames(std::string message) {
  static const std::pair<const char *, const char *> names[] = {
      {"workersPerSM", "workers_per_sm"},   {"idleParkUs", "idle_park_us"},
      {"ringCapacity", "ring_capacity"},    {"queueCapacity", "queue_capacity"},
      {"maxRuns", "max_runs"},              {"arenaBytes", "arena_bytes"},
      {"blockThreads", "block_threads"},    {"traceRecords", "trace_records"},
      {"timeoutUs", "timeout_us"},          {"hangGraceUs", "hang_grace_us"},
      {"workerIdleSleepNs", "worker_idle_sleep_ns"}};
  for (auto [cxx, c] : names) {
    std::string from = cxx, to = std::string("gpuos_options.") + c;
    for (size_t at = message.find(from); at != std::string::npos;
         at = message.find(from, at + to.size()))
      message.replace(at, from.size(), to);
  }
  return message;
}

/// C callers cannot catch C++ exceptions: one thrown below an entry point
/// (host memory running out, mostly) becomes the entry point's error.
gpuos_status fromException(const char *function) {
  std::string where = std::string(function) + ": ";
  try {
    throw;
  } catch (const std::bad_alloc &) {
    return fail(GPUOS_ERROR_OUT_OF_MEMORY, (where + "out of host memory").c_str());
  } catch (const std::exception &e) {
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, (where + e.what()).c_str());
  } catch (...) {
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, (where + "unknown exception").c_str());
  }
}

/// Ends each entry point's function-try-block.
#define GPUOS_C_CATCH                                                          \
  catch (...) {                                                                \
    return fromException(__func__);                                            \
  }

#define GPUOS_C_CHECK_RT(rt)                                                   \
  do {                                                                         \
    if (!(rt) || !(rt)->rt)                                                    \
      return fail(GPUOS_ERROR_INVALID_ARGUMENT, "the runtime handle is null"); \
  } while (0)

#define GPUOS_C_CHECK_OUT(p)                                                   \
  do {                                                                         \
    if (!(p))                                                                  \
      return fail(GPUOS_ERROR_INVALID_ARGUMENT,                                \
                  "the output pointer '" #p "' is null");                      \
  } while (0)

BufferArg toArg(const gpuos_buffer &b) {
  BufferArg a;
  a.ptr = b.ptr;
  a.bytes = b.bytes;
  if (b.shape)
    a.shape.assign(b.shape, b.shape + b.rank);
  if (b.dtype)
    a.dtype = b.dtype;
  return a;
}

const char *const kPriorityChoices =
    "the priority must be -1 (default), 0 (urgent), 1 (normal) or 2 (background)";

bool toPriority(int p, Priority &out) {
  if (p < 0 || p > 2)
    return false;
  out = static_cast<Priority>(p);
  return true;
}

} // namespace

gpuos_runtime *gpuos::runtime::wrapRuntime(std::unique_ptr<Runtime> rt) {
  return new gpuos_runtime{std::move(rt)};
}

extern "C" {

const char *gpuos_last_error(void) { return lastError.c_str(); }

const char *gpuos_status_name(gpuos_status status) {
  return errorCodeName(static_cast<ErrorCode>(status));
}

uint64_t gpuos_max_graph_tiles(const gpuos_options *o) {
  RuntimeOptions options;
  if (o)
    options.queueCapacity = o->queue_capacity;
  return options.maxTilesInFlight();
}

void gpuos_options_init(gpuos_options *o) {
  if (!o)
    return;
  RuntimeOptions d;
  *o = gpuos_options{}; // padding and reserved words too
  o->struct_size = sizeof(gpuos_options);
  o->workers_per_sm = d.workersPerSM;
  o->idle_park_us = d.idleParkUs;
  o->ring_capacity = d.ringCapacity;
  o->queue_capacity = d.queueCapacity;
  o->max_runs = d.maxRuns;
  o->arena_bytes = d.arenaBytes;
  o->block_threads = d.blockThreads;
  o->own_context = d.ownContext;
  o->worker_idle_sleep_ns = d.workerIdleSleepNs;
  o->inline_urgent = d.inlineUrgentSingletons;
  o->continue_successors = d.continueSuccessors;
  o->timeout_us = d.timeoutUs;
  o->hang_grace_us = d.hangGraceUs;
  o->recover_faults = d.recoverFaults;
  o->record_jobs = d.recordJobs;
  o->urgent_exclusive = d.urgentExclusive;
  o->gang_policy = (uint32_t)d.gangs;
  o->isolate_device = d.isolateDevice ? 1u : 0u;
}

gpuos_status gpuos_open(int ordinal, const gpuos_options *o,
                        gpuos_runtime **out) try {
  GPUOS_C_CHECK_OUT(out);
  *out = nullptr;
  RuntimeOptions options;
  if (o) {
    if (o->struct_size != sizeof(gpuos_options))
      return fail(GPUOS_ERROR_INVALID_ARGUMENT,
                  "gpuos_options.struct_size does not match this library; "
                  "call gpuos_options_init");
    options.workersPerSM = o->workers_per_sm;
    options.idleParkUs = o->idle_park_us;
    options.ringCapacity = o->ring_capacity;
    options.queueCapacity = o->queue_capacity;
    options.maxRuns = o->max_runs;
    options.arenaBytes = o->arena_bytes;
    options.blockThreads = o->block_threads;
    options.ownContext = o->own_context != 0;
    options.workerIdleSleepNs = o->worker_idle_sleep_ns;
    options.inlineUrgentSingletons = o->inline_urgent != 0;
    options.continueSuccessors = o->continue_successors != 0;
    options.timeoutUs = o->timeout_us;
    options.hangGraceUs = o->hang_grace_us;
    options.recoverFaults = o->recover_faults != 0;
    options.recordJobs = o->record_jobs != 0;
    options.urgentExclusive = o->urgent_exclusive != 0;
    options.isolateDevice = o->isolate_device != 0;
    if (o->gang_policy > (uint32_t)GangPolicy::UrgentAlone) {
      std::string msg = "gpuos_options.gang_policy is " + std::to_string(o->gang_policy) +
                        "; 0 (never), 1 (when idle), 2 (one at a time) or 3 (when "
                        "no other urgent run is in flight)";
      return fail(GPUOS_ERROR_INVALID_ARGUMENT, msg.c_str());
    }
    options.gangs = static_cast<GangPolicy>(o->gang_policy);
  }
  std::unique_ptr<Runtime> rt;
  Status st = Runtime::open(ordinal, options, rt);
  if (st.code() == ErrorCode::InvalidArgument) // named as C callers set them
    st = Status::error(st.code(), withCFieldNames(st.message()));
  if (gpuos_status s = report(st))
    return s;
  *out = wrapRuntime(std::move(rt));
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_close(gpuos_runtime *rt) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->close());
} GPUOS_C_CATCH

void gpuos_destroy(gpuos_runtime *rt) { delete rt; }

gpuos_status gpuos_load_image(gpuos_runtime *rt, const void *cubin,
                              size_t cubin_bytes, const char *manifest,
                              size_t manifest_bytes) try {
  GPUOS_C_CHECK_RT(rt);
  if (!cubin || !cubin_bytes)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "the cubin is null or empty");
  if (!manifest)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "the manifest is null");
  // A length past any real image (SIZE_MAX from a bad strlen) would throw
  // from the copy below with the C++ library's words.
  constexpr size_t kMaxImageBytes = size_t(1) << 32;
  if (cubin_bytes > kMaxImageBytes || manifest_bytes > kMaxImageBytes)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT,
                std::string(cubin_bytes > kMaxImageBytes ? "cubin_bytes " : "manifest_bytes ") +
                    std::to_string(std::max(cubin_bytes, manifest_bytes)) +
                    " is more than 4 GiB: not the size of an image");
  const char *c = static_cast<const char *>(cubin);
  return report(rt->rt->loadImage(std::vector<char>(c, c + cubin_bytes),
                                  std::string(manifest, manifest_bytes)));
} GPUOS_C_CATCH

gpuos_status gpuos_load_image_files(gpuos_runtime *rt, const char *cubin_path,
                                    const char *manifest_path) try {
  GPUOS_C_CHECK_RT(rt);
  if (!cubin_path || !manifest_path)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "a path is null");
  return report(rt->rt->loadImageFiles(cubin_path, manifest_path));
} GPUOS_C_CATCH

gpuos_status gpuos_alloc(gpuos_runtime *rt, uint64_t bytes, uint64_t *ptr) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(ptr);
  Buffer b;
  if (gpuos_status s = report(rt->rt->alloc(bytes, b)))
    return s;
  *ptr = b.ptr;
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_free(gpuos_runtime *rt, uint64_t ptr) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->free(ptr));
} GPUOS_C_CATCH

gpuos_status gpuos_copy_to_device(gpuos_runtime *rt, uint64_t dst,
                                  const void *src, uint64_t bytes) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->copyToDevice(dst, src, bytes));
} GPUOS_C_CATCH

gpuos_status gpuos_copy_from_device(gpuos_runtime *rt, void *dst, uint64_t src,
                                    uint64_t bytes) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->copyFromDevice(dst, src, bytes));
} GPUOS_C_CATCH

gpuos_status gpuos_graph_create(gpuos_runtime *rt, const gpuos_task *tasks,
                                uint32_t num_tasks, int default_priority,
                                gpuos_graph *out) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(out);
  if (!tasks && num_tasks)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "tasks is null");
  GraphSpec spec;
  if (default_priority == GPUOS_PRIORITY_DEFAULT)
    spec.priority = Priority::Normal;
  else if (!toPriority(default_priority, spec.priority))
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, kPriorityChoices);
  for (uint32_t i = 0; i < num_tasks; ++i) {
    const gpuos_task &t = tasks[i];
    std::string where = "task " + std::to_string(i);
    if (!t.kind)
      return report(Status::error(ErrorCode::InvalidArgument, where + ": kind is null"));
    if ((!t.buffers && t.num_buffers) || (!t.dynamic && t.num_dynamic) ||
        (!t.deps && t.num_deps))
      return report(Status::error(ErrorCode::InvalidArgument,
                                  where + ": an array pointer is null but its "
                                          "count is not zero"));
    TaskSpec ts;
    ts.kind = t.kind;
    for (uint32_t j = 0; j < t.num_buffers; ++j) {
      if (t.buffers[j].rank && !t.buffers[j].shape)
        return report(Status::error(ErrorCode::InvalidArgument,
                                    where + ": buffer " + std::to_string(j) +
                                        " has a rank but no shape"));
      ts.buffers.push_back(toArg(t.buffers[j]));
    }
    ts.dynamic.assign(t.dynamic, t.dynamic + t.num_dynamic);
    ts.deps.assign(t.deps, t.deps + t.num_deps);
    spec.tasks.push_back(std::move(ts));
  }
  GraphId id = 0;
  if (gpuos_status s = report(rt->rt->createGraph(spec, id)))
    return s;
  *out = id;
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_graph_from_manifest(gpuos_runtime *rt, const char *graph,
                                       const char *const *names,
                                       const gpuos_buffer *buffers,
                                       uint32_t num_bindings, gpuos_graph *out) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(out);
  if (!graph)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "the graph name is null");
  if (num_bindings && (!names || !buffers))
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "names or buffers is null");
  std::map<std::string, BufferArg> bindings;
  for (uint32_t i = 0; i < num_bindings; ++i) {
    if (!names[i])
      return fail(GPUOS_ERROR_INVALID_ARGUMENT,
                  "binding " + std::to_string(i) + ": the name is null");
    if (buffers[i].rank && !buffers[i].shape)
      return fail(GPUOS_ERROR_INVALID_ARGUMENT, "binding '" + std::string(names[i]) +
                                                    "' has a rank but no shape");
    if (!bindings.emplace(names[i], toArg(buffers[i])).second)
      return fail(GPUOS_ERROR_INVALID_ARGUMENT,
                  "binding '" + std::string(names[i]) + "' is given twice");
  }
  GraphId id = 0;
  if (gpuos_status s = report(rt->rt->createGraphFromManifest(graph, bindings, id)))
    return s;
  *out = id;
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_graph_destroy(gpuos_runtime *rt, gpuos_graph graph) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->destroyGraph(graph));
} GPUOS_C_CATCH

gpuos_status gpuos_submit(gpuos_runtime *rt, gpuos_graph graph, int priority,
                          gpuos_submission *out) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(out);
  Submission s;
  Status st;
  if (priority == GPUOS_PRIORITY_DEFAULT) {
    st = rt->rt->submit(graph, s);
  } else {
    Priority p;
    if (!toPriority(priority, p))
      return fail(GPUOS_ERROR_INVALID_ARGUMENT, kPriorityChoices);
    st = rt->rt->submit(graph, p, s);
  }
  if (gpuos_status code = report(st))
    return code;
  *out = s.id;
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_submit_on_stream(gpuos_runtime *rt, gpuos_graph graph, int priority,
                                    void *stream, gpuos_submission *out) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(out);
  Submission s;
  Status st;
  uint64_t handle = reinterpret_cast<uint64_t>(stream);
  if (priority == GPUOS_PRIORITY_DEFAULT) {
    st = rt->rt->submitOnStream(graph, handle, s);
  } else {
    Priority p;
    if (!toPriority(priority, p))
      return fail(GPUOS_ERROR_INVALID_ARGUMENT, kPriorityChoices);
    st = rt->rt->submitOnStream(graph, p, handle, s);
  }
  if (gpuos_status code = report(st))
    return code;
  *out = s.id;
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_wait(gpuos_runtime *rt, gpuos_submission submission,
                        int64_t timeout_us) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->wait(Submission{submission}, timeout_us));
} GPUOS_C_CATCH

gpuos_status gpuos_poll(gpuos_runtime *rt, gpuos_submission submission) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->poll(Submission{submission}));
} GPUOS_C_CATCH

gpuos_status gpuos_on_complete(gpuos_runtime *rt, gpuos_submission submission,
                               gpuos_completion_fn fn, void *user) try {
  GPUOS_C_CHECK_RT(rt);
  if (!fn)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "the callback 'fn' is null");
  return report(rt->rt->onComplete(
      Submission{submission}, [fn, user](Submission s, const Status &st) {
        fn(s.id, static_cast<gpuos_status>(st.code()), st.message().c_str(), user);
      }));
} GPUOS_C_CATCH

gpuos_status gpuos_park(gpuos_runtime *rt) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->park());
} GPUOS_C_CATCH

gpuos_status gpuos_get_stats(gpuos_runtime *rt, gpuos_stats *out) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(out);
  Stats s;
  if (gpuos_status code = report(rt->rt->stats(s)))
    return code;
  *out = gpuos_stats{};
  out->submissions = s.submissions;
  out->completed = s.completed;
  out->failed = s.failed;
  out->tasks_run = s.tasksRun;
  out->tiles_run = s.tilesRun;
  out->gang_runs = s.gangRuns;
  out->launches = s.launches;
  out->parks = s.parks;
  out->park_requests = s.parkRequests;
  out->workers = s.workers;
  out->block_threads = s.blockThreads;
  out->runs_in_flight = s.runsInFlight;
  out->resident = s.resident;
  for (int q = 0; q < 3; ++q) {
    out->queue_depth[q] = s.queueDepth[q];
    out->queue_total[q] = s.queueTotal[q];
  }
  out->swaps = s.swaps;
  out->recoveries = s.recoveries;
  out->deadline_misses = s.deadlineMisses;
  out->host_queued = s.hostQueued;
  out->num_sms = (uint32_t)s.perSM.size();
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_get_sm_stats(gpuos_runtime *rt, gpuos_sm_stats *out,
                                uint32_t capacity, uint32_t *count) try {
  GPUOS_C_CHECK_RT(rt);
  GPUOS_C_CHECK_OUT(count);
  if (capacity && !out)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT,
                "the output array 'out' is null but capacity is not 0");
  Stats s;
  if (gpuos_status code = report(rt->rt->stats(s)))
    return code;
  uint32_t n = std::min(capacity, (uint32_t)s.perSM.size());
  for (uint32_t i = 0; i < n; ++i)
    out[i] = gpuos_sm_stats{s.perSM[i].smid, s.perSM[i].blocks, s.perSM[i].tiles,
                            s.perSM[i].busyCycles, s.perSM[i].activeCycles};
  *count = n;
  return GPUOS_OK;
} GPUOS_C_CATCH

gpuos_status gpuos_at_safe_point(gpuos_runtime *rt,
                                 gpuos_status (*action)(void *user), void *user) try {
  GPUOS_C_CHECK_RT(rt);
  if (!action)
    return fail(GPUOS_ERROR_INVALID_ARGUMENT, "the action is null");
  return report(rt->rt->atSafePoint([&]() -> Status {
    lastError.clear(); // what a call inside the action reports, below
    gpuos_status code = action(user);
    if (code == GPUOS_OK)
      return Status::success();
    if (code < GPUOS_ERROR_INVALID_ARGUMENT || code > GPUOS_ERROR_DEADLINE_EXCEEDED)
      return Status::error(ErrorCode::InvalidArgument,
                           "the safe-point action returned " +
                               std::to_string((int)code) +
                               ", which is not a gpuos_status");
    // The failing call's own message, when the action passes its status on.
    return Status::error(static_cast<ErrorCode>(code),
                         std::string("the safe-point action returned ") +
                             gpuos_status_name(code) +
                             (lastError.empty() ? "" : ": " + lastError));
  }));
} GPUOS_C_CATCH

gpuos_status gpuos_graph_set_timeout(gpuos_runtime *rt, gpuos_graph graph,
                                     int64_t timeout_us) try {
  GPUOS_C_CHECK_RT(rt);
  return report(rt->rt->setGraphTimeout(graph, timeout_us));
} GPUOS_C_CATCH

} // extern "C"
