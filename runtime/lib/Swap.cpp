//===- Swap.cpp - quiescing: image swaps under load, safe-point actions ----===//
//
// A safe point is a stretch of time in which the resident kernel is known
// to be gone: cuModuleLoad and cuMemFree block while it runs
// (PLATFORM-FACTS 2). beginQuiesce drains what is in flight, parks the
// kernel, and keeps it parked: submissions from other threads meanwhile
// pick their run slot as usual but are queued on the host (`deferred`)
// instead of the ring, because for a swap the kind indices they would
// carry are not known yet. endQuiesce posts them in order and relaunches.
//
// An image swap is beginQuiesce, the module load with the lock released
// (the long part; the old image stays current until the new one loaded and
// fits), then, under the lock again: commit, rebind every graph's kinds by
// name against the new manifest (graphs that no longer validate go stale
// and their queued submissions fail), endQuiesce with an eager relaunch.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

namespace gpuos::runtime {

Status Runtime::Impl::waitQuiesce(std::unique_lock<std::mutex> &lock,
                                  const char *what) {
  if (quiesced && quiesceOwner == std::this_thread::get_id())
    return invalid(std::string(what) +
                   " cannot be called from inside atSafePoint or an image swap");
  quiesceEnded.wait(lock, [&] { return !quiesced; });
  return usable();
}

Status Runtime::Impl::beginQuiesce(std::unique_lock<std::mutex> &lock, bool swap) {
  GPUOS_RETURN_IF_ERROR(waitQuiesce(lock, swap ? "loadImage" : "atSafePoint"));
  GPUOS_RETURN_IF_ERROR(backend->makeCurrent());
  GPUOS_RETURN_IF_ERROR(parkLocked());
  reapAll();
  quiesced = true;
  swapping = swap;
  quiesceOwner = std::this_thread::get_id();
  return Status::success();
}

uint64_t Runtime::Impl::deferredTiles(uint32_t queue) const {
  uint64_t tiles = 0;
  for (const Deferred &d : deferred)
    if (d.queue == queue && runs[d.index].busy)
      tiles += runs[d.index].tiles;
  return tiles;
}

Status Runtime::Impl::endQuiesce(std::unique_lock<std::mutex> &lock,
                                 bool relaunchNow) {
  // Still quiesced while posting: a submission from another thread (while
  // this one waits for room below) queues behind the deferred ones.
  Status st;
  for (uint32_t spins = 0; st.ok() && !deferred.empty();) {
    Deferred d = deferred.front();
    RunSlot &rs = runs[d.index];
    const GraphRecord *g = rs.busy ? &graphs.at(rs.graph) : nullptr;
    if (!rs.busy) { // a recovery failed it
    } else if (rs.declared) {
      // Its deadline passed while it was queued here: already reported,
      // never posted, so nothing on the device will finish it.
      failOnHost(d.index, Status());
    } else if (!g->stale.ok()) {
      failOnHost(d.index, g->stale);
    } else {
      // Admitted with the tile count of its graph's layout then; the
      // device's queues must hold what the layout is now.
      uint64_t tiles = g->layout.totalTiles;
      inFlightTiles[d.queue] = inFlightTiles[d.queue] - rs.tiles + tiles;
      queued[d.queue] = queued[d.queue] - rs.tiles + tiles;
      rs.tiles = tiles;
      uint64_t posted = inFlightTiles[d.queue] - deferredTiles(d.queue);
      if (posted && posted + tiles > maxTilesInFlight()) {
        // Room comes as posted runs finish (the kernel runs them: posting
        // launched it).
        lock.unlock();
        std::this_thread::yield();
        lock.lock();
        reapAll();
        if ((++spins & 1023) == 0)
          st = checkResident();
        continue;
      }
      st = fault.ok() ? backend->makeCurrent() : fault;
      if (st.ok())
        st = postEntry(d.index, rs.epoch, kRingOpSubmit, d.queue);
      if (!st.ok())
        break; // the rest fail below
    }
    deferred.erase(deferred.begin()); // the lock was held since front()
  }
  // What could not be posted (the ring stayed full, or a fault that did not
  // recover; a recovery has failed and cleared them already) fails now,
  // each with the reason: none stays queued with nothing to post it.
  if (!deferred.empty()) {
    Status notPosted = Status::error(
        st.code(), std::string("not posted when the ") +
                       (swapping ? "image swap" : "safe point") +
                       " ended: " + st.message());
    for (const Deferred &d : deferred)
      if (runs[d.index].busy)
        failOnHost(d.index, notPosted);
    deferred.clear();
  }
  quiesced = false;
  swapping = false;
  quiesceOwner = std::thread::id();
  if (st.ok() && relaunchNow && !launched && imageLoaded && fault.ok())
    st = relaunch();
  quiesceEnded.notify_all();
  return st;
}

Status Runtime::Impl::installImage(std::vector<char> &&bytes,
                                   ImageManifest &newManifest) {
  LaunchShape s;
  uint32_t threads = options.blockThreads, shared = 0;
  for (const ManifestTask &t : newManifest.tasks) {
    if (!options.blockThreads)
      threads = std::max(threads, (uint32_t)t.blockSize);
    shared = std::max(shared, (uint32_t)t.sharedBytes);
  }
  s.threads = threads ? threads : 256;
  s.sharedBytes = shared;
  int perSM = 0;
  Status st = backend->blocksPerMultiprocessor(s, perSM);
  if (!st.ok() || perSM < 1) {
    backend->discardImage();
    return Status::error(ErrorCode::BadImage,
                         "the resident kernel does not fit on a multiprocessor "
                         "with " + std::to_string(s.threads) + " threads and " +
                             std::to_string(shared) + " bytes of shared memory" +
                             (st.ok() ? "" : ": " + st.message()));
  }
  uint32_t sms = (uint32_t)std::max(1, backend->info().multiprocessors);
  uint32_t capacity = (uint32_t)perSM * sms;
  // workersPerSM 0: as many as fit, at most kAutoWorkersPerSM (the
  // simulator's "SMs" are one worker thread each: one).
  uint32_t want = options.workersPerSM;
  if (!want)
    want = backend->info().simulated
               ? 1u
               : std::min((uint32_t)perSM, RuntimeOptions::kAutoWorkersPerSM);
  uint32_t w = std::min(want, (uint32_t)perSM) * sms;
  w = std::min(w, capacity - 1); // the poller block must fit too
  w = std::min(w, maxBlocks - 1);
  if (w < 1) {
    backend->discardImage();
    return Status::error(ErrorCode::BadImage,
                         "no room for a worker block next to the poller");
  }
  // urgentSMs: however the blocks are placed, some worker must be on
  // another SM (the reserved ones hold at most urgentSMs * perSM blocks).
  if ((uint64_t)options.urgentSMs * (uint64_t)perSM > w) {
    backend->discardImage();
    return Status::error(ErrorCode::InvalidArgument,
                         "urgentSMs is " + std::to_string(options.urgentSMs) + ": " +
                             std::to_string(options.urgentSMs) + " SMs of up to " +
                             std::to_string(perSM) + " blocks each could hold all " +
                             std::to_string(w) + " workers of this image, leaving none "
                             "for the other priorities");
  }
  s.blocks = w + 1;
  backend->commitImage();
  bool reshape = s.blocks != shape.blocks || s.threads != shape.threads ||
                 s.sharedBytes != shape.sharedBytes;
  shape = s;
  workers = w;
  if (reshape || !controlWritten) {
    GPUOS_RETURN_IF_ERROR(writeControl());
    controlWritten = true;
  }
  manifest = std::move(newManifest);
  cubin = std::move(bytes);
  imageLoaded = true;
  return Status::success();
}

/// Re-uploads what run slot `index` of `g` needs after the layout changed:
/// root templates and the run row (counters only depend on the
/// dependencies, which a rebind keeps).
static Status refreshRunSlot(Runtime::Impl &m, GraphRecord &g, uint32_t index,
                             const GraphLayout &old, bool force) {
  RunSlot &rs = m.runs[index];
  std::vector<QueueEntry> roots = g.layout.rootEntries(g.blobDev, index, rs.countersDev);
  std::vector<QueueEntry> before = old.rootEntries(g.blobDev, index, rs.countersDev);
  if (!force && roots.size() == before.size() &&
      g.layout.gangTiles == old.gangTiles &&
      std::memcmp(roots.data(), before.data(), roots.size() * sizeof(QueueEntry)) == 0)
    return Status::success();
  if (roots.size() != before.size() || !rs.rootsDev) {
    if (rs.rootsDev)
      m.arena.release(rs.rootsDev);
    rs.rootsDev = 0;
    if (roots.size() > 1)
      GPUOS_RETURN_IF_ERROR(m.arenaAlloc(roots.size() * sizeof(QueueEntry), rs.rootsDev));
  }
  if (rs.rootsDev)
    GPUOS_RETURN_IF_ERROR(
        m.upload(rs.rootsDev, roots.data(), roots.size() * sizeof(QueueEntry)));
  RunRow row = g.layout.runRow(roots, rs.rootsDev);
  return m.upload(m.runTableDev + (uint64_t)index * sizeof(RunRow), &row, sizeof(row));
}

void Runtime::Impl::rebindGraphs() {
  LayoutLimits limits;
  limits.maxTilesPerGraph = maxTilesInFlight();
  for (auto &[id, g] : graphs) {
    if (g.lost)
      continue;
    GraphLayout next;
    Status st = buildGraphLayout(
        manifest, g.spec, [&](uint64_t p) { return capacityAt(p); }, limits, next);
    if (!st.ok()) {
      g.stale = invalid("graph " + std::to_string(id) +
                        " cannot run on the current image ('" +
                        manifest.contentHash + "'): " + st.message() +
                        "; destroy it, or load an image that has its kinds");
      continue;
    }
    bool wasStale = !g.stale.ok();
    GraphLayout old = std::move(g.layout);
    g.layout = std::move(next);
    if (g.layout.blobBytes() != old.blobBytes()) {
      arena.release(g.blobDev);
      st = arenaAlloc(g.layout.blobBytes(), g.blobDev);
      if (!st.ok()) {
        g.blobDev = 0;
        g.stale = st;
        g.lost = true;
        continue;
      }
      wasStale = true;
    }
    std::vector<uint8_t> blob = g.layout.blob(g.blobDev);
    if (wasStale || blob != old.blob(g.blobDev))
      st = upload(g.blobDev, blob.data(), blob.size());
    for (uint32_t index : g.runSlots)
      if (st.ok())
        st = refreshRunSlot(*this, g, index, old, wasStale);
    if (st.ok() && g.layout.runCounters() != old.runCounters())
      for (uint32_t index : g.runSlots) {
        std::vector<uint8_t> counters = g.layout.runCounters();
        if (st.ok())
          st = upload(runs[index].countersDev, counters.data(), counters.size());
      }
    g.stale = st;
  }
}

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

Status Runtime::loadImage(std::vector<char> cubin, ImageManifest manifest) {
  Impl &m = *impl_;
  std::unique_lock<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (cubin.empty())
    return invalid("the cubin is empty");
  if (manifest.tasks.empty())
    return Status::error(ErrorCode::BadImage, "the manifest lists no tasks");
  if (manifest.tasks.size() > 0xFFFF)
    return Status::error(ErrorCode::BadImage, "the manifest lists more than "
                                              "65535 kinds");
  const BackendInfo &info = m.backend->info();
  if (!info.simulated && !manifest.arch.empty()) {
    std::string arch = "sm_" + std::to_string(info.computeMajor) +
                       std::to_string(info.computeMinor);
    if (manifest.arch != arch)
      return Status::error(ErrorCode::BadImage,
                           "the image is for " + manifest.arch + ", the device is " +
                               arch);
  }
  auto us = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  auto t0 = Clock::now();
  GPUOS_RETURN_IF_ERROR(m.beginQuiesce(lock, true));
  auto t1 = Clock::now();
  bool hadImage = m.imageLoaded;
  // The module load runs without the lock: other threads' submissions are
  // queued on the host meanwhile, and nothing can resume the kernel.
  lock.unlock();
  uint32_t protocol = 0;
  Status st = m.backend->makeCurrent();
  if (st.ok())
    st = m.backend->loadImage(cubin, protocol);
  auto t2 = Clock::now();
  lock.lock();
  if (!st.ok()) {
    st = Status::error(ErrorCode::BadImage, st.message());
  } else if (protocol != kProtocolVersion) {
    m.backend->discardImage();
    st = Status::error(ErrorCode::BadImage,
                       "the image's runtime device library speaks protocol " +
                           std::to_string(protocol) + ", this runtime " +
                           std::to_string(kProtocolVersion) + "; relink the image");
  } else {
    st = m.installImage(std::move(cubin), manifest);
  }
  if (st.ok()) {
    m.rebindGraphs();
    if (hadImage)
      ++m.swaps;
  }
  // On failure the old image (if any) is still current and its graphs
  // are untouched: the queued submissions run on it.
  auto t3 = Clock::now();
  Status end = m.endQuiesce(lock, hadImage);
  m.lastSwap = {us(t0, t1), us(t1, t2), us(t2, t3), us(t3, Clock::now())};
  return st.ok() ? end : st;
}

Status Runtime::atSafePoint(const std::function<Status()> &action) {
  Impl &m = *impl_;
  std::unique_lock<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (!action)
    return invalid("atSafePoint: the action is empty");
  GPUOS_RETURN_IF_ERROR(m.beginQuiesce(lock, false));
  m.safePoint(); // deferred frees first: the action may want the memory
  lock.unlock();
  Status st;
  try {
    st = action();
  } catch (...) {
    st = Status::error(ErrorCode::InvalidArgument,
                       "atSafePoint: the action threw an exception");
  }
  lock.lock();
  Status end = m.endQuiesce(lock, false);
  return st.ok() ? end : st;
}

} // namespace gpuos::runtime
