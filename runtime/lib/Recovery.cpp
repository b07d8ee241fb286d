//===- Recovery.cpp - deadlines, faults and hangs ---------------------------===//
//
// Naming what ran: every block stores a JobRecord (run slot, epoch, kind,
// task, tile) into pinned host memory before each tile and marks it idle
// when it finds no work, so the host can say which tile was on the GPU
// without a device call: after a fault has killed the context, or while a
// submission overstays its deadline.
//
// Deadlines (RuntimeOptions::timeoutUs, setGraphTimeout): checked by the
// host on every slow path that waits (checkResident). A submission past
// its deadline fails with DeadlineExceeded at once; its run slot stays
// busy until the device finishes it, since a tile cannot be preempted.
// If a tile of it is still running hangGraceUs later, the kernel is taken
// as hung and recovered like a fault (the only way to stop a tile is to
// destroy its context).
//
// Recovery: every submission in flight or queued fails with Faulted and a
// message naming the tile(s) that were running; the context is destroyed
// and recreated (Backend::resetContext); the runtime's memory is set up
// again, the image reloaded from the kept cubin, and graphs whose buffers
// did not come from alloc() are re-uploaded. Buffers from alloc() die with
// the context (free/copies of them say so), and so do the graphs using
// them (submit says so).
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

namespace gpuos::runtime {

/// "; ops gpuos.add at m.mlir:3:10, gpuos.exp at m.mlir:4:8" for a task
/// whose manifest entry lists the ops it was compiled from (the first few).
static std::string describeOps(const ManifestTask &t) {
  constexpr size_t kListed = 4;
  std::string out;
  for (size_t i = 0; i < t.ops.size() && i < kListed; ++i) {
    out += (i ? ", " : "; ops ") + t.ops[i].name;
    if (!t.ops[i].loc.empty())
      out += " at " + t.ops[i].loc;
  }
  if (t.ops.size() > kListed)
    out += " and " + std::to_string(t.ops.size() - kListed) + " more";
  return out;
}

std::string Runtime::Impl::describeGraphTask(uint32_t graph, uint32_t task,
                                             uint32_t kind) const {
  std::string name = std::to_string(kind), fn, ops;
  if (kind < manifest.tasks.size()) {
    name = manifest.tasks[kind].kind;
    fn = manifest.tasks[kind].function;
    ops = describeOps(manifest.tasks[kind]);
  }
  return "task " + std::to_string(task) + " ('" + name + "'" +
         (fn.empty() ? "" : ", " + fn) + ops + ") of graph " +
         std::to_string(graph);
}

std::string Runtime::Impl::describeRunning(uint32_t run) const {
  std::string out;
  uint32_t listed = 0, more = 0;
  for (uint32_t b = 0; jobs && b < shape.blocks && b < maxBlocks; ++b) {
    JobRecord r;
    r.run = __atomic_load_n(&jobs[b].run, __ATOMIC_ACQUIRE);
    r.epochKind = __atomic_load_n(&jobs[b].epochKind, __ATOMIC_RELAXED);
    r.task = __atomic_load_n(&jobs[b].task, __ATOMIC_RELAXED);
    r.tile = __atomic_load_n(&jobs[b].tile, __ATOMIC_RELAXED);
    if (!(r.run & kJobRunning))
      continue;
    uint32_t slot = r.run & ~kJobRunning;
    if (slot >= runs.size() || !runs[slot].busy ||
        (runs[slot].epoch & 0xFFFFu) != (r.epochKind & 0xFFFFu))
      continue; // a finished run's record, not yet overwritten
    if (run != UINT32_MAX && slot != run)
      continue;
    if (listed == 4) {
      ++more;
      continue;
    }
    out += (listed++ ? ", " : "") +
           describeGraphTask(runs[slot].graph, r.task, r.epochKind >> 16) +
           ", tile " + std::to_string(r.tile) + " on block " + std::to_string(b);
  }
  if (more)
    out += " and " + std::to_string(more) + " more";
  return out;
}

void Runtime::Impl::failOnHost(uint32_t index, const Status &result) {
  RunSlot &rs = runs[index];
  if (!rs.busy)
    return;
  finishRun(index, result);
  if (completion && !resetting.load())
    storeHostFailure(index);
}

Status Runtime::Impl::watchdog() {
  auto now = Clock::now();
  std::vector<uint32_t> watched;
  for (uint32_t index : busyRuns)
    if (runs[index].hasDeadline)
      watched.push_back(index);
  for (uint32_t index : watched) {
    RunSlot &rs = runs[index];
    if (reap(index) || now < rs.deadline)
      continue;
    std::string running = describeRunning(index);
    if (!rs.declared) {
      int64_t limit = graphs.count(rs.graph) ? graphs.at(rs.graph).timeoutUs : -1;
      if (limit < 0)
        limit = options.timeoutUs;
      Status e = Status::error(
          ErrorCode::DeadlineExceeded,
          "the submission of graph " + std::to_string(rs.graph) +
              " missed its timeout of " + std::to_string(limit) + " us: " +
              (running.empty()
                   ? std::string("none of its tiles was running (it waited "
                                 "behind other work)")
                   : running + " still running") +
              "; its outputs are undefined until the device finishes it");
      rs.declared = true;
      ++completed;
      ++deadlineMisses;
      recordFailure(rs.serial, e);
      finished(rs.serial, e);
      continue;
    }
    if (launched && !running.empty() &&
        now - rs.deadline >= micros(options.hangGraceUs))
      return recover("the kernel is hung: " + running + " still running " +
                         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            now - rs.deadline)
                                            .count()) +
                         " ms after its submission's deadline",
                     true);
  }
  return Status::success();
}

Status Runtime::Impl::recover(const std::string &reason, bool hung) {
  std::string running = describeRunning(UINT32_MAX);
  std::string what = reason;
  if (!hung && !running.empty())
    what += "; running then: " + running;
  if (!options.recoverFaults || closing) {
    fault = Status::error(ErrorCode::Faulted, what);
    return fault;
  }
  bool stopped = hung && forceStop(options.hangGraceUs);
  if (hung && !stopped && backend->info().isolated()) {
    // Ending the device host ends the tile with it: recover as from a
    // fault (the context goes with the process).
    what += "; the kernel did not stop within " +
            std::to_string(options.hangGraceUs / 1000) +
            " ms of being told to, so its device host process was ended";
  } else if (hung && !stopped) {
    // The tile does not end. Destroying the context would wait for it (seen
    // on the H200: cuCtxDestroy returned when the tile did), so the runtime
    // gives up here rather than block: it stays Faulted, and only the end
    // of the process frees the GPU.
    fault = Status::error(
        ErrorCode::Faulted,
        what + "; the kernel did not stop within " +
            std::to_string(options.hangGraceUs / 1000) +
            " ms of being told to: a running tile cannot be preempted, and "
            "destroying its context would wait for it; the runtime is unusable "
            "(restart the process)");
    for (uint32_t index : std::vector<uint32_t>(busyRuns))
      failOnHost(index, fault);
    return fault;
  }
  if (stopped) {
    // The kernel has left after the tile ended: no sticky error, so the
    // context, the buffers and the graphs stay; only the runs in flight are
    // lost (their counters were mid-run).
    for (uint32_t index : std::vector<uint32_t>(busyRuns))
      failOnHost(index, Status::error(
                            ErrorCode::Faulted,
                            what + "; the kernel was stopped and every submission "
                                   "in flight or queued was dropped (resubmit it); "
                                   "buffers and graphs are kept"));
    deferred.clear();
    Status st = resetProtocol();
    if (!st.ok()) {
      fault = Status::error(ErrorCode::Faulted,
                            what + "; restarting the kernel failed: " + st.message());
      return fault;
    }
    ++recoveries;
    return Status::error(ErrorCode::Faulted,
                         what + "; the runtime recovered (kernel stopped and "
                                "restarted; buffers and graphs kept, the "
                                "submissions in flight were dropped)");
  }
  // Everything in flight or queued is lost with the context: each such
  // submission fails with its own message (none is re-run: its buffers
  // are gone too).
  const std::string redo =
      "; buffers from alloc() were lost with the context: allocate and "
      "upload them again, recreate the graphs using them, then resubmit";
  std::vector<std::pair<uint32_t, bool>> lostRuns; // run slot, was running
  for (uint32_t index : busyRuns)
    lostRuns.push_back({index, !describeRunning(index).empty()});
  deferred.clear();
  fenceWaiters(); // no lock-free reader of the mapped memory past here
  (void)backend->makeCurrent();
  Status st = backend->resetContext();
  // Seen on the H200 (driver 580, CUDA 13.0) after an illegal address:
  // cuCtxCreate keeps returning the error, even after a primary-context
  // reset; CUDA documents such errors as needing a new process.
  auto failed = [&](const Status &why) {
    return backend->info().isolated()
               ? "; starting a new device host failed: " + why.message()
               : "; recreating the context failed: " + why.message() +
                     "; the driver keeps this error for the whole process: "
                     "restart the process to use the GPU";
  };
  const std::string outcome = st.ok() ? redo : failed(st);
  // Each submission in flight or queued fails with its own message; none
  // is re-run (its buffers are gone too).
  for (auto [index, mine] : lostRuns)
    failOnHost(index, Status::error(
                          ErrorCode::Faulted,
                          (mine ? "this submission was running when the context "
                                  "had to be recreated: "
                                : "this submission was in flight or queued and "
                                  "did not complete; the context had to be "
                                  "recreated: ") +
                              what + outcome));
  launched = false;
  controlWritten = false;
  ringTail = 0;
  mappedHost = nullptr;
  completion = nullptr;
  jobs = nullptr;
  hs = nullptr;
  ring = nullptr;
  ctlDev = runTableDev = blockStatsDev = arenaDev = jobsScratchDev = 0;
  for (uint64_t &q : queueDev)
    q = 0;
  runsWithDeadline = 0;
  for (uint64_t &t : inFlightTiles)
    t = 0;
  freeRuns.clear();
  for (uint32_t i = (uint32_t)runs.size(); i-- > 0;) {
    RunSlot &rs = runs[i];
    rs.inUse = rs.busy = rs.declared = rs.hasDeadline = false;
    rs.countersDev = rs.rootsDev = 0;
    freeRuns.push_back(i);
  }
  busyRuns.clear();
  // Launches queued behind callers' streams went with the context (their
  // events too: not given back to the backend's pool).
  streamLaunches.clear();
  for (auto &[p, bytes] : allocations)
    lostAllocations[p] = bytes;
  allocations.clear();
  pendingFrees.clear();
  if (st.ok())
    st = allocateShared();
  if (st.ok() && imageLoaded) {
    imageLoaded = false;
    uint32_t protocol = 0;
    st = backend->loadImage(cubin, protocol);
    ImageManifest again = manifest;
    std::vector<char> bytes = cubin;
    if (st.ok())
      st = installImage(std::move(bytes), again);
  }
  // Graphs: those that touch no lost buffer are uploaded again.
  for (auto &[id, g] : graphs) {
    g.runSlots.clear();
    g.blobDev = 0;
    if (g.lost) { // its intermediates died with the old context too
      g.ownedBuffers.clear();
      continue;
    }
    uint64_t lostPtr = 0;
    for (const TaskSpec &t : g.spec.tasks)
      for (const BufferArg &b : t.buffers)
        if (!lostPtr && isLost(b.ptr))
          lostPtr = b.ptr;
    if (!lostPtr && !g.ownedBuffers.empty())
      lostPtr = g.ownedBuffers.front();
    if (lostPtr || !st.ok()) {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)lostPtr);
      g.lost = true;
      g.stale = Status::error(
          ErrorCode::Faulted,
          "graph " + std::to_string(id) +
              (lostPtr ? " used buffer " + std::string(hex) +
                             " from alloc(), lost when the context was "
                             "recreated after: " + reason +
                             "; destroy the graph, allocate and upload its "
                             "buffers again and create it again"
                       : " could not be restored after: " + reason));
      g.ownedBuffers.clear();
      continue;
    }
    std::vector<uint8_t> blob;
    Status gs = arenaAlloc(g.layout.blobBytes(), g.blobDev);
    if (gs.ok()) {
      blob = g.layout.blob(g.blobDev);
      gs = upload(g.blobDev, blob.data(), blob.size());
    }
    uint32_t index;
    if (gs.ok())
      gs = createRunSlot(id, g, index);
    if (!gs.ok()) {
      g.lost = true;
      g.stale = gs;
    }
  }
  if (!st.ok()) {
    // Nothing is mapped (completion is null): lock-free readers stay out,
    // and settle returns the fault.
    fault = Status::error(ErrorCode::Faulted, what + failed(st));
    return fault;
  }
  resetting.store(false);
  ++recoveries;
  return Status::error(ErrorCode::Faulted,
                       what + "; the runtime recovered (context recreated, image "
                              "reloaded)" + redo);
}

Status Runtime::Impl::resetProtocol() {
  GPUOS_RETURN_IF_ERROR(backend->makeCurrent());
  GPUOS_RETURN_IF_ERROR(waitExit());
  launched = false;
  // Host memory: the ring and shared words start over (completion words
  // keep their values: waiters of the failed runs read them).
  std::memset(ring, 0, (size_t)options.ringCapacity * sizeof(RingEntry));
  std::memset(static_cast<void *>(hs), 0, sizeof(HostShared));
  std::memset(static_cast<void *>(jobs), 0, (size_t)maxBlocks * sizeof(JobRecord));
  ringTail = 0;
  DeviceControl zero{};
  GPUOS_RETURN_IF_ERROR(upload(ctlDev, &zero, sizeof(zero)));
  GPUOS_RETURN_IF_ERROR(writeControl());
  GPUOS_RETURN_IF_ERROR(initQueues());
  for (auto &[id, g] : graphs) {
    if (g.lost)
      continue;
    std::vector<uint8_t> counters = g.layout.runCounters();
    for (uint32_t index : g.runSlots)
      GPUOS_RETURN_IF_ERROR(upload(runs[index].countersDev, counters.data(),
                                   counters.size()));
  }
  safePoint();
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

Status Runtime::setGraphTimeout(GraphId id, int64_t timeoutUs) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  GPUOS_RETURN_IF_ERROR(impl_->usable());
  auto it = impl_->graphs.find(id);
  if (it == impl_->graphs.end())
    return invalid("unknown graph " + std::to_string(id));
  if (timeoutUs < 0)
    return invalid("setGraphTimeout: the timeout " + std::to_string(timeoutUs) +
                   " us is negative (0: no limit)");
  it->second.timeoutUs = timeoutUs;
  return Status::success();
}

} // namespace gpuos::runtime
