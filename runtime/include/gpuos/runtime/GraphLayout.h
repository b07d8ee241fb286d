//===- GraphLayout.h - validating graphs and laying them out ----*- C++ -*-===//
//
// Everything about a graph that can be decided on the host, before anything
// reaches the GPU: it checks a GraphSpec against the image's manifest (task
// kinds, buffer count, null and misaligned pointers, shapes, dtypes, buffer
// capacity, dynamic values, dependencies, tile counts) and builds the exact
// bytes the device reads (Protocol.h): task descriptors, successor lists,
// argument blocks (docs/abi.md), run counters and root tile templates.
// Pure CPU code; the runtime only copies the result to device memory.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_GRAPHLAYOUT_H
#define GPUOS_RUNTIME_GRAPHLAYOUT_H

#include "gpuos/runtime/Manifest.h"
#include "gpuos/runtime/Protocol.h"
#include "gpuos/runtime/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpuos::runtime {

/// One buffer bound to a task: a device address (element [0, ..., 0] of the
/// view) and, optionally, what the caller knows about it. `bytes` is the
/// capacity from `ptr` on (0: ask the runtime, which knows its own
/// allocations); `shape` and `dtype`, when given, must match the manifest.
struct BufferArg {
  uint64_t ptr = 0;
  uint64_t bytes = 0;
  std::vector<int64_t> shape;
  std::string dtype;
};

/// One task instance: a kind of the loaded image, its buffers (inputs, then
/// outputs, as in the manifest), its dynamic values, and the indices of the
/// tasks of the same graph it must wait for.
struct TaskSpec {
  std::string kind;
  std::vector<BufferArg> buffers;
  std::vector<int64_t> dynamic;
  std::vector<uint32_t> deps;
};

struct GraphSpec {
  std::vector<TaskSpec> tasks;
  Priority priority = Priority::Normal; // the default for submit()
};

/// Bytes available from `ptr` on in memory the runtime knows, or 0.
using CapacityLookup = std::function<uint64_t(uint64_t ptr)>;

struct GraphLayout {
  std::vector<proto::TaskDesc> tasks; // args: offsets into argBlocks
  std::vector<uint32_t> successors;   // all tasks' lists, concatenated
                                      // (as TaskDesc copies in the blob)
  std::vector<uint8_t> argBlocks;
  std::vector<uint32_t> roots;        // tasks without dependencies
  uint64_t totalTiles = 0;
  uint32_t rootTiles = 0;
  uint32_t maxBlockSize = 0;
  uint32_t maxSharedBytes = 0;
  /// RunRow::gangTiles: when the graph can run as a gang (several tasks,
  /// each depending only on tasks before it: gang members take the tasks
  /// in index order, and some level has more than one tile), its width:
  /// the most tiles of one dependency level (level: the longest chain of
  /// dependencies before a task); else 0.
  uint32_t gangTiles = 0;

  uint32_t numTasks() const { return (uint32_t)tasks.size(); }
  /// Offset of the argument blocks in the graph's device blob.
  size_t argBlocksOffset() const;
  size_t blobBytes() const;
  /// The graph's device blob for a blob at `deviceBase`: TaskDesc[n] |
  /// TaskDesc successors[] (copies) | argument blocks (16-byte aligned).
  std::vector<uint8_t> blob(uint64_t deviceBase) const;

  /// RunCounters + depsLeft[] + tilesDone[] + gangLeft[] + gangRest[] at
  /// rest.
  std::vector<uint8_t> runCounters() const;
  /// The run table row of a run slot whose root templates `entries` (from
  /// rootEntries) are at `entriesDevice` (0 when there is only one).
  proto::RunRow runRow(const std::vector<proto::QueueEntry> &entries,
                       uint64_t entriesDevice) const;
  /// Root tile templates of run slot `run` (epoch filled in by the poller).
  std::vector<proto::QueueEntry> rootEntries(uint64_t graphDevice, uint32_t run,
                                             uint64_t countersDevice) const;
};

/// The tile count of one task: the iteration space is the shape of the
/// first output with dynamic sizes taken from `resolvedShape`; tiles are
/// ceil(shape[i] / tile[i]) multiplied over i (docs/abi.md "Tiles").
Status computeNumTiles(const ManifestTask &task,
                       const std::vector<int64_t> &firstOutputShape,
                       uint64_t &tiles);

/// Sizes and strides of every buffer of `task` with the dynamic slots
/// filled from `dynamic` (buffer by buffer, sizes before strides).
void resolveDims(const ManifestTask &task, const std::vector<int64_t> &dynamic,
                 std::vector<std::vector<int64_t>> &shapes,
                 std::vector<std::vector<int64_t>> &strides);

struct LayoutLimits {
  uint64_t maxTilesPerGraph = 1u << 15;
  uint32_t maxTasks = 1u << 24;
};

Status buildGraphLayout(const ImageManifest &manifest, const GraphSpec &spec,
                        const CapacityLookup &capacity,
                        const LayoutLimits &limits, GraphLayout &out);

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_GRAPHLAYOUT_H
