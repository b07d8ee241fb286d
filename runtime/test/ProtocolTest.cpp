//===- ProtocolTest.cpp - the host/device layouts and the ring entries ----===//

#include "gpuos/runtime/Protocol.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstddef>

using namespace gpuos::runtime::proto;

// A ring entry is valid only at its own position and only whole: a read
// that mixes words of two writes fails the check byte.
TEST(Protocol, RingEntriesValidateTheirPositionAndContent) {
  RingEntry e = makeRingEntry(42, 7, 3, kRingOpSubmit, kPriorityBackground);
  EXPECT_TRUE(ringEntryValid(e, 42));
  EXPECT_EQ(ringOp(e), kRingOpSubmit);
  EXPECT_EQ(ringPriority(e), kPriorityBackground);
  EXPECT_FALSE(ringEntryValid(e, 41)); // a stale lap
  RingEntry zero{};
  for (uint32_t seq = 0; seq < 4096; ++seq) {
    zero.seq = seq;
    EXPECT_FALSE(ringEntryValid(zero, seq)) << seq; // zeroed memory
  }
  // Tearing: new seq with an old run/epoch/ctl is caught (the check covers
  // every field); count the rare 8-bit collisions over many mixes.
  int accepted = 0;
  for (uint32_t i = 0; i < 10000; ++i) {
    RingEntry older = makeRingEntry(1 + i, i % 97, i % 13, kRingOpSubmit, 1);
    RingEntry newer = makeRingEntry(1 + i + 4096, (i * 7) % 97 + 1, i % 11, kRingOpSubmit, 1);
    RingEntry mixed = newer;
    mixed.run = older.run;
    accepted += ringEntryValid(mixed, newer.seq) && mixed.run != newer.run;
  }
  EXPECT_LT(accepted, 100); // ~1/256 by construction
}

// The sizes and offsets the device code's vector loads depend on.
TEST(Protocol, LayoutsArePinned) {
  EXPECT_EQ(sizeof(RingEntry), 16u);
  EXPECT_EQ(sizeof(QueueEntry), 64u);
  EXPECT_EQ(sizeof(TaskDesc), 32u);
  EXPECT_EQ(sizeof(RunRow), 128u);
  EXPECT_EQ(sizeof(RunCounters), 128u);
  EXPECT_EQ(runCountersBytes(10), 128u + 160u);
  EXPECT_EQ(sizeof(QueueState), 256u);
  EXPECT_EQ(kNumQueues, 6u);
  EXPECT_EQ(rootQueue(kPriorityNormal), 2u);
  EXPECT_EQ(sharedQueue(kPriorityNormal), 3u);
  EXPECT_EQ(priorityOfQueue(5), kPriorityBackground);
  EXPECT_EQ(offsetof(DeviceControl, ringHead) % 128, 0u);
  EXPECT_EQ(offsetof(HostShared, parkPhase) % 128, 0u);
}

// A task's tiles split into ranges: the parts cover 0..n-1 exactly once, in
// order, differ in size by at most one, and none exceeds kMaxRangeTiles.
TEST(Protocol, RangesCoverEveryTileOnce) {
  EXPECT_EQ(offsetof(QueueEntry, epoch), 40u);
  EXPECT_EQ(offsetof(QueueEntry, rangeExtra), 42u);
  for (uint32_t n : {1u, 2u, 7u, 63u, 64u, 65u, 1000u, 16384u, 65536u,
                     65537u, 200000u, 1u << 25}) {
    for (uint32_t fan : {1u, 8u, kMaxSuccessorRanges, kRootRanges}) {
      uint32_t parts = rangeCount(n, fan);
      EXPECT_GE(parts, 1u);
      EXPECT_LE(parts, n);
      EXPECT_LE(parts, std::max(fan, (n + kMaxRangeTiles - 1) / kMaxRangeTiles));
      uint32_t next = 0, lo = ~0u, hi = 0;
      for (uint32_t i = 0; i < parts; ++i) {
        uint32_t first = 0, count = 0;
        rangePart(n, parts, i, first, count);
        EXPECT_EQ(first, next) << n << " " << fan << " " << i;
        EXPECT_GE(count, 1u);
        EXPECT_LE(count, kMaxRangeTiles);
        lo = std::min(lo, count);
        hi = std::max(hi, count);
        next = first + count;
      }
      EXPECT_EQ(next, n) << n << " " << fan;
      EXPECT_LE(hi - lo, 1u);
    }
  }
}
