//===- ReadyQueue.h - per-priority ready queues of tiles --------*- C++ -*-===//
//
// Bounded MPMC rings of QueueEntry in device memory, two per priority class
// (Protocol.h: the poller's root queue and the workers' shared queue). An
// entry is a range of tiles of one task (Protocol.h, Worker.h): the worker
// that takes it runs the tiles one by one, returns to the scheduler's
// priority check (urgent first) after every tile, and splits the range
// for idle workers.
//
// Producers of a shared queue (workers, for tasks whose last dependency
// finished, and for the root ranges of an expanded run) reserve a range of
// positions with one atomicAdd on `reserve`, wait until each slot is free
// (seq == position), write the payload, and publish with a release of
// seq = position + 1. The root queue's single
// producer (the poller) needs no atomic: it publishes, then stores reserve.
// A consumer frees its slot (seq = position + capacity) after running the
// tile, under the fence it needs for the tile's writes anyway.
//
// Consumers take a ticket with atomicAdd on `head`, but only after seeing
// head < reserve, so tickets stay close to real work. Two workers racing
// for the last entry can both get tickets; the loser's ticket is "owed":
// it refers to a position whose entry has not been written yet. The owner
// remembers it in its Inbox and keeps serving other queues, and takes the
// entry as soon as it is published. Nothing is ever lost: a position is
// consumed exactly once, by its ticket holder. When the kernel parks, no run
// is in flight, so every written position was consumed and the owed
// tickets are positions no producer has reserved yet; the last exiting
// block resets head to reserve, forgetting them.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DEVICE_READYQUEUE_H
#define GPUOS_DEVICE_READYQUEUE_H

#include "Platform.h"

namespace gpuos::dev {

constexpr uint32_t kInboxEmpty = 0, kInboxOwed = 1, kInboxTaken = 2;

/// What a worker holds in one queue: nothing, an owed ticket, or an entry it
/// already took out of the ring (while it was producing, see
/// publishEntries) and has not run yet. The scheduling thread's (worker
/// blocks keep it in shared memory, Worker.h WorkerShared).
struct Inbox {
  uint64_t ticket;
  uint32_t state;
  QueueEntry entry;
};

/// The queues' geometry, constant while the kernel runs: every block keeps
/// a copy in shared memory (the simulator: each block's thread), loaded
/// once by openQueueView before the block's first queue access. Read from
/// DeviceControl instead, a slot's address would wait for a load that
/// misses after every acquire fence (fences empty the L1): an L2 round
/// trip in series before each slot access (on the path of every pick,
/// free and publish).
struct QueueView {
  uint64_t slots[kNumQueues];
  uint64_t mask;
};
#if defined(__CUDA_ARCH__)
__shared__ QueueView tQueueView;
#else
inline thread_local QueueView tQueueView;
#endif

/// One thread of the block, before a barrier that precedes every other
/// thread's first queue access.
GPUOS_DEV void openQueueView(const DeviceControl *c) {
  for (uint32_t q = 0; q < kNumQueues; ++q)
    tQueueView.slots[q] = c->queueSlots[q];
  tQueueView.mask = c->queueMask;
}

GPUOS_DEV QueueEntry *slotOf(uint32_t q, uint64_t pos) {
  return reinterpret_cast<QueueEntry *>(tQueueView.slots[q]) +
         (pos & tQueueView.mask);
}

/// The seq value that frees the slot of `pos` for the next lap's producer.
GPUOS_DEV uint32_t freedSeq(uint64_t pos) {
  return (uint32_t)(pos + tQueueView.mask + 1);
}

/// A warp of one lane: a single thread calling the warp-collective helpers
/// (publishEntries) on its own.
struct SoloWarp {
  GPUOS_DEV uint32_t lane() const { return 0; }
  GPUOS_DEV uint32_t width() const { return 1; }
  GPUOS_DEV bool all(bool v) const { return v; }
  GPUOS_DEV void sync() const {}
};

GPUOS_DEV uint64_t reservePositions(DeviceControl *c, uint32_t q, uint32_t n) {
  return atomicAddRelaxed(&c->queues[q].reserve.value, (uint64_t)n);
}

/// Reads the entry of `pos` if it has been published. The acquire pairs
/// with the producer's release of seq (so the payload and everything the
/// producer saw are visible). The slot stays the caller's until freeSlot.
GPUOS_DEV bool tryClaim(uint32_t q, uint64_t pos, QueueEntry &out) {
  QueueEntry *s = slotOf(q, pos);
  if (ldAcquire(&s->seq) != (uint32_t)(pos + 1))
    return false;
  readPayload(s, out);
  return true;
}

/// Hands the slot of `pos` to the producer of the next lap. The caller has
/// issued fenceGpu() since reading the payload (release: our reads come
/// before the producer's overwrite). Workers do this after running the
/// tile, under the fence they need anyway, not before it.
GPUOS_DEV void freeSlot(uint32_t q, uint64_t pos) {
  stPublish(&slotOf(q, pos)->seq, freedSeq(pos));
}

/// tryClaim and free at once (for entries moved into an inbox).
GPUOS_DEV bool tryTake(uint32_t q, uint64_t pos, QueueEntry &out) {
  if (!tryClaim(q, pos, out))
    return false;
  stRelease(&slotOf(q, pos)->seq, freedSeq(pos));
  return true;
}

/// Moves published owed entries into their inbox. A producer calls this
/// while it waits for a slot: the slot it waits for may be one of its own
/// owed positions from a lap ago, which only it can consume.
GPUOS_DEV void drainOwed(Inbox *inbox) {
  if (!inbox)
    return;
  for (uint32_t q = 0; q < kNumQueues; ++q)
    if (inbox[q].state == kInboxOwed &&
        tryTake(q, inbox[q].ticket, inbox[q].entry))
      inbox[q].state = kInboxTaken;
}

/// Publishes entries i < n at positions p0 + i of queue q, spread over the
/// lanes of `w` (lane l takes l, l + width, ...; SoloWarp: one thread takes
/// all); `make(i, entry)` fills entry i's payload. Works `kPublishChunk`
/// entries per lane at a time: read all the chunk's slot sequences first
/// (independent loads, one round trip), wait for any slot that is not free
/// yet, then one acquire fence (the previous lap's consumers finished
/// reading), the payloads, one release fence, and the relaxed stores of seq
/// that publish them. All lanes call it (same arguments but `inbox`, which
/// only lane 0 owns) and wait together: a slot a lane waits for may be one
/// of this worker's own owed positions from a lap ago, which only lane 0
/// can take (drainOwed), so no lane may leave lane 0 behind.
/// `seenFree`: the caller knows the first chunk's slots are free (each lane
/// saw its own ones free with acquire loads, slotsSeenFree), so that chunk
/// skips the check and its fence.
constexpr uint32_t kPublishChunk = 8;

template <typename Warp, typename Make>
GPUOS_DEV void publishEntries(Inbox *inbox, uint32_t q, uint64_t p0,
                              uint32_t n, const Warp &w, Make make,
                              bool seenFree = false) {
  const uint32_t stride = w.width();
  Inbox *own = w.lane() == 0 ? inbox : nullptr;
  for (uint32_t base = 0; base < n; base += kPublishChunk * stride) {
    uint32_t m = 0;
    for (uint32_t i = base + w.lane(); i < n && m < kPublishChunk; i += stride)
      ++m;
    if (!(seenFree && base == 0)) {
      uint32_t seqs[kPublishChunk];
      for (uint32_t k = 0; k < m; ++k)
        seqs[k] = ldObserve(&slotOf(q, p0 + base + w.lane() + k * stride)->seq);
      auto isFree = [&](uint32_t k) {
        return seqs[k] == (uint32_t)(p0 + base + w.lane() + k * stride);
      };
      for (;;) {
        bool ready = true;
        for (uint32_t k = 0; k < m; ++k)
          ready = ready && isFree(k);
        if (w.all(ready))
          break;
        drainOwed(own);
        spinPause();
        for (uint32_t k = 0; k < m; ++k)
          if (!isFree(k))
            seqs[k] = ldObserve(
                &slotOf(q, p0 + base + w.lane() + k * stride)->seq);
      }
      fenceGpu();
    }
    for (uint32_t k = 0; k < m; ++k) {
      uint32_t i = base + w.lane() + k * stride;
      QueueEntry e;
      make(i, e);
      writePayload(slotOf(q, p0 + i), e);
    }
    fenceGpu();
    for (uint32_t k = 0; k < m; ++k) {
      uint64_t pos = p0 + base + w.lane() + k * stride;
      stPublish(&slotOf(q, pos)->seq, (uint32_t)(pos + 1));
    }
  }
}

/// Are the first chunk publishEntries writes from p0 (this lane's ones:
/// p0 + lane + k * width, k < kPublishChunk) all free? Acquire loads: each
/// pairs with the last consumer's release of its slot, so this lane's
/// later writes of the slot come after that consumer's reads of it
/// (publishEntries' seenFree). Off the submission path: the poller asks
/// while idle.
template <typename Warp>
GPUOS_DEV bool slotsSeenFree(uint32_t q, uint64_t p0, const Warp &w) {
  uint32_t seqs[kPublishChunk];
  for (uint32_t k = 0; k < kPublishChunk; ++k)
    seqs[k] = ldAcquire(&slotOf(q, p0 + w.lane() + k * w.width())->seq);
  bool free = true;
  for (uint32_t k = 0; k < kPublishChunk; ++k)
    free = free && seqs[k] == (uint32_t)(p0 + w.lane() + k * w.width());
  return w.all(free);
}

/// What pickJob found: the entry, its queue, and the slot to free after the
/// tile (unless it was freed already, for entries taken into an inbox).
struct Pick {
  QueueEntry job;
  uint64_t pos;
  uint32_t queue;
  uint32_t mustFree;
};

/// Where a worker counts itself idle (pickJob; Worker.h, "Urgent SMs").
GPUOS_DEV uint32_t *idleCount(DeviceControl *c, bool urgentOnly) {
  return urgentOnly ? &c->idleUrgentWorkers.value : &c->idleWorkers.value;
}

/// The scheduling decision at a tile boundary: queues in index order
/// (urgent root, urgent shared, normal root, ...). In each: an entry already
/// taken, else an owed ticket (if its entry is there; while it is not, the
/// worker cannot take another ticket of that queue but serves the others),
/// else a new ticket if the queue looks non-empty. Each pass first issues
/// all its loads at once (owed slots' seq, the other queues' head and
/// reserve), so a pass costs one L2 round trip, not one per queue; a hit
/// is then confirmed with an acquire fence. Returns false when the poller
/// asked everyone to stop (only ever when nothing is in flight). The first
/// empty pass marks the block's job record idle (off the busy path). With
/// `exclusive` (RuntimeOptions::urgentExclusive), while an urgent run is in
/// flight only the urgent queues are served: other work waits rather than
/// share the memory system with it. An `urgentOnly` worker (Worker.h,
/// "Urgent SMs") serves only the urgent queues, and counts itself idle in
/// idleUrgentWorkers instead: idle workers ask busy ones to split their
/// ranges, and it would take none of a lower priority.
GPUOS_DEV_OUTLINE bool pickJobLoop(DeviceControl *c, Inbox *inbox, Pick &pick,
                                   JobRecord *record, bool &idle,
                                   bool exclusive, bool urgentOnly) {
  for (uint32_t spin = 0;; ++spin) {
    uint32_t served = kNumQueues;
    if (urgentOnly ||
        (exclusive && ldRelaxed(&c->urgentInFlight.value) != 0u))
      served = sharedQueue(kPriorityUrgent) + 1;
    for (uint32_t q = 0; q < served; ++q)
      if (inbox[q].state == kInboxTaken) {
        pick.job = inbox[q].entry;
        pick.queue = q;
        pick.pos = 0;
        pick.mustFree = 0; // freed when it was taken
        inbox[q].state = kInboxEmpty;
        return true;
      }
    uint64_t head[kNumQueues], reserve[kNumQueues];
    uint32_t seen[kNumQueues];
    // The stop flag in the same round of loads: a park waits for every
    // worker to see it, and it costs no extra round trip here.
    uint32_t stop = ldRelaxed(&c->stop.value);
    for (uint32_t q = 0; q < kNumQueues; ++q) {
      if (inbox[q].state == kInboxOwed) {
        seen[q] = ldObserve(&slotOf(q, inbox[q].ticket)->seq);
      } else {
        head[q] = ldRelaxed(&c->queues[q].head.value);
        reserve[q] = ldRelaxed(&c->queues[q].reserve.value);
      }
    }
    for (uint32_t q = 0; q < served; ++q) {
      Inbox &ib = inbox[q];
      if (ib.state == kInboxOwed) {
        if (seen[q] != (uint32_t)(ib.ticket + 1))
          continue;
        fenceGpu(); // acquire: pairs with the producer's release of seq
        readPayload(slotOf(q, ib.ticket), pick.job);
        pick.queue = q;
        pick.pos = ib.ticket;
        pick.mustFree = 1;
        ib.state = kInboxEmpty;
        return true;
      }
      if (head[q] < reserve[q]) {
        uint64_t t = atomicAddRelaxed(&c->queues[q].head.value, (uint64_t)1);
        if (tryClaim(q, t, pick.job)) {
          pick.queue = q;
          pick.pos = t;
          pick.mustFree = 1;
          return true;
        }
        ib.ticket = t;
        ib.state = kInboxOwed;
      }
    }
    if (spin == 0) {
      stJobRecord(record, 0u, 0u, 0u, 0u);
      atomicAddRelaxed(idleCount(c, urgentOnly), 1u); // result unused: a red
      idle = true;
    }
    if (stop)
      return false;
    if (spin > 256)
      idleNap(c->idleSleepNs);
    else
      spinPause();
  }
}

/// pickJobLoop, keeping DeviceControl::idleWorkers: a worker whose first
/// pass found nothing counts itself idle until it gets work (fire-and-forget
/// atomics, off the path of a busy worker). Workers inside a range split it
/// only while someone is idle (Worker.h).
GPUOS_DEV bool pickJob(DeviceControl *c, Inbox *inbox, Pick &pick,
                       JobRecord *record, bool exclusive, bool urgentOnly) {
  bool idle = false;
  bool got = pickJobLoop(c, inbox, pick, record, idle, exclusive, urgentOnly);
  if (idle && got)
    atomicAddRelaxed(idleCount(c, urgentOnly), ~0u);
  return got;
}

} // namespace gpuos::dev

#endif // GPUOS_DEVICE_READYQUEUE_H
