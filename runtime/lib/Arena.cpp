//===- Arena.cpp - device memory for graphs, sub-allocated on the host ----===//

#include "gpuos/runtime/Arena.h"

#include <iterator>

namespace gpuos::runtime {

void Arena::reset(uint64_t base, uint64_t bytes) {
  uint64_t start = (base + kAlign - 1) & ~(kAlign - 1);
  base_ = start;
  size_ = bytes > start - base ? (bytes - (start - base)) & ~(kAlign - 1) : 0;
  free_.clear();
  used_.clear();
  pending_.clear();
  usedBytes_ = pendingBytes_ = 0;
  if (size_)
    free_[base_] = size_;
}

bool Arena::allocate(uint64_t bytes, uint64_t &addr) {
  if (bytes == 0)
    bytes = 1;
  if (bytes > size_) // and so no rounding up past 2^64
    return false;
  bytes = (bytes + kAlign - 1) & ~(kAlign - 1);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < bytes)
      continue;
    addr = it->first;
    uint64_t rest = it->second - bytes;
    free_.erase(it);
    if (rest)
      free_[addr + bytes] = rest;
    used_[addr] = bytes;
    usedBytes_ += bytes;
    return true;
  }
  return false;
}

bool Arena::release(uint64_t addr) {
  auto it = used_.find(addr);
  if (it == used_.end())
    return false;
  pending_.push_back(*it);
  pendingBytes_ += it->second;
  usedBytes_ -= it->second;
  used_.erase(it);
  return true;
}

void Arena::insertFree(uint64_t addr, uint64_t bytes) {
  auto next = free_.lower_bound(addr);
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == addr) {
      addr = prev->first;
      bytes += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && addr + bytes == next->first) {
    bytes += next->second;
    free_.erase(next);
  }
  free_[addr] = bytes;
}

void Arena::reclaim() {
  for (const auto &[addr, bytes] : pending_)
    insertFree(addr, bytes);
  pending_.clear();
  pendingBytes_ = 0;
}

} // namespace gpuos::runtime
