//===- Runtime.cpp - the host half of the resident-kernel protocol --------===//
//
// Protocol.h describes the shared memory; runtime/device/ the kernel. This
// file owns the host side:
//
//  * submit: pick a free run slot of the graph, write a 16-byte ring entry
//    into pinned host memory (fields, then seq), then the park handshake
//    (mfence; read parkPhase; relaunch if the kernel parked before it
//    took the entry);
//  * wait/poll: read the run slot's completion word (written by the device
//    with st.release.sys), never any device call on the fast path;
//  * safe points: park() drains and waits for the kernel to exit; frees and
//    image loads happen only then.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

#include "gpuos/runtime/DeviceHost.h"

#include <cerrno>
#include <cstring>
#include <iterator>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuos::runtime {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok: return "ok";
  case ErrorCode::InvalidArgument: return "invalid argument";
  case ErrorCode::NoGpu: return "no GPU";
  case ErrorCode::Cuda: return "CUDA error";
  case ErrorCode::Closed: return "closed";
  case ErrorCode::Timeout: return "timeout";
  case ErrorCode::NotReady: return "not ready";
  case ErrorCode::TaskFailed: return "task failed";
  case ErrorCode::Faulted: return "faulted";
  case ErrorCode::BadImage: return "bad image";
  case ErrorCode::OutOfMemory: return "out of memory";
  case ErrorCode::Unsupported: return "unsupported";
  case ErrorCode::DeadlineExceeded: return "deadline exceeded";
  }
  return "unknown error";
}

std::string Status::toString() const {
  if (ok())
    return "";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

Status readFile(const std::string &path, std::vector<char> &out) {
  // Not through an istream: a directory opens as one, and libstdc++'s
  // streambuf iterators throw on the read error.
  auto error = [&](const char *why) {
    return Status::error(ErrorCode::InvalidArgument,
                         "cannot read " + path + ": " + why);
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return error(std::strerror(errno));
  struct stat st;
  // Files and pipes (<(...)); a directory fails to read, a device such as
  // /dev/zero never ends.
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    ::close(fd);
    return error("not a regular file");
  }
  out.clear();
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      Status failed = error(std::strerror(errno));
      ::close(fd);
      return failed;
    }
    if (n == 0)
      break;
    out.insert(out.end(), chunk, chunk + n);
  }
  ::close(fd);
  return Status::success();
}


//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

Status Runtime::open(int ordinal, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out) {
  GPUOS_RETURN_IF_ERROR(Impl::checkOptions(options));
  std::unique_ptr<Backend> backend;
  if (options.isolateDevice) {
    std::string host;
    GPUOS_RETURN_IF_ERROR(findDeviceHost(options.deviceHost, host));
    GPUOS_RETURN_IF_ERROR(
        openProcessBackend({host, "--device", std::to_string(ordinal)}, backend));
  } else {
    GPUOS_RETURN_IF_ERROR(openCudaBackend(ordinal, options.ownContext, backend));
  }
  return openWithBackend(std::move(backend), options, out);
}

Status Runtime::openWithBackend(std::unique_ptr<Backend> backend,
                                const RuntimeOptions &options,
                                std::unique_ptr<Runtime> &out) {
  if (!backend)
    return invalid("no backend");
  auto impl = std::make_unique<Impl>();
  impl->backend = std::move(backend);
  impl->options = options;
  Status st = impl->setup();
  if (!st.ok())
    return st; // ~Impl frees what setup allocated
  out.reset(new Runtime(std::move(impl)));
  return Status::success();
}

bool Runtime::closed() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->closed;
}

const BackendInfo &Runtime::deviceInfo() const {
  static const BackendInfo none;
  return impl_->backend ? impl_->backend->info() : none;
}

const ImageManifest *Runtime::manifest() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->imageLoaded ? &impl_->manifest : nullptr;
}

Status Runtime::loadImageFiles(const std::string &cubinPath,
                               const std::string &manifestPath) {
  std::vector<char> cubin, json;
  GPUOS_RETURN_IF_ERROR(readFile(cubinPath, cubin));
  GPUOS_RETURN_IF_ERROR(readFile(manifestPath, json));
  return loadImage(std::move(cubin), std::string(json.begin(), json.end()));
}

Status Runtime::loadImage(std::vector<char> cubin, const std::string &json) {
  {
    // A closed runtime says so before the manifest's errors.
    std::lock_guard<std::mutex> lock(impl_->mutex);
    GPUOS_RETURN_IF_ERROR(impl_->usable());
  }
  ImageManifest manifest;
  GPUOS_RETURN_IF_ERROR(parseManifest(json, manifest));
  return loadImage(std::move(cubin), std::move(manifest));
}

Status Runtime::alloc(uint64_t bytes, Buffer &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (bytes == 0)
    return invalid("alloc: zero bytes");
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  uint64_t p = 0;
  Status st = m.backend->allocDevice(bytes, p);
  if (!st.ok())
    return Status::error(ErrorCode::OutOfMemory,
                         "alloc(" + std::to_string(bytes) + "): " + st.message());
  m.allocations[p] = bytes;
  // The address may reuse a range lost with an earlier context.
  for (auto it = m.lostAllocations.lower_bound(p);
       it != m.lostAllocations.end() && it->first < p + bytes;)
    it = m.lostAllocations.erase(it);
  if (m.isLost(p))
    m.lostAllocations.erase(std::prev(m.lostAllocations.upper_bound(p)));
  out.ptr = p;
  out.bytes = bytes;
  return Status::success();
}

Status Runtime::free(uint64_t ptr) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  auto it = m.allocations.find(ptr);
  if (it == m.allocations.end() && m.lostAllocations.count(ptr))
    return Status::error(ErrorCode::Faulted,
                         "free: buffer " + std::to_string(ptr) +
                             " was lost when the context was recreated after a "
                             "fault (nothing to free)");
  if (it == m.allocations.end())
    return invalid("free: " + std::to_string(ptr) +
                   " is not a buffer from alloc() (or was freed)");
  for (const auto &[id, g] : m.graphs)
    if (std::find(g.ownedBuffers.begin(), g.ownedBuffers.end(), ptr) !=
        g.ownedBuffers.end())
      return invalid("free: the buffer belongs to graph " + std::to_string(id));
  // Graphs bound to it cannot run again (runs in flight finish first: the
  // memory is released at the next safe point).
  uint64_t end = ptr + it->second;
  for (auto &[id, g] : m.graphs) {
    if (g.lost)
      continue;
    for (size_t t = 0; t < g.spec.tasks.size() && !g.lost; ++t)
      for (const BufferArg &b : g.spec.tasks[t].buffers)
        if (b.ptr >= ptr && b.ptr < end) {
          g.lost = true;
          g.stale = invalid("graph " + std::to_string(id) + " uses buffer " +
                            std::to_string(ptr) + " (task " + std::to_string(t) +
                            "), which was freed; destroy the graph");
          break;
        }
  }
  m.allocations.erase(it);
  m.pendingFrees.push_back(ptr);
  if (!m.launched) {
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    m.safePoint();
  }
  return Status::success();
}

/// Host-side checks of a copy between `host` and the device buffer at
/// `device`: a usable runtime, no null pointer, no overrun of the buffer.
static Status checkCopy(Runtime::Impl &m, const char *what, uint64_t device,
                        const void *host, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (!device || (!host && bytes))
    return invalid(std::string(what) + ": null pointer");
  if (m.isLost(device))
    return Status::error(ErrorCode::Faulted,
                         std::string(what) + ": buffer " + std::to_string(device) +
                             " was lost when the context was recreated after a "
                             "fault; allocate it again");
  uint64_t cap = m.capacityAt(device);
  if (cap && bytes > cap)
    return invalid(std::string(what) + ": " + std::to_string(bytes) +
                   " bytes overrun the buffer (" + std::to_string(cap) +
                   " available)");
  return Status::success();
}

Status Runtime::copyToDevice(uint64_t dst, const void *src, uint64_t bytes) {
  Impl &m = *impl_;
  GPUOS_RETURN_IF_ERROR(checkCopy(m, "copyToDevice", dst, src, bytes));
  if (!bytes)
    return Status::success();
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  return m.upload(dst, src, bytes);
}

Status Runtime::copyFromDevice(void *dst, uint64_t src, uint64_t bytes) {
  Impl &m = *impl_;
  GPUOS_RETURN_IF_ERROR(checkCopy(m, "copyFromDevice", src, dst, bytes));
  if (!bytes)
    return Status::success();
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  Status st = m.backend->copyFromDevice(dst, src, bytes);
  if (!st.ok())
    return Status::error(ErrorCode::Cuda, "copyFromDevice: " + st.message());
  return st;
}

Status Runtime::createGraph(const GraphSpec &spec, GraphId &out) {
  Impl &m = *impl_;
  std::unique_lock<std::mutex> lock(m.mutex);
  if (m.swapping) // the manifest is about to change
    GPUOS_RETURN_IF_ERROR(m.waitQuiesce(lock, "createGraph"));
  GPUOS_RETURN_IF_ERROR(m.needImage());
  GraphRecord g;
  g.spec = spec;
  LayoutLimits limits;
  limits.maxTilesPerGraph = m.maxTilesInFlight();
  GPUOS_RETURN_IF_ERROR(buildGraphLayout(
      m.manifest, spec, [&](uint64_t p) { return m.capacityAt(p); }, limits,
      g.layout));
  g.priority = spec.priority;
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  GPUOS_RETURN_IF_ERROR(m.arenaAlloc(g.layout.blobBytes(), g.blobDev));
  std::vector<uint8_t> blob = g.layout.blob(g.blobDev);
  Status st = m.upload(g.blobDev, blob.data(), blob.size());
  if (!st.ok()) {
    m.arena.release(g.blobDev);
    return st;
  }
  GraphId id = m.nextGraph++;
  GraphRecord &stored = m.graphs[id] = std::move(g);
  uint32_t index;
  st = m.createRunSlot(id, stored, index); // one ready for the first submit
  if (!st.ok()) {
    m.releaseGraph(stored);
    m.graphs.erase(id);
    return st;
  }
  out = id;
  return Status::success();
}

Status Runtime::createGraphFromManifest(
    const std::string &graph, const std::map<std::string, BufferArg> &bindings,
    GraphId &out) {
  GraphSpec spec;
  std::vector<uint64_t> owned;
  {
    Impl &m = *impl_;
    std::lock_guard<std::mutex> lock(m.mutex);
    GPUOS_RETURN_IF_ERROR(m.needImage());
    const ImageManifest &man = m.manifest;
    std::vector<int> members;
    std::set<std::string> graphNames;
    for (size_t i = 0; i < man.tasks.size(); ++i) {
      graphNames.insert(man.tasks[i].graph);
      if (man.tasks[i].graph == graph)
        members.push_back((int)i);
    }
    if (members.empty()) {
      std::string list;
      for (const std::string &n : graphNames)
        list += (list.empty() ? "" : ", ") + n;
      return invalid("the image has no graph '" + graph + "' (it has: " + list + ")");
    }
    std::map<int, uint32_t> local;
    for (size_t k = 0; k < members.size(); ++k)
      local[members[k]] = (uint32_t)k;
    std::set<std::string> produced, consumed;
    for (int t : members)
      for (const ManifestBuffer &b : man.tasks[t].buffers)
        (b.isOutput ? produced : consumed).insert(b.name);
    for (const auto &[name, arg] : bindings) {
      (void)arg;
      if (!produced.count(name) && !consumed.count(name))
        return invalid("graph '" + graph + "' has no buffer named '" + name + "'");
    }
    std::map<std::string, BufferArg> resolved = bindings;
    auto failOwned = [&](Status st) {
      for (uint64_t p : owned) {
        m.allocations.erase(p);
        m.pendingFrees.push_back(p);
      }
      return st;
    };
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    spec.priority = Priority::Background;
    for (int t : members) {
      const ManifestTask &mt = man.tasks[t];
      if ((uint32_t)mt.priority < (uint32_t)spec.priority)
        spec.priority = mt.priority;
      if (!mt.dynamic.empty())
        return failOwned(invalid("task '" + mt.kind + "' has dynamic sizes; "
                                 "build its graph with createGraph"));
      TaskSpec ts;
      ts.kind = mt.kind;
      for (int64_t d : mt.dependsOn)
        ts.deps.push_back(local.at((int)d));
      for (const ManifestBuffer &b : mt.buffers) {
        auto it = resolved.find(b.name);
        if (it == resolved.end()) {
          bool intermediate = produced.count(b.name) && consumed.count(b.name);
          if (!intermediate)
            return failOwned(invalid(
                "graph '" + graph + "': buffer '" + b.name + "' (" +
                (b.isOutput ? "an output" : "an input") + " of '" + mt.kind +
                "') is not bound"));
          // Static (no dynamic sizes above); parseManifest checked it fits.
          uint64_t extent = 0;
          if (!viewExtentBytes(b.shape, b.strides, b.elemBytes, extent))
            return failOwned(invalid("intermediate '" + b.name +
                                     "' spans more than 2^64 bytes"));
          extent = std::max<uint64_t>(extent, 1);
          uint64_t p = 0;
          Status st = m.backend->allocDevice(extent, p);
          if (!st.ok())
            return failOwned(Status::error(ErrorCode::OutOfMemory,
                                           "intermediate '" + b.name + "': " +
                                               st.message()));
          m.allocations[p] = extent;
          owned.push_back(p);
          it = resolved.emplace(b.name, BufferArg{p, extent, {}, {}}).first;
        }
        ts.buffers.push_back(it->second);
      }
      spec.tasks.push_back(std::move(ts));
    }
  }
  Status st = createGraph(spec, out);
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!st.ok()) {
    for (uint64_t p : owned) {
      m.allocations.erase(p);
      m.pendingFrees.push_back(p);
    }
    return st;
  }
  m.graphs[out].ownedBuffers = owned;
  return st;
}

Status Runtime::destroyGraph(GraphId id) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  auto it = m.graphs.find(id);
  if (it == m.graphs.end())
    return invalid("unknown graph " + std::to_string(id));
  m.reapAll();
  size_t busy = 0;
  for (uint32_t index : it->second.runSlots)
    busy += m.runs[index].busy;
  if (busy)
    return invalid("graph " + std::to_string(id) + " has " +
                   std::to_string(busy) + " submissions in flight");
  m.releaseGraph(it->second);
  m.graphs.erase(it);
  if (!m.launched)
    m.safePoint();
  return Status::success();
}

Status Runtime::submit(GraphId id, Submission &out) {
  return impl_->submit(id, std::nullopt, nullptr, out);
}

Status Runtime::submit(GraphId id, Priority priority, Submission &out) {
  return impl_->submit(id, priority, nullptr, out);
}

Status Runtime::submitOnStream(GraphId id, Priority priority, uint64_t stream,
                               Submission &out) {
  return impl_->submit(id, priority, &stream, out);
}

Status Runtime::submitOnStream(GraphId id, uint64_t stream, Submission &out) {
  return impl_->submit(id, std::nullopt, &stream, out);
}

Status Runtime::Impl::submit(GraphId id, std::optional<Priority> priority,
                             const uint64_t *stream, Submission &out) {
  std::unique_lock<std::mutex> lock(mutex);
  GPUOS_RETURN_IF_ERROR(needImage());
  if (priority && (uint32_t)*priority >= kNumPriorities)
    return invalid("priority " + std::to_string((uint32_t)*priority) +
                   " is not urgent (0), normal (1) or background (2)");
  // The graph, found again after every wait that gave up the lock (it may
  // have been destroyed, or gone stale in a swap).
  decltype(graphs)::iterator it;
  auto findGraph = [&]() -> Status {
    it = graphs.find(id);
    if (it == graphs.end())
      return invalid("unknown graph " + std::to_string(id));
    return it->second.stale;
  };
  GPUOS_RETURN_IF_ERROR(findGraph());
  if (stream) {
    GPUOS_RETURN_IF_ERROR(backend->checkStream(*stream));
    // A stream-ordered run is not deferred to a swap's end: its launch is
    // enqueued now, and a swap parks and unloads the image it would use.
    if (quiesced) {
      GPUOS_RETURN_IF_ERROR(waitQuiesce(lock, "a stream-ordered submit"));
      GPUOS_RETURN_IF_ERROR(findGraph());
    }
  }
  uint32_t q = (uint32_t)priority.value_or(it->second.priority);
  uint64_t tiles = it->second.layout.totalTiles;

  // Admission: at most half a queue of tiles in flight per priority (over
  // its root and shared queues), so a producer never finds its queue full
  // of entries nobody can take. A graph gets at most kStreamRunSlots run
  // slots for stream-ordered submissions, so a caller far ahead of its
  // stream waits here, as a CUDA launch does when its queue is full.
  uint32_t index = UINT32_MAX;
  auto start = Clock::now();
  for (uint32_t spins = 0;; ++spins) {
    reapAll();
    bool admitted = inFlightTiles[q] + tiles <= maxTilesInFlight();
    if (admitted) {
      GraphRecord &g = it->second;
      for (uint32_t r : g.runSlots)
        if (!runs[r].busy) {
          index = r;
          break;
        }
      if (index != UINT32_MAX || !stream || g.runSlots.size() < kStreamRunSlots)
        break;
      // Every slot of the graph has a run whose stream has not got to it
      // (the caller is far ahead of it, or holds it).
    } else if (quiesced) {
      // Nothing completes while quiesced: wait for the end (not inside it).
      GPUOS_RETURN_IF_ERROR(waitQuiesce(lock, "a submit beyond the queue's "
                                              "admission limit"));
      GPUOS_RETURN_IF_ERROR(findGraph());
      tiles = it->second.layout.totalTiles;
      continue;
    }
    // Wait without the lock, which the other threads' wait, poll, submit
    // and close need meanwhile.
    lock.unlock();
    if (admitted)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    else
      std::this_thread::yield();
    lock.lock();
    GPUOS_RETURN_IF_ERROR(needImage());
    if (quiesced && stream) // a swap began meanwhile: not deferred (see above)
      GPUOS_RETURN_IF_ERROR(waitQuiesce(lock, "a stream-ordered submit"));
    GPUOS_RETURN_IF_ERROR(findGraph());
    tiles = it->second.layout.totalTiles; // a swap may have rebound it
    if ((spins & 1023) == 1023) {
      GPUOS_RETURN_IF_ERROR(checkResident());
      if (admitted && Clock::now() - start > std::chrono::seconds(60))
        return Status::error(
            ErrorCode::Timeout,
            "a stream-ordered submit of graph " + std::to_string(id) +
                " waited 60 s for a run slot: the graph's " +
                std::to_string(kStreamRunSlots) +
                " earlier stream-ordered runs have not run (is their stream held, "
                "or blocked?)");
    }
  }
  GraphRecord &g = it->second;
  if (index == UINT32_MAX) {
    GPUOS_RETURN_IF_ERROR(backend->makeCurrent());
    GPUOS_RETURN_IF_ERROR(createRunSlot(id, g, index));
  }
  RunSlot &rs = runs[index];
  rs.epoch = (uint16_t)(rs.epoch + 1); // differs from the word's last value
  if (rs.epoch == 0)
    rs.epoch = 1;
  rs.busy = true;
  rs.serial = nextSerial++;
  rs.queue = q;
  rs.tiles = tiles;
  busyRuns.push_back(index);
  inFlightTiles[q] += tiles;
  ++submissions;
  queued[q] += tiles;
  out.id = Impl::submissionId(rs.serial, index);
  int64_t limit = g.timeoutUs >= 0 ? g.timeoutUs : options.timeoutUs;
  rs.hasDeadline = limit > 0;
  rs.declared = false;
  if (rs.hasDeadline) {
    rs.deadline = Clock::now() + micros(limit);
    ++runsWithDeadline;
  }
  if (quiesced) { // a swap or atSafePoint: queued on the host
    deferred.push_back({index, q});
    ++deferredTotal;
    return Status::success();
  }
  if (!launched)
    GPUOS_RETURN_IF_ERROR(backend->makeCurrent());
  if (stream)
    return postOnStream(index, q, *stream);
  Status st = postEntry(index, rs.epoch, kRingOpSubmit, q);
  // Not posted (the ring stayed full): nothing on the device will finish
  // it, so its run slot and admitted tiles go back now. (A fault or a
  // recovery has finished it already.)
  if (st.code() == ErrorCode::Timeout && runs[index].busy)
    failOnHost(index, st);
  return st;
}

Status Runtime::Impl::postOnStream(uint32_t index, uint32_t queue, uint64_t stream) {
  RunSlot &rs = runs[index];
  // The entry, then the launch that may take it: on the kernel's stream,
  // behind an event of the caller's stream. A launch running or queued
  // before it parks when it meets the entry (Park.h), so the stream's
  // earlier work, kernels too, gets the SMs; the stream's later work waits
  // for this launch to end, and it parks as soon as it is idle. The phase
  // says RUNNING from here: a plain submission behind the entry is read by
  // this launch, or a later one.
  GPUOS_RETURN_IF_ERROR(postEntry(index, rs.epoch, kRingOpStream, queue, false));
  uint32_t seq = (uint32_t)ringTail; // the entry's: its position + 1
  streamReleased = seq;
  __atomic_store_n(&hs->parkPhase, kPhaseRunning, __ATOMIC_RELEASE);
  uint64_t event = 0;
  Status st = backend->launchResidentAfterStream(ctlDev, shape, LaunchTicket{seq, 1},
                                                 stream, event);
  if (st.ok()) {
    streamLaunches.push_back(event);
    launched = true;
    ++launches;
    return Status::success();
  }
  // No launch behind the stream: a plain one takes the entry (released
  // above), so nothing behind it waits forever. The run starts without
  // waiting for the stream, and the caller gets the error (the run's
  // outputs are undefined).
  Status plain = relaunch();
  return Status::error(st.code(), "a stream-ordered submit could not order its launch "
                                  "after the stream (the run starts without waiting "
                                  "for the stream; its outputs are undefined): " +
                                  st.message() +
                                  (plain.ok() ? "" : "; the plain launch failed too: " +
                                                         plain.message()));
}

Status Runtime::poll(Submission s) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  uint32_t index;
  uint16_t epoch;
  bool ended = false;
  Status st = m.settle(s, index, epoch, ended);
  if (ended)
    return st;
  return Status::error(ErrorCode::NotReady, "the submission is still running");
}

Status Runtime::wait(Submission s, int64_t timeoutUs) {
  Impl &m = *impl_;
  uint32_t index;
  uint16_t epoch;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.closed)
      return Status::error(ErrorCode::Closed, "the runtime is closed");
    bool done = false;
    Status result;
    GPUOS_RETURN_IF_ERROR(m.lookup(s, index, epoch, done, result));
    if (done)
      return result;
    // A submission queued inside this thread's safe-point action runs only
    // after the action returns: waiting for it there would never end.
    if (timeoutUs != 0 && m.quiesced &&
        m.quiesceOwner == std::this_thread::get_id() &&
        std::any_of(m.deferred.begin(), m.deferred.end(),
                    [&](const Impl::Deferred &d) { return d.index == index; }))
      return invalid("wait: the submission was queued inside atSafePoint or an "
                     "image swap on this thread, and runs after it returns");
  }
  auto start = Clock::now();
  uint32_t status;
  for (uint64_t spins = 1;; ++spins) {
    // The fast path reads one word of host memory; the device wrote it.
    // whileMapped keeps a recovery from freeing that memory under us.
    m.whileMapped([&] {
      for (uint32_t k = 0; k < 4096; ++k, ++spins) {
        if (m.completedWord(index, epoch, status))
          return;
        cpuPause();
      }
    });
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.closed) // closed while this waited
      return m.drainedResult(s);
    bool ended = false;
    Status st = m.settle(s, index, epoch, ended);
    if (ended)
      return st;
    if (timeoutUs >= 0 &&
        Clock::now() - start >= micros(timeoutUs))
      return Status::error(ErrorCode::Timeout,
                           "the submission did not finish within " +
                               std::to_string(timeoutUs) + " us");
    if ((spins & 65535) < 4096)
      std::this_thread::yield();
  }
}

Status Runtime::park() {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  Status st = m.parkLocked();
  m.reapAll();
  return st;
}

/// Trace slots [first, first + count) from the device (RuntimeOptions::
/// traceRecords; none when tracing is off): the poller's ring, then
/// kHopTraceSlots per block (Protocol.h). With the lock held.
static Status readTraceSlots(Runtime::Impl &m, uint64_t first, size_t count,
                             std::vector<TraceSlot> &slots) {
  GPUOS_RETURN_IF_ERROR(m.usable());
  slots.clear();
  if (!m.traceDev)
    return Status::success();
  slots.resize(count);
  return m.backend->copyFromDevice(slots.data(),
                                   m.traceDev + first * sizeof(TraceSlot),
                                   count * sizeof(TraceSlot));
}

uint32_t Runtime::runSlotOf(Submission s) { return Impl::runOf(s.id); }

Status Runtime::readTrace(std::vector<TraceRecord> &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  out.clear();
  std::vector<TraceSlot> slots;
  GPUOS_RETURN_IF_ERROR(readTraceSlots(m, 0, m.traceCount, slots));
  // Slot k holds record k mod count; the oldest is the one after the
  // newest (by the globaltimer stamp; empty slots have 0).
  size_t first = 0;
  for (size_t k = 1; k < slots.size(); ++k)
    if (slots[k].seenNs < slots[first].seenNs)
      first = k;
  for (size_t i = 0; i < slots.size(); ++i) {
    const TraceSlot &t = slots[(first + i) % slots.size()];
    if (!t.seenNs)
      continue;
    TraceRecord r;
    r.run = t.run;
    r.epoch = t.epoch;
    r.seenNs = t.seenNs;
    r.pollIssued = t.cycles[0];
    r.seen = t.cycles[1];
    r.acquired = t.cycles[2];
    r.rowRead = t.cycles[3];
    r.queued = t.pad[0] != 0;
    if (r.queued) {
      r.entriesWritten = t.cycles[4];
      r.published = t.cycles[5];
    } else {
      r.tileStart = t.cycles[4];
      r.tileEnd = t.cycles[5];
      r.completed = t.cycles[6];
      r.performed = t.cycles[7];
    }
    out.push_back(r);
  }
  return Status::success();
}

Status Runtime::readHopTrace(std::vector<HopTraceRecord> &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  out.clear();
  std::vector<TraceSlot> slots;
  GPUOS_RETURN_IF_ERROR(readTraceSlots(m, m.traceCount,
                                       (size_t)m.maxBlocks * kHopTraceSlots, slots));
  for (size_t k = 0; k < slots.size(); ++k) {
    const TraceSlot &t = slots[k];
    if (!t.seenNs)
      continue;
    HopTraceRecord r;
    r.block = (uint32_t)(k / kHopTraceSlots);
    r.task = t.epoch;
    static_assert((uint32_t)TileOrigin::FromRange == kTileFromRange &&
                      (uint32_t)TileOrigin::Continued == kTileContinued &&
                      (uint32_t)TileOrigin::FromGang == kTileFromGang,
                  "TileOrigin");
    r.origin = static_cast<TileOrigin>(t.run);
    r.endNs = t.seenNs;
    r.tileEnd = t.cycles[0];
    r.finished = t.cycles[1];
    r.finishDone = t.cycles[2];
    r.decided = t.cycles[3];
    r.started = t.cycles[4];
    r.tileStart = t.cycles[5];
    r.dispatched = t.cycles[6];
    r.nextTileEnd = t.cycles[7];
    // The block's next slot opened at this tile's end; its "finished" stamp
    // is this tile's (HopTrace::tileEnded), also while it is still open.
    const TraceSlot &after =
        slots[k - k % kHopTraceSlots + (k + 1) % kHopTraceSlots];
    if (after.cycles[0] == t.cycles[7])
      r.nextFinished = after.cycles[1];
    out.push_back(r);
  }
  return Status::success();
}

Status Runtime::stats(Stats &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  m.reapAll();
  Stats s;
  s.submissions = m.submissions;
  s.completed = m.completed;
  s.failed = m.failed;
  s.tasksRun = m.tasksRun;
  s.launches = m.launches;
  s.parks = loadAcquire(&m.hs->parks);
  s.parkRequests = m.parkRequests;
  s.workers = m.workers;
  s.blockThreads = m.shape.threads;
  s.resident = m.launched && loadAcquire(&m.hs->parkPhase) != kPhaseParked;
  s.runsInFlight = (uint32_t)m.busyRuns.size();
  for (uint32_t p = 0; p < kNumPriorities; ++p)
    s.queueTotal[p] = m.queued[p];
  s.swaps = m.swaps;
  s.recoveries = m.recoveries;
  s.deadlineMisses = m.deadlineMisses;
  s.hostQueued = m.deferredTotal;
  s.lastSwap = m.lastSwap;
  if (m.imageLoaded) {
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    std::vector<BlockStats> blocks(m.shape.blocks);
    GPUOS_RETURN_IF_ERROR(m.backend->copyFromDevice(
        blocks.data(), m.blockStatsDev, blocks.size() * sizeof(BlockStats)));
    std::map<uint32_t, Stats::SM> sms;
    for (const BlockStats &b : blocks) {
      s.tilesPerBlock.push_back(b.tiles);
      s.tilesRun += b.tiles;
      if (!b.activeCycles && !b.tiles)
        continue; // never ran (yet)
      Stats::SM &sm = sms[b.smid];
      sm.smid = b.smid;
      ++sm.blocks;
      sm.tiles += b.tiles;
      sm.busyCycles += b.busyCycles;
      sm.activeCycles += b.activeCycles;
    }
    for (auto &[id, sm] : sms)
      s.perSM.push_back(sm);
    QueueState queues[kNumQueues];
    GPUOS_RETURN_IF_ERROR(m.backend->copyFromDevice(
        queues, m.ctlDev + offsetof(DeviceControl, queues), sizeof(queues)));
    GPUOS_RETURN_IF_ERROR(m.backend->copyFromDevice(
        &s.gangRuns, m.ctlDev + offsetof(DeviceControl, gangRuns), sizeof(uint64_t)));
    for (uint32_t q = 0; q < kNumQueues; ++q)
      s.queueDepth[priorityOfQueue(q)] +=
          queues[q].reserve.value > queues[q].head.value
              ? queues[q].reserve.value - queues[q].head.value
              : 0;
  }
  out = std::move(s);
  return Status::success();
}

Status Runtime::close() {
  Impl &m = *impl_;
  {
    std::unique_lock<std::mutex> lock(m.mutex);
    if (m.closed)
      return Status::success();
    if (m.quiesced)
      GPUOS_RETURN_IF_ERROR(m.waitQuiesce(lock, "close"));
    if (m.closed)
      return Status::success();
    m.closing = true;
    m.shutdown();
    m.closed = true;
  }
  m.stopNotifier(); // the drained submissions' callbacks are called first
  return Status::success();
}

} // namespace gpuos::runtime
