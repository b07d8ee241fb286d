//===- GraphLayout.cpp - validating graphs and laying them out ------------===//

#include "gpuos/runtime/GraphLayout.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gpuos::runtime {

using namespace proto;

namespace {

std::string dims(const std::vector<int64_t> &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? ", " : "") + (d[i] == kDynamic ? std::string("?") : std::to_string(d[i]));
  return s + "]";
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
  return buf;
}

std::string names(const std::vector<std::string> &list) {
  std::string s;
  for (const std::string &n : list)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

Status invalid(const std::string &message) {
  return Status::error(ErrorCode::InvalidArgument, message);
}

} // namespace

void resolveDims(const ManifestTask &task, const std::vector<int64_t> &dynamic,
                 std::vector<std::vector<int64_t>> &shapes,
                 std::vector<std::vector<int64_t>> &strides) {
  size_t slot = 0;
  auto next = [&]() -> int64_t {
    return slot < dynamic.size() ? dynamic[slot++] : kDynamic;
  };
  shapes.clear();
  strides.clear();
  for (const ManifestBuffer &b : task.buffers) {
    std::vector<int64_t> shape = b.shape, stride = b.strides;
    for (int64_t &d : shape)
      if (d == kDynamic)
        d = next();
    for (int64_t &s : stride)
      if (s == kDynamic)
        s = next();
    shapes.push_back(std::move(shape));
    strides.push_back(std::move(stride));
  }
}

Status computeNumTiles(const ManifestTask &task,
                       const std::vector<int64_t> &shape, uint64_t &tiles) {
  if (shape.size() != task.tile.size())
    return invalid("the iteration space " + dims(shape) + " and the tile " +
                   dims(task.tile) + " differ in rank");
  uint64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return invalid("the iteration space " + dims(shape) +
                     " has an unresolved dynamic size");
    uint64_t t = ((uint64_t)shape[i] + (uint64_t)task.tile[i] - 1) /
                 (uint64_t)task.tile[i];
    if (t && n > UINT32_MAX / t)
      return invalid("the iteration space " + dims(shape) + " has more than "
                     "2^32 tiles of " + dims(task.tile));
    n *= t;
  }
  tiles = n;
  return Status::success();
}

size_t GraphLayout::argBlocksOffset() const {
  return (tasks.size() + successors.size()) * sizeof(TaskDesc);
}

size_t GraphLayout::blobBytes() const {
  return argBlocksOffset() + argBlocks.size();
}

std::vector<uint8_t> GraphLayout::blob(uint64_t deviceBase) const {
  std::vector<uint8_t> out(blobBytes(), 0);
  uint64_t argBase = deviceBase + argBlocksOffset();
  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskDesc d = tasks[i];
    d.args += argBase;
    std::memcpy(out.data() + i * sizeof(TaskDesc), &d, sizeof(d));
  }
  // The successor lists: copies of the successors' descriptors.
  for (size_t k = 0; k < successors.size(); ++k) {
    TaskDesc d = tasks[successors[k]];
    d.args += argBase;
    std::memcpy(out.data() + (tasks.size() + k) * sizeof(TaskDesc), &d, sizeof(d));
  }
  if (!argBlocks.empty())
    std::memcpy(out.data() + argBlocksOffset(), argBlocks.data(),
                argBlocks.size());
  return out;
}

std::vector<uint8_t> GraphLayout::runCounters() const {
  std::vector<uint8_t> out(runCountersBytes(numTasks()), 0);
  RunCounters header{};
  header.tasksLeft = numTasks();
  header.errorClaim = 0;
  header.numTasks = numTasks();
  std::memcpy(out.data(), &header, sizeof(header));
  uint32_t n = numTasks();
  uint32_t *depsLeft = reinterpret_cast<uint32_t *>(out.data() + sizeof(header));
  uint32_t *gangLeft = depsLeft + 2 * n, *gangRest = depsLeft + 3 * n;
  for (uint32_t i = 0; i < n; ++i)
    depsLeft[i] = tasks[i].numDeps; // tilesDone[] stays 0
  // A gang waits for its predecessors' tiles (a uint32_t: a graph has at
  // most LayoutLimits::maxTilesPerGraph tiles).
  for (uint32_t p = 0; p < n; ++p)
    for (uint32_t j = 0; j < tasks[p].numSucc; ++j)
      gangLeft[successors[tasks[p].succOffset + j]] += tasks[p].numTiles;
  std::memcpy(gangRest, gangLeft, n * sizeof(uint32_t));
  return out;
}

RunRow GraphLayout::runRow(const std::vector<QueueEntry> &entries,
                           uint64_t entriesDevice) const {
  RunRow row{};
  row.rootEntries = entriesDevice;
  row.numRootEntries = (uint32_t)entries.size();
  row.numTasks = numTasks();
  row.gangTiles = gangTiles;
  row.rootTiles = roots.size() == 1 ? tasks[roots[0]].numTiles : 0;
  row.first = entries.front();
  return row;
}

std::vector<QueueEntry>
GraphLayout::rootEntries(uint64_t graphDevice, uint32_t run,
                         uint64_t countersDevice) const {
  std::vector<QueueEntry> out;
  out.reserve(rootTiles);
  uint64_t argBase = graphDevice + argBlocksOffset();
  for (uint32_t t : roots) {
    const TaskDesc &d = tasks[t];
    // One entry per range (Protocol.h: kRootRanges); the workers split
    // ranges further over the idle blocks.
    uint32_t parts = rangeCount(d.numTiles, kRootRanges);
    for (uint32_t part = 0; part < parts; ++part) {
      uint32_t first = 0, count = 0;
      rangePart(d.numTiles, parts, part, first, count);
      QueueEntry e{};
      e.tile = first;
      e.rangeExtra = (uint16_t)(count - 1);
      e.numTiles = d.numTiles;
      e.kind = d.kind;
      e.args = argBase + d.args;
      e.task = t;
      e.run = run;
      e.counters = countersDevice;
      e.epoch = 0;
      e.numSucc = d.numSucc;
      e.graph = graphDevice;
      e.succOffset = d.succOffset;
      e.numTasks = numTasks();
      out.push_back(e);
    }
  }
  return out;
}

/// GraphLayout::gangTiles of a laid-out graph (successor lists filled).
static uint32_t gangWidth(const GraphLayout &g) {
  if (g.numTasks() < 2)
    return 0; // nothing to gain: one task's tiles spread through the queues
  // Dependency levels in index order (a successor comes later), and the
  // tiles of each: the most that can run at once, so a gang of that many
  // members can run a level of independent narrow tasks side by side.
  std::vector<uint32_t> level(g.numTasks(), 0);
  std::vector<uint64_t> tilesAt(g.numTasks(), 0);
  uint64_t width = 0;
  for (const TaskDesc &d : g.tasks) {
    for (uint32_t k = 0; k < d.numSucc; ++k) {
      uint32_t s = g.successors[d.succOffset + k];
      if (s <= d.index)
        return 0; // a dependency on a later task: index order is no schedule
      level[s] = std::max(level[s], level[d.index] + 1);
    }
    width = std::max(width, tilesAt[level[d.index]] += d.numTiles);
  }
  // Width 1, a chain of one-tile tasks: continuations already run it on
  // one worker with each next descriptor prefetched (1.28 us a hop on the
  // H200), where a gang of one searches for its next task with a round of
  // loads per task (1.9 us: gpuos-bench's dependent chain, bisected).
  if (width < 2)
    return 0;
  return (uint32_t)std::min<uint64_t>(width, UINT32_MAX);
}

Status buildGraphLayout(const ImageManifest &manifest, const GraphSpec &spec,
                        const CapacityLookup &capacity,
                        const LayoutLimits &limits, GraphLayout &out) {
  GraphLayout g;
  size_t n = spec.tasks.size();
  if (n == 0)
    return invalid("a graph needs at least one task");
  if (n > limits.maxTasks)
    return invalid("the graph has " + std::to_string(n) +
                   " tasks; at most " + std::to_string(limits.maxTasks) +
                   " are supported");
  if ((uint32_t)spec.priority > (uint32_t)Priority::Background)
    return invalid("the graph's priority is not urgent, normal or background");

  std::vector<std::vector<uint32_t>> succ(n);
  std::vector<uint32_t> numDeps(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const TaskSpec &ts = spec.tasks[i];
    std::string where = "task " + std::to_string(i);
    int kind = manifest.findKind(ts.kind);
    if (kind < 0)
      return invalid(where + ": unknown task kind '" + ts.kind +
                     "' (the image has: " + manifest.kindList() + ")");
    const ManifestTask &mt = manifest.tasks[kind];
    where += " ('" + ts.kind + "')";

    // The argument block: buffer count, dynamic count.
    if (ts.buffers.size() != mt.buffers.size()) {
      std::vector<std::string> bufNames;
      for (const ManifestBuffer &b : mt.buffers)
        bufNames.push_back(b.name);
      return invalid(where + ": " + std::to_string(ts.buffers.size()) +
                     " buffers bound, the kind takes " +
                     std::to_string(mt.buffers.size()) + " (" +
                     names(bufNames) + ")");
    }
    if (ts.dynamic.size() != mt.dynamic.size())
      return invalid(where + ": " + std::to_string(ts.dynamic.size()) +
                     " dynamic values given, the kind takes " +
                     std::to_string(mt.dynamic.size()) +
                     (mt.dynamic.empty() ? "" : " (" + names(mt.dynamic) + ")"));
    for (size_t k = 0; k < ts.dynamic.size(); ++k)
      if (ts.dynamic[k] < 0)
        return invalid(where + ": dynamic value '" + mt.dynamic[k] + "' is " +
                       std::to_string(ts.dynamic[k]) + "; sizes and strides "
                       "must not be negative");
    std::vector<std::vector<int64_t>> shapes, strides;
    resolveDims(mt, ts.dynamic, shapes, strides);

    // Each buffer: null, alignment, dtype, shape, capacity.
    const std::vector<int64_t> *firstOutput = nullptr;
    for (size_t j = 0; j < ts.buffers.size(); ++j) {
      const BufferArg &b = ts.buffers[j];
      const ManifestBuffer &mb = mt.buffers[j];
      std::string bw = where + ": buffer " + std::to_string(j) + " ('" +
                       mb.name + "')";
      if (mb.isOutput && !firstOutput)
        firstOutput = &shapes[j];
      if (b.ptr == 0)
        return invalid(bw + " is null");
      uint64_t align = (uint64_t)std::max(mb.elemBytes, mb.vectorAlign);
      if (align > 1 && b.ptr % align)
        return invalid(bw + " at " + hex(b.ptr) + " is not " +
                       std::to_string(align) + "-byte aligned");
      if (!b.dtype.empty() && b.dtype != mb.dtype)
        return invalid(bw + " has dtype " + b.dtype + ", the kind expects " +
                       mb.dtype);
      if (!b.shape.empty() && b.shape != shapes[j])
        return invalid(bw + " has shape " + dims(b.shape) +
                       ", the kind expects " + dims(shapes[j]));
      uint64_t extent;
      if (!viewExtentBytes(shapes[j], strides[j], mb.elemBytes, extent))
        return invalid(bw + " spans more than 2^64 bytes with shape " +
                       dims(shapes[j]) + " and strides " + dims(strides[j]));
      // What the runtime knows of its own allocations wins over a claim.
      uint64_t known = capacity ? capacity(b.ptr) : 0;
      if (known && b.bytes > known)
        return invalid(bw + " claims " + std::to_string(b.bytes) +
                       " bytes but its allocation has " + std::to_string(known) +
                       " from " + hex(b.ptr));
      uint64_t available = b.bytes ? b.bytes : known;
      if (available && extent > available)
        return invalid(bw + " needs " + std::to_string(extent) +
                       " bytes for shape " + dims(shapes[j]) + " but " +
                       std::to_string(available) + " are available at " +
                       hex(b.ptr));
    }

    uint64_t tiles = (uint64_t)mt.numTiles;
    if (firstOutput) {
      Status st = computeNumTiles(mt, *firstOutput, tiles);
      if (!st.ok())
        return invalid(where + ": " + st.message());
      if (mt.numTiles && mt.dynamic.empty() && (uint64_t)mt.numTiles != tiles)
        return Status::error(ErrorCode::BadImage,
                             where + ": the manifest says num_tiles " +
                                 std::to_string(mt.numTiles) +
                                 " but the tile rule gives " +
                                 std::to_string(tiles));
    }
    if (tiles == 0)
      return invalid(where + ": has no tiles (its iteration space is empty)");

    // Dependencies.
    std::vector<uint32_t> deps = ts.deps;
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (uint32_t d : deps) {
      if (d >= n)
        return invalid(where + ": dependency " + std::to_string(d) +
                       " is not a task of the graph (it has " +
                       std::to_string(n) + ")");
      if (d == i)
        return invalid(where + ": depends on itself");
      succ[d].push_back((uint32_t)i);
    }
    numDeps[i] = (uint32_t)deps.size();

    TaskDesc desc{};
    desc.kind = (uint32_t)kind;
    desc.numTiles = (uint32_t)tiles;
    desc.numDeps = numDeps[i];
    desc.index = (uint32_t)i;
    desc.args = g.argBlocks.size(); // patched to a device address in blob()
    g.tasks.push_back(desc);
    size_t argBytes = mt.argBlockBytes();
    size_t at = g.argBlocks.size();
    g.argBlocks.resize(at + argBytes, 0);
    uint8_t *block = g.argBlocks.data() + at;
    for (size_t j = 0; j < ts.buffers.size(); ++j)
      std::memcpy(block + 8 * j, &ts.buffers[j].ptr, 8);
    for (size_t k = 0; k < ts.dynamic.size(); ++k)
      std::memcpy(block + 8 * (ts.buffers.size() + k), &ts.dynamic[k], 8);
    g.totalTiles += tiles;
    g.maxBlockSize = std::max(g.maxBlockSize, (uint32_t)mt.blockSize);
    g.maxSharedBytes = std::max(g.maxSharedBytes, (uint32_t)mt.sharedBytes);
  }
  if (g.totalTiles > limits.maxTilesPerGraph)
    return invalid("the graph has " + std::to_string(g.totalTiles) +
                   " tiles; a ready queue admits at most " +
                   std::to_string(limits.maxTilesPerGraph) +
                   " in flight (raise RuntimeOptions::queueCapacity)");

  // Successor lists and an acyclicity check (Kahn).
  std::vector<uint32_t> pending(numDeps), order;
  for (uint32_t i = 0; i < n; ++i) {
    g.tasks[i].succOffset = (uint32_t)g.successors.size();
    g.tasks[i].numSucc = (uint32_t)succ[i].size();
    g.successors.insert(g.successors.end(), succ[i].begin(), succ[i].end());
    if (!numDeps[i]) {
      g.roots.push_back(i);
      order.push_back(i);
    }
  }
  for (size_t k = 0; k < order.size(); ++k)
    for (uint32_t s : succ[order[k]])
      if (--pending[s] == 0)
        order.push_back(s);
  if (order.size() != n) {
    for (uint32_t i = 0; i < n; ++i)
      if (pending[i])
        return invalid("the graph's dependencies have a cycle through task " +
                       std::to_string(i) + " ('" + spec.tasks[i].kind + "')");
  }
  uint64_t rootTiles = 0;
  for (uint32_t r : g.roots)
    rootTiles += g.tasks[r].numTiles;
  g.rootTiles = (uint32_t)rootTiles;
  g.gangTiles = gangWidth(g);
  out = std::move(g);
  return Status::success();
}

} // namespace gpuos::runtime
