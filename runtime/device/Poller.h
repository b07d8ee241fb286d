//===- Poller.h - the one reader of host memory -----------------*- C++ -*-===//
//
// Warp 0 of block 0 is the only code that reads host memory
// (PLATFORM-FACTS 3: every block polling PCIe saturates it). Each lane
// loads one 16-byte ring entry per round, so one PCIe round trip brings up
// to 32 submissions. For each submission the poller reads the run slot's row
// (device memory) and publishes the root ranges into the priority's root
// queue, of which it is the only producer: no atomic and, since it checks
// the next slot's freedom while idle, no wait on the submission path. A
// non-urgent run of more ranges than the warp has lanes goes in as one
// kExpandKind entry whose worker publishes the ranges (Worker.h,
// expandRun), so bulk work never holds up the ring, unless it is a short
// run on an idle GPU; a longer one on an idle GPU the poller splits: the
// first chunk's ranges itself, an expand entry for the rest (startRun).
// From then on the workers only touch device memory.
//
// Urgent runs of one task with one tile (the latency-critical case) are run
// by block 0 itself, right after the poll that found them (inlineUrgent):
// no queue, no second block. Ring polling pauses for that tile.
//
// The poll loop is one PCIe read long: bookkeeping that needs device-memory
// loads (forced stop, runs in flight, parking) runs every 8th empty poll.
//
// Parking: see Park.h.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DEVICE_POLLER_H
#define GPUOS_DEVICE_POLLER_H

#include "Park.h"
#include "ReadyQueue.h"
#include "Worker.h"

namespace gpuos::dev {

/// The poller's private state: the next position of each root queue (it is
/// their only producer) and whether that slot is already known to be free.
struct PollerState {
  uint64_t next[kNumPriorities];
  uint32_t knownFree; // bit p: the first publish chunk from next[p] seen
                      // free, each slot by the lane that writes it, with
                      // an acquire load (slotsSeenFree)
};

/// The configuration the poller needs on its path, read once per launch
/// (the host writes it only while the kernel is parked). Read from the
/// control block instead, each would be a load after every acquire fence
/// (which empties the L1), i.e. an L2 round trip in series on the path
/// from the ring to the completion.
struct PollerConfig {
  const RingEntry *ring;
  HostShared *hs;
  const RunRow *runTable;
  uint32_t *completion;
  TraceSlot *trace;
  uint32_t ringMask, traceMask;
  uint32_t workers; // the most members a gang may have
  bool inlineUrgent, acquireGpu, settle, gang;
  // urgentSMs: a gang has at most as many members as urgent-only workers
  // (urgentWorkers): each member's tiles wait for it, and the others may be
  // inside background tiles.
  bool urgentSMs;
  // Urgent runs through the queues are counted in urgentInFlight
  // (urgentExclusive, or the gang policy kGangUrgentAlone reads it).
  bool countUrgent;
  // The counter that must be 0 for an urgent run to start as a gang.
  const uint32_t *gangBusy;

  GPUOS_DEV void load(const DeviceControl *c) {
    ring = reinterpret_cast<const RingEntry *>(c->ring);
    hs = reinterpret_cast<HostShared *>(c->hostShared);
    runTable = reinterpret_cast<const RunRow *>(c->runTable);
    completion = reinterpret_cast<uint32_t *>(c->completion);
    trace = reinterpret_cast<TraceSlot *>(c->trace);
    ringMask = c->ringMask;
    traceMask = c->traceMask;
    inlineUrgent = c->inlineUrgent != 0;
    acquireGpu = c->ringAcquireGpu != 0;
    settle = c->settleAfterInline != 0;
    gang = c->gangPolicy != kGangOff;
    urgentSMs = c->urgentSMs != 0;
    countUrgent = countsUrgentRuns(c);
    gangBusy = c->gangPolicy == kGangOneAtATime    ? &c->gangsInFlight.value
               : c->gangPolicy == kGangUrgentAlone ? &c->urgentInFlight.value
                                                   : &c->runsInFlight.value;
    workers = c->numBlocks > 1 ? c->numBlocks - 1 : 1;
  }
};

/// The poller block's view of an inline job, and thread 0's statistics
/// (they live across the inline tile's gpuos_dispatch, an ABI call); on the
/// GPU this is __shared__.
struct PollerShared {
  QueueEntry job;
  uint32_t inlineJob;
  uint32_t exit;
  BlockCounters counters; // thread 0's
};

/// Loads a line into the L1 (no-op in the simulator): the inline tile's
/// argument block, while the block is still at its barriers.
GPUOS_DEV void prefetchL1(uint64_t addr) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L1 [%0];" ::"l"(addr));
#else
  (void)addr;
#endif
}

/// Starts one run: the row (and, speculatively, its first root template)
/// in one round of loads, then either the root tiles into the priority's
/// root queue, or, for an urgent run that finds no other in flight, its
/// gang members (gangPolicy), or, for an urgent run of one task with one
/// tile when inlineUrgent is set and `lastSeen` (no entry the poller has
/// read waits behind it), the job into `sh` for block 0 to run itself
/// (true). All lanes of the warp call it with the same entry.
template <typename Warp>
GPUOS_DEV bool startRun(DeviceControl *c, const PollerConfig &cfg, const Warp &w,
                        const RingEntry &e, bool lastSeen, PollerState &ps,
                        PollerShared &sh, uint64_t *steps) {
  const RunRow *row = cfg.runTable + e.run;
  uint32_t prio = ringPriority(e);
  if (prio >= kNumPriorities)
    prio = kPriorityBackground;
  uint32_t q = rootQueue(prio);
  // The row's counts and (lane 0, speculatively) its first root template in
  // one round of independent loads: one L2 round trip, not two.
  // An urgent run may start as a gang (Worker.h, "Gangs"): every lane then
  // needs the template, and whether another run (kGangOneAtATime: another
  // gang; kGangUrgentAlone: another urgent run) is in flight; this lane's
  // own increments of those counters come before this load (same address).
  // A non-urgent run reads instead whether any other run is in flight
  // (expansion, below).
  bool mayGang = cfg.gang && prio == kPriorityUrgent;
  uint32_t n = ldcg(&row->numRootEntries);
  uint32_t numTasks = ldcg(&row->numTasks);
  uint32_t rootTiles = ldcg(&row->rootTiles);
  uint32_t gangTiles = mayGang ? ldcg(&row->gangTiles) : 0u;
  uint32_t busy = mayGang                   ? ldRelaxed(cfg.gangBusy)
                  : prio != kPriorityUrgent ? ldRelaxed(&c->runsInFlight.value)
                                            : 1u;
  uint32_t members = mayGang && cfg.urgentSMs ? ldRelaxed(&c->urgentWorkers.value)
                                              : 0u;
  busy = w.broadcast(busy); // one decision for every lane (publishEntries)
  members = w.broadcast(members);
  QueueEntry t; // every lane: the entries of one root task are made from it
  readPayload(&row->first, t);
  const bool seenFree = (ps.knownFree >> prio & 1u) != 0;
  if (steps) // tracing: the row's loads returned (broadcast waited for busy)
    steps[0] = cycles();
  uint64_t p0 = ps.next[prio];
  bool gang = gangTiles != 0 && busy == 0u;
  // Only the last entry of the ring read runs inline: the poller stops
  // reading while its tile runs, so an entry behind it in the same read
  // would wait for that tile, and back-to-back calls of one graph would run
  // one at a time on block 0 instead of on every worker.
  bool inlined = n == 1 && prio == kPriorityUrgent && numTasks == 1 &&
                 cfg.inlineUrgent && lastSeen;
  // A non-urgent run of more ranges than one round of the lanes: one
  // entry, and a worker publishes the ranges (Protocol.h, kExpandKind), so
  // that an urgent entry behind it in the ring does not wait for them (on a
  // loaded GPU, 50 us for 768 ranges). Except on an idle GPU:
  // - a short run (ranges that fit one checked-free publish chunk and, one
  //   root task, of at most two tiles each) the poller publishes itself in
  //   a few microseconds, where the hop through a worker cost ~7 us of the
  //   run's latency (long ranges were measured slower without the hop:
  //   docs/runtime.md, "Expansion only beside other runs");
  // - a run of more ranges than the chunk is split: the chunk holds an
  //   expand entry for the ranges past it, first so that the first worker
  //   to pick takes it, and the first ranges, which the other workers start
  //   on while it publishes the rest (docs/runtime.md, "Idle runs of more
  //   ranges than a chunk").
  // (Several root tasks: rootTiles is 0, and at most 256 ranges means every
  // range is one tile: a root of more tiles than kRootRanges alone has
  // kRootRanges ranges; the static_assert keeps that true.)
  static_assert(kPublishChunk * 32 <= kRootRanges,
                "a short run of several root tasks must have one-tile ranges");
  const uint32_t chunk = kPublishChunk * w.width();
  bool shortRun = n <= chunk && rootTiles <= 2u * n;
  bool split = prio != kPriorityUrgent && busy == 0u && n > chunk;
  bool expand = prio != kPriorityUrgent && n > w.width() && !split &&
                (busy != 0u || !shortRun);
  if (prio == kPriorityUrgent && cfg.countUrgent && !inlined && w.lane() == 0) {
    // Counted before its tiles are visible (the publish below releases
    // both) until its completion uncounts it (Worker.h, uncountUrgent):
    // with urgentExclusive workers hold back other work meanwhile, and
    // kGangUrgentAlone starts no gang. Runs block 0 runs itself take no
    // worker.
    stRelaxed(&reinterpret_cast<RunCounters *>(t.counters)->urgent, 1u);
    atomicAddRelaxed(&c->urgentInFlight.value, 1u);
  }
  if (gang) {
    // One entry per member (Worker.h, gangSeek: which tiles each runs),
    // counted in flight before any member can complete the run.
    // With urgentSMs, the urgent-only workers counted so far (none yet
    // right after a launch: then every worker, as without the option).
    uint32_t most = members != 0u && members < cfg.workers ? members : cfg.workers;
    n = gangTiles < most ? gangTiles : most;
    if (w.lane() == 0)
      atomicAddRelaxed(&c->gangsInFlight.value, 1u);
    uint32_t epoch = e.epoch;
    publishEntries(nullptr, q, p0, n, w, [&](uint32_t i, QueueEntry &out) {
      out = t;
      out.kind = kGangKind;
      out.tile = i;
      out.numTiles = n;
      out.rangeExtra = 0;
      out.epoch = (uint16_t)epoch;
    }, seenFree);
  } else if (n == 1 || expand) {
    if (w.lane() == 0) {
      t.epoch = (uint16_t)e.epoch;
      if (expand) {
        t.kind = kExpandKind;
        t.args = reinterpret_cast<uint64_t>(row);
        t.numTiles = n;
        t.tile = 0;
        t.rangeExtra = 0;
      }
      if (inlined) {
        prefetchL1(t.args);
        sh.job = t;
        sh.inlineJob = 1;
      } else {
        QueueEntry *slot = slotOf(q, p0);
        if (!seenFree) {
          while (ldObserve(&slot->seq) != (uint32_t)p0)
            spinPause();
          fenceGpu(); // acquire: the previous lap's consumer is done with it
        } // else: seen free by this lane with an acquire (slotsSeenFree)
        writePayload(slot, t);
        fenceGpu(); // release the payload
        stPublish(&slot->seq, (uint32_t)(p0 + 1));
      }
    }
    if (inlined)
      return true;
    n = 1; // the expand entry's one position
  } else if (split) {
    // One publish chunk (seen free while idle, or checked now): first an
    // expand entry for the ranges past it (the first worker to pick takes
    // it), then the first chunk - 1 ranges. The chunk never laps the
    // queue: chunk < n <= a graph's tiles <= queueCapacity / 2.
    const QueueEntry *templates =
        rootTiles ? nullptr
                  : reinterpret_cast<const QueueEntry *>(ldcg(&row->rootEntries));
    const uint32_t ranges = n, direct = chunk - 1;
    const uint16_t epoch = (uint16_t)e.epoch;
    publishEntries(nullptr, q, p0, chunk, w, [&](uint32_t i, QueueEntry &out) {
      if (i == 0) {
        out = t;
        out.kind = kExpandKind;
        out.args = reinterpret_cast<uint64_t>(row);
        out.tile = direct; // ranges direct .. ranges - 1
        out.numTiles = ranges - direct;
        out.rangeExtra = 0;
        out.epoch = epoch;
      } else {
        rootRange(t, templates, rootTiles, ranges, i - 1, epoch, out);
      }
    }, seenFree);
    n = chunk;
  } else if (rootTiles) {
    // One root task: its ranges are `first` split evenly (as the host's
    // templates are), with no template read in series before the writes.
    const uint16_t epoch = (uint16_t)e.epoch;
    publishEntries(nullptr, q, p0, n, w, [&](uint32_t i, QueueEntry &out) {
      rootRange(t, nullptr, rootTiles, n, i, epoch, out);
    }, seenFree);
  } else {
    const QueueEntry *templates =
        reinterpret_cast<const QueueEntry *>(ldcg(&row->rootEntries));
    const uint16_t epoch = (uint16_t)e.epoch;
    publishEntries(nullptr, q, p0, n, w, [&](uint32_t i, QueueEntry &out) {
      rootRange(t, templates, 0, n, i, epoch, out);
    }, seenFree);
  }
  if (steps)
    steps[1] = cycles(); // this lane's entries are written and published
  ps.next[prio] = p0 + n;
  ps.knownFree &= ~(1u << prio);
  w.sync();
  if (w.lane() == 0) {
    // Workers take tickets below reserve; the slots are published already.
    stRelaxed(&c->queues[q].reserve.value, p0 + n);
    // After publishing, off the critical path. A fast run may decrement
    // first; the count then wraps for a moment, which reads as busy.
    atomicAddRelaxed(&c->runsInFlight.value, 1u);
  }
  return false;
}

/// While idle (all lanes): learn whether the first publish chunk of each
/// root queue is free, so that the next submission need not wait for those
/// loads and their fence (publishEntries' seenFree).
template <typename Warp>
GPUOS_DEV void precheckRootSlots(PollerState &ps, const Warp &w) {
  for (uint32_t p = 0; p < kNumPriorities; ++p)
    if (!(ps.knownFree >> p & 1u) && slotsSeenFree(rootQueue(p), ps.next[p], w))
      ps.knownFree |= 1u << p;
}

/// Warp 0's state between poll steps.
struct PollerLoop {
  PollerState ps;
  uint64_t head;
  uint64_t reported; // last value written to hs->ringHead
  uint64_t lastActive;
  RingEntry batch;   // this lane's entry of the last ring read
  uint32_t n, i;     // valid entries in the batch, next to process
  uint32_t idle;     // empty polls since the last entry
  bool parkRequested;
  LaunchTicket ticket; // this launch's: which stream-ordered entries it takes
  PollerConfig cfg;
  // Tracing (cfg.trace): lane 0's cycles of the read that found the batch.
  uint64_t tIssue, tSeen, tAcquired, tSeenNs, tRow;
  uint64_t tSteps[2]; // startRun's: row read, entries published
  uint32_t traced;   // records written
};

/// Diagnostics: the poller's next trace slot for run `run`, with what every
/// record holds (the globaltimer and the SM cycles of the ring read that
/// found it, whether it was queued: TraceRecord::queued); the caller adds
/// the steps of its kind.
GPUOS_DEV TraceSlot *openPollRecord(PollerLoop &L, uint32_t run,
                                    uint32_t epoch, bool queued) {
  TraceSlot *t = L.cfg.trace + (L.traced++ & L.cfg.traceMask);
  t->run = run;
  t->epoch = epoch;
  t->seenNs = L.tSeenNs;
  t->cycles[0] = L.tIssue;
  t->cycles[1] = L.tSeen;
  t->cycles[2] = L.tAcquired;
  t->pad[0] = queued ? 1 : 0;
  return t;
}

/// Diagnostics (lane 0): the record of a run published to the queues,
/// up to its publication (no tile, no completion).
GPUOS_DEV_OUTLINE void traceQueued(PollerLoop &L, const RingEntry &e) {
  // Lane 0's stamps: its entries are a share of the publication.
  uint64_t published = cycles();
  TraceSlot *t = openPollRecord(L, e.run, e.epoch, true);
  t->cycles[3] = L.tSteps[0];
  t->cycles[4] = L.tSteps[1];
  t->cycles[5] = published;
  t->cycles[6] = t->cycles[7] = 0;
}

/// One step of warp 0: read the ring (unless entries of the last read are
/// still pending) and start what is there; stop at an inline job. While
/// idle, the bookkeeping that needs device-memory loads (forced stop, runs
/// in flight, parking) runs every 8th poll only, so the poll loop is one
/// PCIe read long and new entries are seen sooner.
template <typename Warp>
GPUOS_DEV void pollStep(DeviceControl *c, const Warp &w, PollerLoop &L,
                        PollerShared &sh) {
  const RingEntry *ring = L.cfg.ring;
  HostShared *hs = L.cfg.hs;
  if (w.lane() == 0) {
    sh.inlineJob = 0;
    sh.exit = 0;
  }
  if (L.i >= L.n) {
    uint64_t pos = L.head + w.lane();
    uint64_t issued = L.cfg.trace ? cycles() : 0;
    // Each lane acquires its entry (ldRingEntry); the PTX model asks for
    // system scope, ringAcquireGpu (opt-in) uses GPU scope: everything the
    // host wrote is device memory it copied (and synchronized) before the
    // ring store, already in L2.
    L.batch = ldRingEntry(ring + (pos & L.cfg.ringMask), L.cfg.acquireGpu);
    L.n = w.leadingTrue(ringEntryValid(L.batch, (uint32_t)(pos + 1)));
    L.i = 0;
    if (L.n) {
      if (L.cfg.trace) {
        L.tIssue = issued;
        L.tSeen = cycles();
        L.tSeenNs = nowNs();
      }
      // Entry i is lane i's acquire, and every lane works on every entry:
      // the warp barrier (it orders memory among the lanes) puts each
      // lane's later accesses after all the lanes' acquires.
      w.sync();
      if (L.cfg.trace)
        L.tAcquired = cycles();
    }
  }
  uint32_t taken = L.i;
  bool held = false; // stopped at a stream-ordered entry of a later launch
  while (L.i < L.n) {
    RingEntry e = w.shuffle(L.batch, L.i);
    if (ringEntryHeld(e, L.ticket)) {
      L.n = L.i; // the launch that releases it reads the ring from here
      held = true;
      break;
    }
    ++L.i;
    ++L.head;
    if (ringOp(e) != kRingOpPark) { // a submission, stream-ordered or not
      if (startRun(c, L.cfg, w, e, L.i == L.n, L.ps, sh,
                   L.cfg.trace ? L.tSteps : nullptr)) {
        if (L.cfg.trace)
          L.tRow = cycles();
        break; // run it now (the last entry of its read)
      }
      if (L.cfg.trace && w.lane() == 0)
        traceQueued(L, e);
    } else {
      L.parkRequested = true;
    }
  }
  if (L.i != taken) {
    L.idle = 0;
    if (w.lane() == 0 && L.head - L.reported >= 256) {
      stRelaxedSys(&hs->ringHead, L.head); // flow control, when busy
      L.reported = L.head;
    }
    L.lastActive = nowNs();
    return;
  }
  // Idle: nothing in the ring, or a stream-ordered entry of a later launch
  // (held). That launch is queued behind this one on the kernel's stream,
  // so this one parks as soon as nothing is in flight; so does a launch
  // whose caller's stream waits for it to end (parkWhenIdle).
  uint32_t stop = 0;
  if (w.lane() == 0) {
    if (L.head != L.reported) {
      // Flow control for the host, written while idle so that no system
      // store is outstanding when the next entry's fence.sys comes.
      stRelaxedSys(&hs->ringHead, L.head);
      L.reported = L.head;
    }
    // A park asked for (or due) is tried every step.
    bool parkNow = L.parkRequested || held || L.ticket.parkWhenIdle;
    if ((++L.idle & 7) == 0 || parkNow) {
      uint64_t now = nowNs();
      if (ldRelaxed(&c->stop.value) != 0u)
        stop = 1; // the host forced a stop (teardown after a failure)
      else if (ldRelaxed(&c->runsInFlight.value) != 0u)
        L.lastActive = now;
      else if (parkNow || (c->idleNs && now - L.lastActive >= c->idleNs)) {
        if (tryPark(c, hs, ring, L.head, L.ticket))
          stop = 1;
        else
          L.lastActive = now;
      }
    }
    sh.exit = stop;
  }
  if (L.ps.knownFree != (1u << kNumPriorities) - 1)
    precheckRootSlots(L.ps, w);
  spinPause();
}

/// Diagnostics (thread 0, after the completion store): when did the store
/// perform, and the record of this inline singleton. Off the measured path
/// except for the fence, which delays the next poll.
GPUOS_DEV_OUTLINE void traceInline(PollerLoop &L, const QueueEntry &job,
                                   uint64_t tStart, uint64_t tEnd) {
  uint64_t issued = cycles();
  fenceSysSc();
  uint64_t performed = cycles();
  TraceSlot *t = openPollRecord(L, job.run, job.epoch, false);
  t->cycles[3] = L.tRow;
  t->cycles[4] = tStart;
  t->cycles[5] = tEnd;
  t->cycles[6] = issued;
  t->cycles[7] = performed;
}

/// Block 0: warp 0 polls; the whole block runs inline jobs. Two barriers
/// per step: after the first everyone reads the step's decision, after the
/// second warp 0 may overwrite it.
template <typename Warp, typename Block, typename Dispatch>
GPUOS_DEV void pollerMain(DeviceControl *c, LaunchTicket ticket, const Warp &w,
                          const Block &block, PollerShared &sh, Dispatch dispatch) {
  const bool poller = block.tid() < w.width();
  BlockCounters &counters = sh.counters;
  if (block.tid() == 0) {
    // First: workers with urgentSMs wait for it (Worker.h, "Urgent SMs").
    stRelaxed(&c->pollerSm.value, smId(0u) + 1u);
    counters.open(c, 0);
    openQueueView(c);
  }
  block.sync(); // the queue view, before warp 0's first slot access
  PollerLoop L;
  if (poller) {
    L.cfg.load(c);
    L.traced = 0;
    L.tIssue = L.tSeen = L.tAcquired = L.tSeenNs = L.tRow = 0;
    L.head = ldRelaxed(&c->ringHead.value);
    L.reported = L.head;
    L.lastActive = nowNs();
    L.n = L.i = L.idle = 0;
    L.parkRequested = false;
    L.ticket = ticket;
    for (uint32_t p = 0; p < kNumPriorities; ++p)
      L.ps.next[p] = ldRelaxed(&c->queues[rootQueue(p)].reserve.value);
    L.ps.knownFree = 0;
  }
  JobRecord *record = reinterpret_cast<JobRecord *>(c->jobs);
  for (;;) {
    if (poller)
      pollStep(c, w, L, sh);
    block.sync();
    uint32_t exit = sh.exit, inl = sh.inlineJob;
    uint32_t kind = sh.job.kind, tile = sh.job.tile;
    uint64_t args = sh.job.args;
    block.sync();
    if (exit)
      break;
    if (inl) {
      uint64_t tStart = 0;
      if (block.tid() == 0) {
        recordJob(record, sh.job);
        counters.begin();
        tStart = counters.tileStart;
      }
      int rc = dispatch(kind, reinterpret_cast<const unsigned char *>(args), tile);
      block.sync();
      if (block.tid() == 0) {
        uint64_t ended = cycles();
        counters.counted();
        // completeSingleton's common case without the call.
        if (rc == 0)
          stReleaseSys(L.cfg.completion + sh.job.run,
                       (sh.job.epoch & 0xFFFFu) | (kStatusOk << 16));
        else
          completeSingleton(L.cfg.completion, sh.job, rc);
        if (L.cfg.trace)
          traceInline(L, sh.job, tStart, ended); // includes the fence below
        else if (L.cfg.settle)
          fenceSysSc(); // see RuntimeOptions::settleAfterInline
        counters.end(ended);
        stJobRecord(record, 0u, 0u, 0u, 0u);
      }
    }
  }
  if (block.tid() == 0) {
    stRelaxed(&c->ringHead.value, L.head);
    stRelaxedSys(&reinterpret_cast<HostShared *>(c->hostShared)->ringHead, L.head);
    counters.close();
    blockExit(c);
  }
}

} // namespace gpuos::dev

#endif // GPUOS_DEVICE_POLLER_H
