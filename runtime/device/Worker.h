//===- Worker.h - worker blocks: run tiles, resolve dependencies -*- C++ -*-===//
//
// Every block but block 0 is a worker. Its thread 0 schedules (pickJob),
// the whole block runs the tile (gpuos_dispatch, the ABI's one-block call),
// and thread 0 finishes it. An entry is a range of tiles (Protocol.h): the
// block runs them one after the other; before each next tile thread 0
// looks at the queues (scanAtBoundary) and gives the rest of the range
// back when higher-priority work waits, or splits off the upper half when
// a worker is idle and its priority's queues are empty. The range's tiles
// are counted once, after its last tile (step 2). Finishing a tile:
//
//   0. a run of one task with one tile completes at once: one
//      st.release.sys of the completion word, no counters (fast path);
//   1. fence (release): the block's writes, ordered before thread 0 by the
//      barrier, are visible GPU-wide before any counter says "done"; the
//      queue slot it came from is freed under the same fence;
//   2. multi-tile task: atomicAdd on tilesDone[task] (of all the tiles the
//      block ran of the range, after its last one); the block that brings
//      it to numTiles finished the task, resets the counter, and fences
//      (acquire) so it has seen every other tile's writes;
//   3. each successor: one with a single dependency is ready at once; the
//      others count down depsLeft[s], and whoever reaches zero resets it
//      and fences (acquire: every predecessor's writes). A ready successor
//      is published into its priority's shared queue, except that the
//      first one-tile successor is kept and run next by this block
//      (a continuation) unless higher-priority work is waiting by then;
//   4. atomicAdd(-1) on tasksLeft; whoever reaches zero resets the run's
//      counters and writes the completion word with st.release.sys. A
//      failing tile sets tasksLeft's top bit, so this last decrement also
//      learns whether the run failed.
//
// Counters are relaxed atomics in device memory with explicit fences around
// them (on the GPU one fence can cover a batch; atomicAddOrdered/stPublish
// name the pairing, Platform.h); the release/acquire chain runs tile ->
// task -> successor -> ... -> completion, so the host that sees the
// completion word sees every output.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DEVICE_WORKER_H
#define GPUOS_DEVICE_WORKER_H

#include "Park.h"
#include "ReadyQueue.h"

namespace gpuos::dev {

/// The block's view of the job; on the GPU this is __shared__.
struct WorkerShared {
  Pick pick;
  uint32_t stop;
};

GPUOS_DEV uint32_t *depsLeftOf(RunCounters *r) {
  return reinterpret_cast<uint32_t *>(r + 1);
}
GPUOS_DEV uint32_t *tilesDoneOf(RunCounters *r, uint32_t numTasks) {
  return depsLeftOf(r) + numTasks;
}

/// A tile's dispatch returned non-zero (an unknown kind, or a task's own
/// error): flag the run failed and record the run's first such error.
GPUOS_DEV_OUTLINE void recordFailure(RunCounters *r, const QueueEntry &job,
                                     int rc) {
  // Seen by whoever makes the last decrement of tasksLeft (this tile's own
  // decrements, and so the flag, come before it in the counter's order).
  atomicOrRelaxed(&r->tasksLeft, kRunFailedBit);
  if (atomicCasRelaxed(&r->errorClaim, 0u, 1u) != 0u)
    return;
  stRelaxed(&r->error.code, (uint32_t)rc);
  stRelaxed(&r->error.kind, job.kind);
  stRelaxed(&r->error.task, job.task);
  stRelaxed(&r->error.tile, job.tile);
  stRelaxed(&r->error.run, job.run);
  stRelaxed(&r->error.epoch, (uint32_t)job.epoch);
  // Ordered before the completion store (a release at system scope); the
  // host reads the record after it saw the failed completion.
}

/// The run's last task finished: restore the counters for the next run of
/// this slot, then tell the host. The host reuses the slot only after it
/// has seen this store, so the resets cannot race with the next run.
GPUOS_DEV_OUTLINE void completeRun(DeviceControl *c, RunCounters *r,
                           const QueueEntry &job, bool failed) {
  fenceGpu(); // acquire: every task's decrement (and writes) before ours
  stRelaxed(&r->tasksLeft, job.numTasks);
  if (failed)
    stRelaxed(&r->errorClaim, 0u); // the record itself stays for the host
  uint32_t status = failed ? kStatusFailed : kStatusOk;
  uint32_t *completion = reinterpret_cast<uint32_t *>(c->completion) + job.run;
  stReleaseSys(completion, (job.epoch & 0xFFFFu) | (status << 16));
  atomicAddRelaxed(&c->runsInFlight.value, ~0u); // after: park drains on it
}

/// A run of one task with one tile, finished by the block that ran it
/// (thread 0, after the barrier): the completion store is a release at
/// system scope, which covers the block's writes the barrier ordered
/// before it. No counter is touched, except to clear a failure.
GPUOS_DEV_OUTLINE void completeSingleton(uint32_t *completionWords,
                                         const QueueEntry &job, int rc) {
  if (rc != 0) {
    RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
    recordFailure(r, job, rc);
    stRelaxed(&r->tasksLeft, job.numTasks); // clear the failure bit
    stRelaxed(&r->errorClaim, 0u);
  }
  stReleaseSys(completionWords + job.run,
               (job.epoch & 0xFFFFu) |
                   ((rc != 0 ? kStatusFailed : kStatusOk) << 16));
}

/// Releases the successors of a finished task and publishes the tiles of
/// those that became ready. A successor with one dependency (this task) is
/// ready now and needs no counter; others count down depsLeft. Thread 0
/// only (it owns the inbox).
GPUOS_DEV_OUTLINE bool releaseSuccessors(DeviceControl *c, Inbox *inbox,
                                          const QueueEntry &job, uint32_t q,
                                          QueueEntry *cont) {
  bool kept = false;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  const TaskDesc *succ =
      reinterpret_cast<const TaskDesc *>(job.graph) + job.numTasks + job.succOffset;
  uint32_t *depsLeft = depsLeftOf(r);
  uint32_t sq = sharedQueue(priorityOfQueue(q));
  for (uint32_t i = 0; i < job.numSucc; ++i) {
    TaskDesc d = ldcgTask(succ + i);
    if (d.numDeps > 1) {
      if (atomicAddOrdered(depsLeft + d.index, ~0u) != 1u)
        continue;
      stRelaxed(depsLeft + d.index, d.numDeps);
      fenceGpu(); // acquire: the other predecessors' writes
    }
    QueueEntry e = job;
    e.task = d.index;
    e.kind = d.kind;
    e.args = d.args;
    e.numTiles = d.numTiles;
    e.numSucc = d.numSucc;
    e.succOffset = d.succOffset;
    if (cont && !kept && d.numTiles == 1) {
      // Keep it: this block runs it next (see workerMain), unless
      // higher-priority work is waiting by then.
      e.tile = 0;
      *cont = e;
      kept = true;
      continue;
    }
    // A few ranges (Protocol.h: kSuccessorRanges), not one entry per tile:
    // the workers that take them split them further while others idle.
    uint32_t parts = rangeCount(d.numTiles, kSuccessorRanges);
    uint64_t p0 = reservePositions(c, sq, parts);
    publishEntries(c, inbox, sq, p0, 0, parts, 1,
                   [&](uint32_t i, QueueEntry &out) {
                     uint32_t first = 0, count = 0;
                     rangePart(d.numTiles, parts, i, first, count);
                     out = e;
                     out.tile = first;
                     out.rangeExtra = (uint16_t)(count - 1);
                   });
  }
  return kept;
}

/// Publishes tiles first .. first + count - 1 of `job`'s task as one range
/// into queue q (a split, or the rest of a range given back).
GPUOS_DEV_OUTLINE void publishRange(DeviceControl *c, Inbox *inbox,
                                    const QueueEntry &job, uint32_t q,
                                    uint32_t first, uint32_t count) {
  uint64_t p0 = reservePositions(c, q, 1);
  publishEntries(c, inbox, q, p0, 0, 1, 1, [&](uint32_t, QueueEntry &out) {
    out = job;
    out.tile = first;
    out.rangeExtra = (uint16_t)(count - 1);
  });
}

/// What a worker inside a range sees at a tile boundary (scanAtBoundary).
constexpr uint32_t kHigherWaiting = 1; // leave the range: work of a higher
                                       // priority waits, or an entry of
                                       // its own priority that only this
                                       // worker holds (its inbox)
constexpr uint32_t kPeersIdle = 2;     // both queues of its priority
                                       // empty, and some worker idle

/// One round of independent loads: the queues of higher priority than
/// queue q (as higherPriorityWaiting), this worker's inbox entries of q's
/// priority (taken, or owed and published: nobody else can run them, so
/// they must not wait for a whole range), and whether q's priority has no
/// queued work left (then idle workers may want half of this range).
GPUOS_DEV_OUTLINE uint32_t scanAtBoundary(const DeviceControl *c,
                                          const Inbox *inbox, uint32_t q) {
  uint32_t own = rootQueue(priorityOfQueue(q));
  uint64_t head[kNumQueues], reserve[kNumQueues];
  uint32_t seen[kNumQueues];
  uint32_t idle = ldRelaxed(&c->idleWorkers.value);
  for (uint32_t h = 0; h < own + 2; ++h) {
    if (inbox[h].state == kInboxOwed)
      seen[h] = ldObserve(&slotOf(c, h, inbox[h].ticket)->seq);
    if (h >= own || inbox[h].state != kInboxOwed) {
      head[h] = ldRelaxed(&c->queues[h].head.value);
      reserve[h] = ldRelaxed(&c->queues[h].reserve.value);
    }
  }
  uint32_t out = 0;
  for (uint32_t h = 0; h < own + 2; ++h) {
    bool held = inbox[h].state == kInboxTaken ||
                (inbox[h].state == kInboxOwed &&
                 seen[h] == (uint32_t)(inbox[h].ticket + 1));
    if (held || (h < own && inbox[h].state != kInboxOwed &&
                 head[h] < reserve[h]))
      out |= kHigherWaiting;
  }
  // idleWorkers is a hint, not a count to trust: it wraps for a moment
  // when a decrement passes an increment.
  if (idle != 0u && idle < 0x80000000u && head[own] >= reserve[own] &&
      head[own + 1] >= reserve[own + 1])
    out |= kPeersIdle;
  return out;
}

/// A block's position inside a range (thread 0's registers): the tiles of
/// the range after the current one, and the tiles of the task it ran and
/// has not counted in tilesDone yet (counted once, at the range's end).
struct RangeState {
  uint32_t left;
  uint32_t uncounted;
};

/// Splitting: give the upper half of what is left of the range to idle
/// workers when some worker is idle and the queues of its priority are
/// empty (lazy binary splitting, with an idle hint: busy workers never
/// split, so a steady state of full ranges costs no publishes). With one
/// tile left there is nothing to split: publishing it would cost about
/// what running it does.
constexpr uint32_t kMinSplitLeft = 2;

GPUOS_DEV void maybeSplit(DeviceControl *c, Inbox *inbox, const Pick &pick,
                          RangeState &range, uint32_t look) {
  if (!(look & kPeersIdle) || range.left < kMinSplitLeft)
    return;
  uint32_t give = (range.left + 1) / 2;
  range.left -= give;
  publishRange(c, inbox, pick.job,
               sharedQueue(priorityOfQueue(pick.queue)),
               pick.job.tile + 1 + range.left, give);
}

/// Counts the tiles this block ran of a task it leaves before the task's
/// last tile (a range given back): never the task's last count, since the
/// tiles given back are not counted yet.
GPUOS_DEV_OUTLINE void countUncounted(const QueueEntry &job,
                                      uint32_t uncounted) {
  if (!uncounted)
    return;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  uint32_t *done = tilesDoneOf(r, job.numTasks) + job.task;
  fenceGpu(); // release: the tiles' writes
  atomicAddOrdered(done, uncounted);
}

/// A tile of a range with more tiles to follow on this block: nothing to
/// count yet (the caller counts it in its registers); the slot the range
/// came from is freed after its first tile.
GPUOS_DEV_OUTLINE void finishRangeTile(DeviceControl *c, const Pick &pick,
                                       int rc) {
  if (rc != 0)
    recordFailure(reinterpret_cast<RunCounters *>(pick.job.counters), pick.job,
                  rc);
  if (pick.mustFree) {
    fenceGpu(); // release: our reads of the slot
    freeSlot(c, pick.queue, pick.pos);
  }
}

/// Publishes a kept successor after all (higher-priority work came first).
GPUOS_DEV_OUTLINE void publishKept(DeviceControl *c, Inbox *inbox,
                                   const QueueEntry &e, uint32_t q) {
  uint64_t p0 = reservePositions(c, q, 1);
  publishEntries(c, inbox, q, p0, 0, 1, 1,
                 [&](uint32_t, QueueEntry &out) { out = e; });
}

/// Is there work of a priority strictly higher than queue q's waiting for
/// this worker (an entry it took or owes, or a non-empty queue)?
GPUOS_DEV_OUTLINE bool higherPriorityWaiting(const DeviceControl *c,
                                             const Inbox *inbox, uint32_t q) {
  uint32_t end = rootQueue(priorityOfQueue(q));
  for (uint32_t h = 0; h < end; ++h) {
    if (inbox[h].state == kInboxTaken)
      return true;
    if (inbox[h].state == kInboxOwed) {
      if (ldObserve(&slotOf(c, h, inbox[h].ticket)->seq) ==
          (uint32_t)(inbox[h].ticket + 1))
        return true;
    } else if (ldRelaxed(&c->queues[h].head.value) <
               ldRelaxed(&c->queues[h].reserve.value)) {
      return true;
    }
  }
  return false;
}

/// Returns true when it kept a ready successor in `cont` for this block.
/// `uncounted`: tiles of this task the block ran before this one (the rest
/// of a range; finishRangeTile counted none of them), added to tilesDone
/// with this tile's in one atomic. The range state stays in the caller's
/// registers (passed by value), so the one-tile path loads nothing more.
GPUOS_DEV_OUTLINE bool finishTile(DeviceControl *c, Inbox *inbox,
                                  const Pick &pick, int rc, QueueEntry &cont,
                                  uint32_t uncounted) {
  const QueueEntry &job = pick.job;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  if (job.numTasks == 1 && job.numTiles == 1) {
    // The whole run was this tile: no counter to consult. The slot is
    // freed after the completion store, with its own release, off the path
    // to the host.
    completeSingleton(reinterpret_cast<uint32_t *>(c->completion), job, rc);
    if (pick.mustFree)
      stRelease(&slotOf(c, pick.queue, pick.pos)->seq,
                (uint32_t)(pick.pos + (uint64_t)c->queueMask + 1));
    atomicAddRelaxed(&c->runsInFlight.value, ~0u);
    return false;
  }
  if (rc != 0)
    recordFailure(r, job, rc);
  fenceGpu(); // release: this block's tile writes (and our slot reads)
  if (pick.mustFree)
    freeSlot(c, pick.queue, pick.pos);
  if (job.numTiles > 1) {
    uint32_t *done = tilesDoneOf(r, job.numTasks) + job.task;
    uint32_t n = uncounted + 1;
    if (atomicAddOrdered(done, n) + n != job.numTiles)
      return false;
    stRelaxed(done, 0u);
    fenceGpu(); // acquire: the task's other tiles
  }
  bool kept = false;
  if (job.numSucc)
    kept = releaseSuccessors(c, inbox, job, pick.queue,
                             c->continuations ? &cont : nullptr);
  // A kept successor is not done, so this is never the run's last task then.
  uint32_t old = atomicAddOrdered(&r->tasksLeft, ~0u);
  if ((old & ~kRunFailedBit) == 1u)
    completeRun(c, r, job, (old & kRunFailedBit) != 0);
  return kept;
}

/// Tells the host which tile this block starts (JobRecord, host memory).
GPUOS_DEV void recordJob(JobRecord *record, const QueueEntry &job) {
  stJobRecord(record, job.run | kJobRunning,
              (job.epoch & 0xFFFFu) | (job.kind << 16), job.task, job.tile);
}

/// A block's statistics (BlockStats), kept in thread 0's registers and
/// stored after each tile: plain stores, nothing waits for them.
struct BlockCounters {
  BlockStats *stats;
  uint64_t tiles, busy, active, launchStart, tileStart;

  GPUOS_DEV void open(DeviceControl *c, uint32_t blockId) {
    stats = reinterpret_cast<BlockStats *>(c->blockStats) + blockId;
    tiles = ldRelaxed(&stats->tiles);
    busy = ldRelaxed(&stats->busyCycles);
    active = ldRelaxed(&stats->activeCycles);
    launchStart = cycles();
    stRelaxed(&stats->smid, smId(blockId));
  }
  GPUOS_DEV void begin() { tileStart = cycles(); }
  /// Before the tile's completion work: the count is then ordered before
  /// the completion (the host that saw a run complete counts its tiles),
  /// as it was before the cycle counters existed.
  GPUOS_DEV void counted() { stRelaxed(&stats->tiles, ++tiles); }
  /// After it (`now`: the cycle the tile ended): the cycle counters never
  /// delay a completion's release.
  GPUOS_DEV void end(uint64_t now) {
    busy += now - tileStart;
    stRelaxed(&stats->busyCycles, busy);
    stRelaxed(&stats->activeCycles, active + (now - launchStart));
  }
  GPUOS_DEV void close() {
    stRelaxed(&stats->activeCycles, active + (cycles() - launchStart));
  }
};

/// The worker loop. `Block` gives the thread index and the block barrier;
/// `Dispatch` runs one tile (gpuos_dispatch on the GPU).
template <typename Block, typename Dispatch>
GPUOS_DEV void workerMain(DeviceControl *c, uint32_t blockId, WorkerShared &sh,
                          const Block &block, Dispatch dispatch) {
  Inbox inbox[kNumQueues];
  for (uint32_t q = 0; q < kNumQueues; ++q)
    inbox[q].state = kInboxEmpty;
  BlockCounters counters;
  JobRecord *record = reinterpret_cast<JobRecord *>(c->jobs) + blockId;
  if (block.tid() == 0)
    counters.open(c, blockId);
  QueueEntry cont;   // a successor this block released and keeps (thread 0)
  bool kept = false;
  RangeState range;  // where this block is in a range of tiles (thread 0)
  range.left = 0;
  range.uncounted = 0;
  for (;;) {
    if (block.tid() == 0) {
      bool next = false;
      if (range.left) {
        // A tile boundary inside a range: urgent first (give the rest of
        // the range back), else the next tile, splitting for idle peers.
        uint32_t look = scanAtBoundary(c, inbox, sh.pick.queue);
        if (look & kHigherWaiting) {
          countUncounted(sh.pick.job, range.uncounted); // before the rest
          range.uncounted = 0;                          // is visible
          publishRange(c, inbox, sh.pick.job,
                       sharedQueue(priorityOfQueue(sh.pick.queue)),
                       sh.pick.job.tile + 1, range.left);
          range.left = 0;
        } else {
          sh.pick.job.tile += 1;
          sh.pick.mustFree = 0; // freed after the range's first tile
          --range.left;
          maybeSplit(c, inbox, sh.pick, range, look);
          sh.stop = 0;
          next = true;
        }
      }
      uint32_t sq = kept ? sharedQueue(priorityOfQueue(sh.pick.queue)) : 0;
      if (next) {
      } else if (kept && !higherPriorityWaiting(c, inbox, sq)) {
        // Continue with the successor: no queue, no other worker involved.
        // Its inputs were written by this block, or acquired by thread 0
        // through depsLeft; the barrier below passes them to the block.
        sh.pick.job = cont;
        sh.pick.queue = sq;
        sh.pick.pos = 0;
        sh.pick.mustFree = 0;
        sh.stop = 0;
      } else {
        if (kept)
          publishKept(c, inbox, cont, sq);
        sh.stop = pickJob(c, inbox, sh.pick, record) ? 0u : 1u;
        if (!sh.stop && sh.pick.job.rangeExtra) {
          range.left = sh.pick.job.rangeExtra;
          sh.pick.job.rangeExtra = 0;
          maybeSplit(c, inbox, sh.pick, range,
                     scanAtBoundary(c, inbox, sh.pick.queue));
        }
      }
      kept = false;
      if (!sh.stop) {
        recordJob(record, sh.pick.job);
        counters.begin();
      }
    }
    block.sync();
    if (sh.stop)
      break;
    int rc = dispatch(sh.pick.job.kind,
                      reinterpret_cast<const unsigned char *>(sh.pick.job.args),
                      sh.pick.job.tile);
    block.sync();
    if (block.tid() == 0) {
      uint64_t ended = cycles();
      counters.counted();
      if (range.left) {
        finishRangeTile(c, sh.pick, rc);
        ++range.uncounted;
        kept = false;
      } else {
        kept = finishTile(c, inbox, sh.pick, rc, cont, range.uncounted);
        range.uncounted = 0;
      }
      counters.end(ended);
    }
  }
  if (block.tid() == 0) {
    counters.close();
    blockExit(c);
  }
}

} // namespace gpuos::dev

#endif // GPUOS_DEVICE_WORKER_H
