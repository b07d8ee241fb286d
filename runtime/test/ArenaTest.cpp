//===- ArenaTest.cpp - the graph arena's deferred reuse -------------------===//

#include "gpuos/runtime/Arena.h"

#include "gtest/gtest.h"

using namespace gpuos::runtime;

// Allocations are aligned, first fit, and released memory is reused only
// after reclaim() (the kernel may still read it until a safe point).
TEST(Arena, ReleaseIsDeferredUntilReclaim) {
  Arena a;
  a.reset(1000, 1024);
  EXPECT_EQ(a.capacity(), 896u); // aligned start 1024, whole 128-byte units
  uint64_t x, y, z;
  ASSERT_TRUE(a.allocate(100, x));
  EXPECT_EQ(x, 1024u);
  ASSERT_TRUE(a.allocate(300, y));
  EXPECT_EQ(y, 1024u + 128);
  ASSERT_TRUE(a.allocate(384, z));
  EXPECT_EQ(a.usedBytes(), 896u);
  uint64_t w;
  EXPECT_FALSE(a.allocate(1, w));
  EXPECT_TRUE(a.release(y));
  EXPECT_FALSE(a.release(y)); // twice
  EXPECT_FALSE(a.release(12345));
  EXPECT_EQ(a.pendingBytes(), 384u);
  EXPECT_FALSE(a.allocate(1, w)); // not before the safe point
  a.reclaim();
  EXPECT_EQ(a.pendingBytes(), 0u);
  ASSERT_TRUE(a.allocate(384, w));
  EXPECT_EQ(w, y);
}

// A request near 2^64 bytes does not fit (rounding it up to the alignment
// wrapped to 0 bytes, which "fit" at an address the next call got too).
TEST(Arena, HugeRequestsDoNotFit) {
  Arena a;
  a.reset(0, 4096);
  uint64_t x, y;
  EXPECT_FALSE(a.allocate(UINT64_MAX - 64, x));
  EXPECT_FALSE(a.allocate(4097, x));
  ASSERT_TRUE(a.allocate(4096, y));
  EXPECT_EQ(a.usedBytes(), 4096u);
}

// Freed neighbours coalesce into one range.
TEST(Arena, FreeRangesCoalesce) {
  Arena a;
  a.reset(0, 128 * 8);
  uint64_t p[8];
  for (uint64_t &x : p)
    ASSERT_TRUE(a.allocate(128, x));
  for (int i : {1, 3, 2})
    a.release(p[i]);
  a.reclaim();
  EXPECT_EQ(a.freeRanges(), 1u);
  uint64_t big;
  ASSERT_TRUE(a.allocate(3 * 128, big));
  EXPECT_EQ(big, p[1]);
  a.release(p[0]);
  a.release(big);
  a.release(p[4]);
  a.reclaim();
  EXPECT_EQ(a.freeRanges(), 1u);
  ASSERT_TRUE(a.allocate(5 * 128, big));
  EXPECT_EQ(big, 0u);
}
