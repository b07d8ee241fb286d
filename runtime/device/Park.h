//===- Park.h - safe points: parking and leaving the kernel -----*- C++ -*-===//
//
// Parking. When no run is in flight and either the host asked (a PARK
// entry) or nothing arrived for idleNs, the poller parks with a handshake
// that cannot lose a submission written concurrently:
//
//   poller                              host (submit)
//   parkPhase = PARKING  (store, sys)   ring[p] = entry        (store)
//   fence.sc.sys                        mfence
//   read ring[head]                     read parkPhase
//
// Both sides store, fence, then load, so at least one sees the other. If
// the poller sees the entry it writes RUNNING and goes on; otherwise it
// writes PARKED, sets stop for the workers and exits, and the host, which
// then must have read PARKING or PARKED, waits for the final value and
// relaunches the kernel (which starts reading at the saved head), unless
// the saved head is past its entry: the poller took the entry before it
// parked (a PARK entry it obeyed; RuntimeImpl.h ensureRunning).
//
// A stream-ordered entry this launch may not take (ringEntryHeld) counts as
// no entry: the launch that releases it is queued behind this one on the
// kernel's stream, and reads the ring from the saved head, so parking
// before it loses nothing, and is what lets that launch start.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DEVICE_PARK_H
#define GPUOS_DEVICE_PARK_H

#include "Platform.h"

namespace gpuos::dev {

/// The park handshake (lane 0). True when the kernel is to exit.
GPUOS_DEV_OUTLINE bool tryPark(DeviceControl *c, HostShared *hs, const RingEntry *ring,
                               uint64_t head, LaunchTicket ticket) {
  stRelaxedSys(&hs->parkPhase, kPhaseParking);
  fenceSysSc();
  RingEntry e = ldRingEntry(ring + (head & c->ringMask), false); // validity only
  if (ringEntryValid(e, (uint32_t)(head + 1)) && !ringEntryHeld(e, ticket)) {
    stRelaxedSys(&hs->parkPhase, kPhaseRunning);
    return false;
  }
  uint32_t parks = ldRelaxed(&c->parks.value) + 1;
  stRelaxed(&c->parks.value, parks);
  stRelaxed(&c->ringHead.value, head);
  stRelaxedSys(&hs->parkedHead, head);
  stRelaxedSys(&hs->parks, parks);
  stReleaseSys(&hs->parkPhase, kPhaseParked);
  stRelease(&c->stop.value, 1u);
  return true;
}

/// The last block to leave resets what the next launch starts from: queue
/// heads (forgetting owed tickets), the stop flag, the idle hints and what
/// urgentSMs counts (the poller's SM, the urgent-only workers).
GPUOS_DEV_OUTLINE void blockExit(DeviceControl *c) {
  fenceGpu(); // release this block's last writes
  if (atomicAddOrdered(&c->exited.value, 1u) != c->numBlocks - 1)
    return;
  fenceGpu();
  for (uint32_t q = 0; q < kNumQueues; ++q)
    stRelaxed(&c->queues[q].head.value, ldRelaxed(&c->queues[q].reserve.value));
  stRelaxed(&c->stop.value, 0u);
  stRelaxed(&c->idleWorkers.value, 0u);
  stRelaxed(&c->idleUrgentWorkers.value, 0u);
  stRelaxed(&c->urgentWorkers.value, 0u); // counted again as workers start
  stRelaxed(&c->pollerSm.value, 0u); // the next launch's poller names its own
  stRelaxed(&c->exited.value, 0u);
  fenceGpu();
}

} // namespace gpuos::dev

#endif // GPUOS_DEVICE_PARK_H
