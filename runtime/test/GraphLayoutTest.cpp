//===- GraphLayoutTest.cpp - host-side validation and device layout -------===//
//
// Everything here is decided before anything reaches the GPU: invalid
// graphs are rejected with a message naming the task, the buffer and the
// problem; valid ones produce exactly the bytes of docs/abi.md.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/GraphLayout.h"
#include "gpuos/runtime/Runtime.h"

#include "TestImage.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace gpuos::runtime;
using namespace gpuos::runtime::proto;

namespace {

class GraphLayoutTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::vector<char> text;
    ASSERT_TRUE(readFile(testimage::manifestPath(), text).ok());
    Status st = parseManifest(std::string(text.begin(), text.end()), manifest);
    ASSERT_TRUE(st.ok()) << st.toString();
  }

  // x, y, z: 4096 f32 each, at aligned fake device addresses.
  static constexpr uint64_t X = 0x10000, Y = 0x20000, Z = 0x30000;
  static BufferArg buf(uint64_t p) { return BufferArg{p, 0, {}, {}}; }

  GraphSpec chain() {
    GraphSpec g;
    g.tasks.push_back({"iota4k", {buf(X)}, {}, {}});
    g.tasks.push_back({"scale4k", {buf(X), buf(Y)}, {}, {0}});
    g.tasks.push_back({"add4k", {buf(X), buf(Y), buf(Z)}, {}, {0, 1}});
    return g;
  }

  Status build(const GraphSpec &g, GraphLayout &out,
               uint64_t maxTiles = 1u << 15) {
    LayoutLimits limits;
    limits.maxTilesPerGraph = maxTiles;
    return buildGraphLayout(manifest, g, capacity, limits, out);
  }

  std::string error(const GraphSpec &g) {
    GraphLayout out;
    Status st = build(g, out);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.message();
    return st.message();
  }

  ImageManifest manifest;
  // Pretend the runtime allocated 16 KiB at X, Y and Z.
  CapacityLookup capacity = [](uint64_t p) -> uint64_t {
    for (uint64_t base : {X, Y, Z})
      if (p >= base && p < base + 16384)
        return base + 16384 - p;
    return 0;
  };
};

} // namespace

// A valid chain: descriptors, successor lists, argument blocks, roots,
// counters and root templates as the device expects them.
TEST_F(GraphLayoutTest, LaysOutAChain) {
  GraphLayout L;
  Status st = build(chain(), L);
  ASSERT_TRUE(st.ok()) << st.toString();
  ASSERT_EQ(L.numTasks(), 3u);
  EXPECT_EQ(L.totalTiles, 48u);
  EXPECT_EQ(L.roots, (std::vector<uint32_t>{0}));
  EXPECT_EQ(L.rootTiles, 16u);
  EXPECT_EQ(L.tasks[0].kind, 0u);
  EXPECT_EQ(L.tasks[2].kind, 2u);
  EXPECT_EQ(L.tasks[2].numDeps, 2u);
  EXPECT_EQ(L.tasks[0].numSucc, 2u);
  EXPECT_EQ(L.tasks[1].numSucc, 1u);
  EXPECT_EQ(L.successors, (std::vector<uint32_t>{1, 2, 2}));
  EXPECT_EQ(L.tasks[1].succOffset, 2u);
  EXPECT_EQ(L.maxBlockSize, 256u);

  // The blob: args become device addresses of 16-byte aligned blocks that
  // hold the buffer addresses in ABI order.
  const uint64_t base = 0x7000000;
  std::vector<uint8_t> blob = L.blob(base);
  ASSERT_EQ(blob.size(), L.blobBytes());
  // Successor lists hold copies of the successors' descriptors.
  TaskDesc s1;
  std::memcpy(&s1, blob.data() + (3 + L.tasks[1].succOffset) * sizeof(TaskDesc),
              sizeof(s1));
  EXPECT_EQ(s1.index, 2u);
  EXPECT_EQ(s1.kind, 2u);
  EXPECT_EQ(s1.numDeps, 2u);
  TaskDesc d2;
  std::memcpy(&d2, blob.data() + 2 * sizeof(TaskDesc), sizeof(d2));
  EXPECT_EQ(d2.args % 16, 0u);
  uint64_t ptrs[3];
  std::memcpy(ptrs, blob.data() + (d2.args - base), sizeof(ptrs));
  EXPECT_EQ(ptrs[0], X);
  EXPECT_EQ(ptrs[1], Y);
  EXPECT_EQ(ptrs[2], Z);

  std::vector<uint8_t> counters = L.runCounters();
  RunCounters rc;
  std::memcpy(&rc, counters.data(), sizeof(rc));
  EXPECT_EQ(rc.tasksLeft, 3u);
  EXPECT_EQ(rc.errorClaim, 0u);
  uint32_t deps[3], done[3];
  std::memcpy(deps, counters.data() + sizeof(rc), sizeof(deps));
  std::memcpy(done, counters.data() + sizeof(rc) + sizeof(deps), sizeof(done));
  EXPECT_EQ(deps[0], 0u);
  EXPECT_EQ(deps[1], 1u);
  EXPECT_EQ(deps[2], 2u);
  EXPECT_EQ(done[0] + done[1] + done[2], 0u);
  // A gang counts its predecessors' tiles (16 each), and keeps the initial
  // values beside them for its resets.
  ASSERT_EQ(counters.size(), sizeof(rc) + 4 * sizeof(deps));
  uint32_t gangLeft[3], gangRest[3];
  std::memcpy(gangLeft, counters.data() + sizeof(rc) + 2 * sizeof(deps), sizeof(gangLeft));
  std::memcpy(gangRest, counters.data() + sizeof(rc) + 3 * sizeof(deps), sizeof(gangRest));
  EXPECT_EQ(gangLeft[0], 0u);
  EXPECT_EQ(gangLeft[1], 16u);
  EXPECT_EQ(gangLeft[2], 32u);
  EXPECT_EQ(std::vector<uint32_t>(gangRest, gangRest + 3),
            std::vector<uint32_t>(gangLeft, gangLeft + 3));

  std::vector<QueueEntry> roots = L.rootEntries(base, 5, 0x9000);
  ASSERT_EQ(roots.size(), 16u);
  EXPECT_EQ(roots[3].tile, 3u);
  EXPECT_EQ(roots[3].numTiles, 16u);
  EXPECT_EQ(roots[3].run, 5u);
  EXPECT_EQ(roots[3].counters, 0x9000u);
  EXPECT_EQ(roots[3].graph, base);
  EXPECT_EQ(roots[3].numSucc, 2u);
  EXPECT_EQ(roots[3].numTasks, 3u);
  for (const QueueEntry &e : roots)
    EXPECT_EQ(e.rangeExtra, 0u); // 16 tiles: 16 ranges of one tile
}

// Dynamic sizes come from the dynamic values and decide the tile count;
// the values also land in the argument block after the buffers.
TEST_F(GraphLayoutTest, DynamicValuesDecideTiles) {
  GraphSpec g;
  g.tasks.push_back({"hits", {buf(X)}, {1000}, {}});
  g.tasks.push_back({"count", {buf(Y)}, {4096, 7}, {0}});
  GraphLayout L;
  Status st = build(g, L);
  ASSERT_TRUE(st.ok()) << st.toString();
  EXPECT_EQ(L.tasks[0].numTiles, 1000u);
  EXPECT_EQ(L.tasks[1].numTiles, 1u); // ceil(4096 / 1048576)
  // The 1000-tile root is published as kRootRanges ranges covering 0..999.
  std::vector<QueueEntry> roots = L.rootEntries(0x1000, 2, 0x9000);
  ASSERT_EQ(roots.size(), (size_t)kRootRanges);
  uint32_t next = 0;
  for (const QueueEntry &e : roots) {
    EXPECT_EQ(e.tile, next);
    EXPECT_EQ(e.numTiles, 1000u);
    next = e.tile + e.rangeExtra + 1u;
  }
  EXPECT_EQ(next, 1000u);
  // The poller builds a single root task's entries from the row's `first`
  // (Poller.h): the same ranges, the same other fields.
  RunRow row = L.runRow(roots, 0x5000);
  ASSERT_EQ(row.rootTiles, 1000u);
  ASSERT_EQ(row.numRootEntries, roots.size());
  for (uint32_t i = 0; i < row.numRootEntries; ++i) {
    uint32_t first = 0, count = 0;
    rangePart(row.rootTiles, row.numRootEntries, i, first, count);
    QueueEntry made = row.first;
    made.tile = first;
    made.rangeExtra = (uint16_t)(count - 1);
    EXPECT_EQ(std::memcmp(&made, &roots[i], sizeof(QueueEntry)), 0) << i;
  }
  std::vector<uint8_t> blob = L.blob(0);
  int64_t dyn[2];
  std::memcpy(dyn, blob.data() + L.argBlocksOffset() + L.tasks[1].args + 8,
              sizeof(dyn));
  EXPECT_EQ(dyn[0], 4096);
  EXPECT_EQ(dyn[1], 7);

  ManifestTask t;
  t.tile = {2, 3};
  uint64_t tiles = 0;
  ASSERT_TRUE(computeNumTiles(t, {5, 7}, tiles).ok());
  EXPECT_EQ(tiles, 9u); // ceil(5/2) * ceil(7/3)
}

// Kinds, counts and pointers.
TEST_F(GraphLayoutTest, RejectsBadTasks) {
  GraphSpec g = chain();
  g.tasks[1].kind = "scale";
  EXPECT_EQ(error(g), "task 1: unknown task kind 'scale' (the image has: "
                      "iota4k, scale4k, add4k, tiny, count, hits, spin, "
                      "fault, missing, stream, stream4, compute, missing_tiles)");
  g = chain();
  g.tasks[2].buffers.pop_back();
  EXPECT_EQ(error(g), "task 2 ('add4k'): 2 buffers bound, the kind takes 3 "
                      "(x, y, z)");
  g = chain();
  g.tasks[1].buffers[1].ptr = 0;
  EXPECT_EQ(error(g), "task 1 ('scale4k'): buffer 1 ('y') is null");
  g = chain();
  g.tasks[1].buffers[0].ptr = X + 2;
  EXPECT_EQ(error(g), "task 1 ('scale4k'): buffer 0 ('x') at 0x10002 is not "
                      "4-byte aligned");
  g = chain();
  g.tasks[2].buffers[2].ptr = Z + 4; // z wants 16-byte vectors
  EXPECT_EQ(error(g), "task 2 ('add4k'): buffer 2 ('z') at 0x30004 is not "
                      "16-byte aligned");
  g = chain();
  g.tasks[0].dynamic = {5};
  EXPECT_EQ(error(g), "task 0 ('iota4k'): 1 dynamic values given, the kind "
                      "takes 0");
  GraphSpec c;
  c.tasks.push_back({"count", {buf(X)}, {16}, {}});
  EXPECT_EQ(error(c), "task 0 ('count'): 1 dynamic values given, the kind "
                      "takes 2 (n, id)");
  c.tasks[0].dynamic = {-4, 0};
  EXPECT_EQ(error(c), "task 0 ('count'): dynamic value 'n' is -4; sizes and "
                      "strides must not be negative");
  c.tasks[0].dynamic = {0, 0};
  EXPECT_EQ(error(c), "task 0 ('count'): has no tiles (its iteration space is "
                      "empty)");
  EXPECT_EQ(error(GraphSpec{}), "a graph needs at least one task");
}

// Shapes, dtypes and capacity: what the caller says about a buffer must
// match the manifest, and the view must fit in its allocation.
TEST_F(GraphLayoutTest, RejectsMismatchedBuffers) {
  GraphSpec g = chain();
  g.tasks[2].buffers[0].shape = {1024};
  EXPECT_EQ(error(g), "task 2 ('add4k'): buffer 0 ('x') has shape [1024], the "
                      "kind expects [4096]");
  g = chain();
  g.tasks[2].buffers[0].dtype = "f16";
  EXPECT_EQ(error(g), "task 2 ('add4k'): buffer 0 ('x') has dtype f16, the "
                      "kind expects f32");
  g = chain();
  g.tasks[2].buffers[0].shape = {4096};
  g.tasks[2].buffers[0].dtype = "f32";
  GraphLayout L;
  EXPECT_TRUE(build(g, L).ok());
  g = chain();
  g.tasks[1].buffers[1].ptr = Y + 8192; // 8 KiB left of 16 KiB
  EXPECT_EQ(error(g), "task 1 ('scale4k'): buffer 1 ('y') needs 16384 bytes "
                      "for shape [4096] but 8192 are available at 0x22000");
  g = chain();
  g.tasks[1].buffers[1].bytes = 100; // the caller's own bound wins
  EXPECT_EQ(error(g), "task 1 ('scale4k'): buffer 1 ('y') needs 16384 bytes "
                      "for shape [4096] but 100 are available at 0x20000");
  GraphSpec c;
  c.tasks.push_back({"count", {BufferArg{X, 0, {5000}, {}}}, {5000, 0}, {}});
  EXPECT_EQ(error(c), "task 0 ('count'): buffer 0 ('counts') needs 20000 "
                      "bytes for shape [5000] but 16384 are available at "
                      "0x10000");
}

// Dependencies: in range, not self, acyclic; duplicates count once.
TEST_F(GraphLayoutTest, RejectsBadDependencies) {
  GraphSpec g = chain();
  g.tasks[2].deps = {0, 9};
  EXPECT_EQ(error(g), "task 2 ('add4k'): dependency 9 is not a task of the "
                      "graph (it has 3)");
  g = chain();
  g.tasks[1].deps = {1};
  EXPECT_EQ(error(g), "task 1 ('scale4k'): depends on itself");
  g = chain();
  g.tasks[0].deps = {2};
  EXPECT_EQ(error(g), "the graph's dependencies have a cycle through task 0 "
                      "('iota4k')");
  g = chain();
  g.tasks[2].deps = {1, 0, 1, 0};
  GraphLayout L;
  ASSERT_TRUE(build(g, L).ok());
  EXPECT_EQ(L.tasks[2].numDeps, 2u);
}

// A graph larger than a queue admits in flight is refused up front.
TEST_F(GraphLayoutTest, RejectsGraphsLargerThanTheQueue) {
  GraphLayout L;
  Status st = build(chain(), L, 40);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "the graph has 48 tiles; a ready queue admits at "
                          "most 40 in flight (raise "
                          "RuntimeOptions::queueCapacity)");
}

// RunRow::gangTiles: 0 for one task, a dependency on a later task (a
// gang takes tasks in index order) or a chain of one-tile tasks (width 1:
// continuations run it), else the graph's width: the most tiles of one
// dependency level.
TEST_F(GraphLayoutTest, GangTilesIsTheWidestLevel) {
  auto hits = [](int64_t tiles, std::vector<uint32_t> deps) {
    return TaskSpec{"hits", {buf(X)}, {tiles}, std::move(deps)};
  };
  auto gangTiles = [&](const GraphSpec &g) {
    GraphLayout L;
    Status st = build(g, L);
    EXPECT_TRUE(st.ok()) << st.toString();
    std::vector<QueueEntry> roots = L.rootEntries(0x1000, 0, 0x2000);
    RunRow row = L.runRow(roots, 0);
    EXPECT_EQ(row.gangTiles, L.gangTiles); // what the poller reads
    // One root task: the poller makes its entries from `first` alone.
    EXPECT_EQ(row.rootTiles, L.roots.size() == 1 ? L.tasks[L.roots[0]].numTiles : 0u);
    return L.gangTiles;
  };
  EXPECT_EQ(gangTiles(GraphSpec{{hits(100, {})}}), 0u);
  EXPECT_EQ(gangTiles(chain()), 16u);
  GraphSpec wide; // 20 independent one-tile tasks, then a join of 3 tiles
  std::vector<uint32_t> all;
  for (uint32_t k = 0; k < 20; ++k) {
    wide.tasks.push_back(hits(1, {}));
    all.push_back(k);
  }
  wide.tasks.push_back(hits(3, all));
  EXPECT_EQ(gangTiles(wide), 20u);
  // Levels: {5, 7} then {2, 9}: 12 (not the widest task's 9).
  EXPECT_EQ(gangTiles(GraphSpec{{hits(5, {}), hits(7, {}), hits(2, {0}), hits(9, {1, 2})}}), 12u);
  // A chain whose second task is the widest: its level alone.
  EXPECT_EQ(gangTiles(GraphSpec{{hits(5, {}), hits(40, {0}), hits(3, {1})}}), 40u);
  // Task 0 depends on task 1: no gang.
  EXPECT_EQ(gangTiles(GraphSpec{{hits(4, {1}), hits(4, {})}}), 0u);
  // A chain of one-tile tasks (width 1), also with extra edges: no gang.
  EXPECT_EQ(gangTiles(GraphSpec{{hits(1, {}), hits(1, {0}), hits(1, {0, 1})}}), 0u);
  // One level of two tiles is enough.
  EXPECT_EQ(gangTiles(GraphSpec{{hits(1, {}), hits(2, {0}), hits(1, {1})}}), 2u);
}
