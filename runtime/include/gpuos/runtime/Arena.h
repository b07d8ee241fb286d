//===- Arena.h - device memory for graphs, sub-allocated on the host -*- C++ -*-===//
//
// The runtime allocates one device arena when it opens and places graph
// descriptors, argument blocks, run counters and root templates in it, so
// that creating a graph while the kernel runs needs no cuMemAlloc, and
// destroying one needs no cuMemFree (which blocks while a kernel is
// resident, PLATFORM-FACTS 2). Freed ranges are not reused at once: a
// resident kernel may still hold them in flight or in an SM's L1. They
// become free again at the next safe point (reclaim(), when parked).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_ARENA_H
#define GPUOS_RUNTIME_ARENA_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace gpuos::runtime {

class Arena {
public:
  static constexpr uint64_t kAlign = 128;

  /// Manages [base, base + bytes); forgets everything allocated before.
  void reset(uint64_t base, uint64_t bytes);
  /// First fit, kAlign-aligned. False when no free range is large enough.
  bool allocate(uint64_t bytes, uint64_t &addr);
  /// Returns a range from allocate(); reusable after the next reclaim().
  /// False for an address that is not allocated.
  bool release(uint64_t addr);
  /// Makes released ranges free (call only while the kernel is parked).
  void reclaim();

  uint64_t capacity() const { return size_; }
  uint64_t usedBytes() const { return usedBytes_; }
  uint64_t pendingBytes() const { return pendingBytes_; }
  size_t freeRanges() const { return free_.size(); }

private:
  uint64_t base_ = 0, size_ = 0;
  uint64_t usedBytes_ = 0, pendingBytes_ = 0;
  std::map<uint64_t, uint64_t> free_; // address -> bytes, coalesced
  std::map<uint64_t, uint64_t> used_;
  std::vector<std::pair<uint64_t, uint64_t>> pending_;

  void insertFree(uint64_t addr, uint64_t bytes);
};

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_ARENA_H
