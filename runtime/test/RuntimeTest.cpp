//===- RuntimeTest.cpp - the runtime end to end, on the simulator and GPU -===//
//
// Every scenario runs twice: on "sim" (the CPU simulator: the same
// scheduler code on threads, always available, part of CI) and on "gpu"
// (the H200; skipped visibly where there is no driver or no nvcc-built
// test image). Sizes are smaller on the simulator.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Runtime.h"

#include "RuntimeFixture.h"
#include "TestHooks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

using namespace gpuos::runtime;

namespace {

using namespace gpuos::runtime::rttest;

class RuntimeTest : public RuntimeFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, RuntimeTest, kBackends, backendName);

} // namespace

// A dependent chain (iota -> scale -> add, 16 tiles each) computes
// z[i] = 0.5 i + (1.5 i + 1) on every submission, at every priority.
TEST_P(RuntimeTest, ChainComputesKnownResult) {
  Buffer x = alloc(4096 * 4), y = alloc(4096 * 4), z = alloc(4096 * 4);
  GraphSpec g;
  g.tasks.push_back({"iota4k", {x.arg()}, {}, {}});
  g.tasks.push_back({"scale4k", {x.arg(), y.arg()}, {}, {0}});
  g.tasks.push_back({"add4k", {x.arg(), y.arg(), z.arg()}, {}, {0, 1}});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  for (int round = 0; round < 12; ++round) {
    zero(z);
    Submission s;
    ASSERT_OK(rt->submit(id, static_cast<Priority>(round % 3), s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    std::vector<float> out = readFloats(z, 4096);
    int bad = 0;
    for (int i = 0; i < 4096; ++i)
      bad += out[i] != 2.0f * (float)i + 1.0f;
    ASSERT_EQ(bad, 0) << "round " << round << ": z[1] = " << out[1];
  }
  Stats s;
  ASSERT_OK(rt->stats(s));
  EXPECT_EQ(s.completed, 12u);
  EXPECT_EQ(s.tasksRun, 36u);
  EXPECT_EQ(s.tilesRun, 12u * 48u);
  EXPECT_EQ(s.tilesPerBlock.at(0), 0u); // block 0 only polls
}

// A random layered DAG of iota/scale/add tasks (200 nodes, each reading
// one or two earlier outputs) matches a CPU reference: every dependency
// was honoured, on the device, with no host round trip between tasks.
TEST_P(RuntimeTest, RandomDagMatchesCpuReference) {
  const int levels = 5, width = scaled(40, 10), n = levels * width;
  std::mt19937 rng(1234);
  std::vector<Buffer> out;
  std::vector<std::vector<double>> ref(n, std::vector<double>(4096));
  GraphSpec g;
  for (int k = 0; k < n; ++k) {
    out.push_back(alloc(4096 * 4));
    int level = k / width;
    if (level == 0) {
      g.tasks.push_back({"iota4k", {out[k].arg()}, {}, {}});
      for (int i = 0; i < 4096; ++i)
        ref[k][i] = 0.5 * i;
      continue;
    }
    std::uniform_int_distribution<int> pick(0, level * width - 1);
    int a = pick(rng), b = pick(rng);
    if (rng() % 3 == 0) {
      g.tasks.push_back({"scale4k", {out[a].arg(), out[k].arg()}, {}, {(uint32_t)a}});
      for (int i = 0; i < 4096; ++i)
        ref[k][i] = 3.0 * ref[a][i] + 1.0;
    } else {
      g.tasks.push_back({"add4k", {out[a].arg(), out[b].arg(), out[k].arg()}, {},
                         {(uint32_t)a, (uint32_t)b}});
      for (int i = 0; i < 4096; ++i)
        ref[k][i] = ref[a][i] + ref[b][i];
    }
  }
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  for (int round = 0; round < 3; ++round) {
    for (const Buffer &b : out)
      zero(b);
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Normal, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    int bad = 0;
    for (int k = 0; k < n; ++k) {
      std::vector<float> v = readFloats(out[k], 4096);
      for (int i = 0; i < 4096; ++i) {
        double r = ref[k][i];
        bad += std::fabs(v[i] - r) > 1e-5 * std::max(1.0, std::fabs(r));
      }
    }
    ASSERT_EQ(bad, 0) << "round " << round;
  }
}

// The manifest's own graph ("chain": iota -> scale -> add), built by name
// with only its output bound: the runtime allocates x and y.
TEST_P(RuntimeTest, ManifestGraphWithIntermediates) {
  Buffer z = alloc(4096 * 4);
  GraphId id;
  ASSERT_OK(rt->createGraphFromManifest("chain", {{"z", z.arg()}}, id));
  Submission s;
  ASSERT_OK(rt->submit(id, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  std::vector<float> out = readFloats(z, 4096);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[4095], 2.0f * 4095 + 1);

  Status st = rt->createGraphFromManifest("nope", {}, id);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(st.message().find("the image has no graph 'nope' (it has: chain, "),
            std::string::npos)
      << st.message();
  st = rt->createGraphFromManifest("chain", {}, id);
  EXPECT_EQ(st.message(), "graph 'chain': buffer 'z' (an output of 'add4k') is "
                          "not bound");
  st = rt->createGraphFromManifest("chain", {{"w", z.arg()}}, id);
  EXPECT_EQ(st.message(), "graph 'chain' has no buffer named 'w'");
}

// Priorities: an urgent task submitted behind a long background graph
// finishes first, waiting at most about one background tile; and urgent
// traffic does not starve the background graph.
TEST_P(RuntimeTest, UrgentOvertakesBackground) {
  Stats st0;
  ASSERT_OK(rt->stats(st0));
  const uint64_t tileNs = gpu() ? 400'000 : 20'000'000;
  const uint32_t tiles = st0.workers * 8; // eight waves of background tiles
  Buffer stamps = alloc(tiles * 8), ustamp = alloc(8);
  GraphId background = spinGraph(stamps, tiles, tileNs);
  GraphId urgent = spinGraph(ustamp, 1, 0);
  // Warm up (launch) so the background graph starts at once.
  Submission warm;
  ASSERT_OK(rt->submit(urgent, Priority::Urgent, warm));
  ASSERT_OK(rt->wait(warm, kWaitUs));

  Submission bg;
  auto t0 = Clock::now();
  ASSERT_OK(rt->submit(background, Priority::Background, bg));
  std::this_thread::sleep_for(std::chrono::nanoseconds(tileNs * 3 / 2));
  Submission u;
  auto t1 = Clock::now();
  ASSERT_OK(rt->submit(urgent, Priority::Urgent, u));
  ASSERT_OK(rt->wait(u, kWaitUs));
  double urgentLatency = seconds(Clock::now() - t1);
  EXPECT_EQ(rt->poll(bg).code(), ErrorCode::NotReady)
      << "the background graph finished before the urgent task";
  uint64_t urgentDone = 0; // the device's clock when the urgent tile ended
  ASSERT_OK(rt->copyFromDevice(&urgentDone, ustamp.ptr, 8));
  // At most one background tile (plus scheduling slack).
  EXPECT_LT(urgentLatency, (gpu() ? 2.0 : 4.0) * tileNs * 1e-9 + (gpu() ? 0.0005 : 0.05))
      << "urgent latency " << urgentLatency * 1e6 << " us";

  // Urgent traffic while the background graph runs: it still finishes in
  // about its solo time (one worker at a time is busy with urgent work).
  int pings = 0;
  while (rt->poll(bg).code() == ErrorCode::NotReady &&
         seconds(Clock::now() - t0) < 60) {
    Submission p;
    ASSERT_OK(rt->submit(urgent, Priority::Urgent, p));
    ASSERT_OK(rt->wait(p, kWaitUs));
    ++pings;
  }
  ASSERT_OK(rt->wait(bg, kWaitUs));
  double total = seconds(Clock::now() - t0);
  double solo = 8 * tileNs * 1e-9;
  EXPECT_LT(total, solo * (gpu() ? 1.5 : 4.0) + 0.05)
      << "background took " << total << " s for " << solo << " s of work with "
      << pings << " urgent submissions beside it";
  EXPECT_GT(pings, 0);
  std::vector<uint64_t> bgStamps(tiles);
  ASSERT_OK(rt->copyFromDevice(bgStamps.data(), stamps.ptr, tiles * 8));
  uint64_t lastBackground = *std::max_element(bgStamps.begin(), bgStamps.end());
  EXPECT_LT(urgentDone, lastBackground);
  EXPECT_EQ(std::count(bgStamps.begin(), bgStamps.end(), 0u), 0);
}

// Diagnostics: with traceRecords and traceAllTiles every tile a worker
// runs is stamped (readHopTrace: one record per tile, its steps in order
// but for a worker's first tile after the launch, whose record opened at
// no tile end); with traceRecords alone only continuation hops are, and a
// one-task graph has none.
TEST_P(RuntimeTest, TracesEveryTileWhenAsked) {
  for (bool all : {false, true}) {
    rt.reset();
    RuntimeOptions options;
    options.traceRecords = 16;
    options.traceAllTiles = all;
    open(options);
    runOneTask("iota4k", alloc(4096 * 4), Priority::Normal, 2);
    // Trace slots are plain stores of the running kernel: read them parked.
    ASSERT_OK(rt->park());
    std::vector<HopTraceRecord> recs;
    ASSERT_OK(rt->readHopTrace(recs));
    if (!all) {
      EXPECT_TRUE(recs.empty()) << recs.size() << " records without traceAllTiles";
      continue;
    }
    ASSERT_EQ(recs.size(), 32u); // 2 runs x 16 tiles
    size_t ordered = 0, fromRange = 0;
    std::set<uint32_t> blocks;
    for (const HopTraceRecord &r : recs) {
      blocks.insert(r.block);
      EXPECT_EQ(r.task, 0u);
      EXPECT_NE(r.origin, TileOrigin::Continued);
      EXPECT_TRUE(r.origin == TileOrigin::FromQueue || r.origin == TileOrigin::FromRange)
          << (uint32_t)r.origin;
      fromRange += r.origin == TileOrigin::FromRange;
      EXPECT_NE(r.endNs, 0u);
      EXPECT_LE(r.tileStart, r.dispatched);
      EXPECT_LE(r.dispatched, r.nextTileEnd);
      if (r.tileEnd == 0)
        continue; // the worker's first tile
      uint64_t at[] = {r.tileEnd, r.finished, r.finishDone, r.decided,
                       r.started, r.tileStart, r.dispatched, r.nextTileEnd};
      bool inOrder = true;
      for (int k = 1; k < 8; ++k)
        inOrder = inOrder && at[k] >= at[k - 1];
      ordered += inOrder;
    }
    // Every tile but each worker's first has a full record.
    EXPECT_GE(ordered, recs.size() - blocks.size());
    // 16 tiles are published as 16 one-tile ranges (kRootRanges).
    EXPECT_EQ(fromRange, 0u);
  }
}

// The trace tells how each tile came: 1024 tiles are published as
// kRootRanges ranges of 4, so at least half of a range's tiles follow its
// first in the block that holds it (splitting for idle peers moves at most
// half of what is left).
TEST_P(RuntimeTest, TracesTilesThatFollowInARange) {
  RuntimeOptions options;
  options.traceRecords = 16;
  options.traceAllTiles = true;
  open(options);
  ASSERT_EQ(1024u / proto::kRootRanges, 4u);
  Buffer stamps = alloc(1024 * 8);
  GraphId spin = spinGraph(stamps, 1024, 1000);
  Submission s;
  ASSERT_OK(rt->submit(spin, Priority::Normal, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  ASSERT_OK(rt->park());
  std::vector<HopTraceRecord> recs;
  ASSERT_OK(rt->readHopTrace(recs));
  ASSERT_FALSE(recs.empty());
  size_t byOrigin[3] = {0, 0, 0};
  for (const HopTraceRecord &r : recs) {
    ASSERT_LT((uint32_t)r.origin, 3u);
    ++byOrigin[(uint32_t)r.origin];
  }
  EXPECT_EQ(byOrigin[(int)TileOrigin::Continued], 0u);
  EXPECT_GT(byOrigin[(int)TileOrigin::FromQueue], 0u);
  EXPECT_GE(2 * byOrigin[(int)TileOrigin::FromRange], byOrigin[(int)TileOrigin::FromQueue])
      << byOrigin[(int)TileOrigin::FromQueue] << " from queues, " << byOrigin[(int)TileOrigin::FromRange]
      << " from ranges";
}

// Diagnostics: with traceRecords the poller stamps each urgent one-task
// one-tile run it runs itself (readTrace: oldest first, steps in order).
TEST_P(RuntimeTest, TracesInlineUrgentSingletons) {
  rt.reset();
  RuntimeOptions options;
  options.traceRecords = 4;
  open(options);
  runOneTask("tiny", alloc(256 * 4), Priority::Urgent, 6);
  ASSERT_OK(rt->park()); // the slots are plain stores of the running kernel
  std::vector<TraceRecord> recs;
  ASSERT_OK(rt->readTrace(recs));
  ASSERT_EQ(recs.size(), 4u); // the last 4 of 6: the ring holds 4
  for (size_t i = 0; i < recs.size(); ++i) {
    const TraceRecord &r = recs[i];
    if (i) {
      EXPECT_GT(r.seenNs, recs[i - 1].seenNs) << "not oldest first";
    }
    uint64_t at[] = {r.pollIssued, r.seen, r.acquired, r.rowRead,
                     r.tileStart, r.tileEnd, r.completed, r.performed};
    for (int k = 1; k < 8; ++k)
      EXPECT_GE(at[k], at[k - 1]) << "record " << i << " step " << k;
  }
}

// Only the last urgent singleton of a ring read runs inline on block 0: a
// burst that arrives while block 0 runs a long inline tile is read at once,
// and all but its last go to the workers instead of waiting for each other
// on block 0. The simulator's poller is a warp of one lane, whose ring
// reads hold one entry each (the last of its read): there the test checks
// the results only.
TEST_P(RuntimeTest, BurstOfUrgentSingletonsRunsOnWorkers) {
  Buffer out = alloc(256 * 4);
  GraphId tiny = oneTaskGraph("tiny", out);
  GraphId hold = spinGraph(alloc(8), 1, gpu() ? 50'000'000 : 200'000'000);
  runOneTask("tiny", out, Priority::Urgent, 1); // the kernel is resident
  Stats before;
  ASSERT_OK(rt->stats(before));
  Submission held;
  ASSERT_OK(rt->submit(hold, Priority::Urgent, held));
  // Block 0 takes the hold, alone in its read, long before this ends.
  std::this_thread::sleep_for(std::chrono::milliseconds(gpu() ? 2 : 20));
  if (rt->poll(held).code() != ErrorCode::NotReady) {
    ASSERT_OK(rt->wait(held, kWaitUs));
    GTEST_SKIP() << "the host slept past the hold's tile; no burst behind it";
  }
  const int burst = 8;
  std::vector<Submission> subs(burst);
  for (Submission &s : subs)
    ASSERT_OK(rt->submit(tiny, Priority::Urgent, s));
  for (Submission &s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  ASSERT_OK(rt->wait(held, kWaitUs));
  Stats after;
  ASSERT_OK(rt->stats(after));
  EXPECT_EQ(after.completed - before.completed, uint64_t(burst + 1));
  EXPECT_EQ(after.tilesRun - before.tilesRun, uint64_t(burst + 1));
  if (!gpu())
    return;
  uint64_t onBlock0 = after.tilesPerBlock.at(0) - before.tilesPerBlock.at(0);
  if (onBlock0 == 1) // only possible when the hold was not run inline
    GTEST_SKIP() << "the hold and the burst were read together";
  // The hold and the burst's last entry; every entry inline gives 9.
  EXPECT_EQ(onBlock0, 2u);
}

// Park and relaunch: the kernel parks after idleParkUs without work and on
// park(); each next submission relaunches it and completes.
TEST_P(RuntimeTest, ParksWhenIdleAndRelaunches) {
  rt.reset();
  RuntimeOptions options;
  options.idleParkUs = gpu() ? 2000 : 20000;
  open(options);
  Buffer t = alloc(256 * 4);
  GraphId id = oneTaskGraph("tiny", t);
  const int cycles = 10;
  for (int i = 0; i < cycles; ++i) {
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Urgent, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    // Idle past the park time: the kernel exits by itself.
    auto idleStart = Clock::now();
    std::this_thread::sleep_for(std::chrono::microseconds(options.idleParkUs));
    Stats st;
    do {
      std::this_thread::sleep_for(std::chrono::microseconds(options.idleParkUs / 4));
      ASSERT_OK(rt->stats(st));
    } while (st.resident && seconds(Clock::now() - idleStart) < 5);
    EXPECT_FALSE(st.resident) << "cycle " << i;
    EXPECT_EQ(st.parks, (uint64_t)i + 1);
    EXPECT_EQ(st.launches, (uint64_t)i + 1);
  }
  // Requested parks, back to back with submissions.
  for (int i = 0; i < cycles; ++i) {
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Normal, s));
    ASSERT_OK(rt->park()); // drains first
    EXPECT_OK(rt->poll(s));
    ASSERT_OK(rt->park()); // already parked: a no-op
  }
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.launches, 2u * cycles);
  EXPECT_EQ(st.completed, 2u * cycles);
  EXPECT_FALSE(st.resident);
}

// The host is delayed after each ring store (TestHooks.h): the poller
// takes the entry and parks before the host reads the park phase. The
// host must not relaunch the kernel then. A park op was obeyed:
// relaunching undid the park, and park() waited 60 s for a park nobody
// would make again (seen once in a 2-GPU host's benchmark). A submission
// the kernel ran and then idled after needs no kernel either (a launch
// for nothing).
TEST_P(RuntimeTest, ParkAfterTheEntryBeforeTheHostLooksStaysParked) {
  struct Delay {
    explicit Delay(uint32_t us) { testhooks::delayAfterRingStoreUs = us; }
    ~Delay() { testhooks::delayAfterRingStoreUs = 0; }
  };
  const int cycles = 6;
  // idleParkUs 0: parks only on park() (as gpuos-bench runs); 200 us: the
  // kernel runs each submission and parks idle within the host's delay.
  for (uint32_t idleUs : {0u, 200u}) {
    SCOPED_TRACE("idleParkUs " + std::to_string(idleUs));
    rt.reset();
    RuntimeOptions options;
    options.idleParkUs = idleUs;
    open(options);
    if (IsSkipped())
      return;
    Buffer t = alloc(256 * 4);
    GraphId id = oneTaskGraph("tiny", t);
    uint64_t before = testhooks::parkedAfterConsuming;
    {
      Delay delay(20000); // us: far longer than a tiny run and an idle park
      for (int i = 0; i < cycles; ++i) {
        Submission s;
        ASSERT_OK(rt->submit(id, i % 2 ? Priority::Urgent : Priority::Normal, s));
        ASSERT_OK(rt->wait(s, kWaitUs));
        if (idleUs)
          continue; // the next submission finds it running or parked
        auto start = Clock::now();
        Status parked = rt->park();
        ASSERT_TRUE(parked.ok()) << "cycle " << i << ": " << parked.toString();
        EXPECT_LT(seconds(Clock::now() - start), 5.0) << "cycle " << i;
        Stats st;
        ASSERT_OK(rt->stats(st));
        EXPECT_FALSE(st.resident) << "cycle " << i;
      }
    }
    Stats st;
    ASSERT_OK(rt->stats(st));
    EXPECT_EQ(st.completed, (uint64_t)cycles);
    if (idleUs == 0) {
      // The branch under test was taken at each park op (the delay is far
      // longer than the poller needs to obey one).
      EXPECT_EQ(testhooks::parkedAfterConsuming - before, (uint64_t)cycles);
      EXPECT_EQ(st.launches, (uint64_t)cycles); // one per submission after a park
    } else {
      // Whether the kernel is still running when a submission comes
      // depends on timing: at most one launch per submission.
      EXPECT_LE(st.launches, (uint64_t)cycles);
    }
    ASSERT_OK(rt->close());
    rt.reset();
  }
}

// Many submissions: graphs of `count` tasks (some chained), each with its
// own counter, submitted round after round at mixed priorities without
// waiting in between, plus a 1000-tile task; every task runs exactly once
// per submission (>= 100k task executions on the GPU).
TEST_P(RuntimeTest, ManySubmissionsLoseNothing) {
  const int graphs = 10, tasksPerGraph = scaled(100, 20), rounds = scaled(100, 30);
  const int ids = graphs * tasksPerGraph;
  Buffer counts = alloc(ids * 4), hits = alloc(1000 * 4);
  zero(counts);
  zero(hits);
  std::vector<GraphId> gs;
  for (int gi = 0; gi < graphs; ++gi) {
    GraphSpec g;
    for (int k = 0; k < tasksPerGraph; ++k) {
      TaskSpec t{"count", {counts.arg()}, {ids, gi * tasksPerGraph + k}, {}};
      if (k % 10 != 0)
        t.deps.push_back(k - 1); // chains of ten
      g.tasks.push_back(std::move(t));
    }
    GraphId id;
    ASSERT_OK(rt->createGraph(g, id));
    gs.push_back(id);
  }
  GraphSpec hg;
  hg.tasks.push_back({"hits", {hits.arg()}, {1000}, {}});
  GraphId hitsGraph;
  ASSERT_OK(rt->createGraph(hg, hitsGraph));

  auto t0 = Clock::now();
  std::vector<Submission> subs;
  for (int r = 0; r < rounds; ++r) {
    for (int gi = 0; gi < graphs; ++gi) {
      Submission s;
      ASSERT_OK(rt->submit(gs[gi], static_cast<Priority>((r + gi) % 3), s));
      subs.push_back(s);
    }
    Submission s;
    ASSERT_OK(rt->submit(hitsGraph, Priority::Background, s));
    subs.push_back(s);
  }
  for (const Submission &s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  double elapsed = seconds(Clock::now() - t0);
  std::vector<uint32_t> c = readU32(counts, ids), h = readU32(hits, 1000);
  int wrong = 0;
  for (int i = 0; i < ids; ++i)
    wrong += c[i] != (uint32_t)rounds;
  EXPECT_EQ(wrong, 0) << "counter 0 = " << c[0];
  wrong = 0;
  for (int i = 0; i < 1000; ++i)
    wrong += h[i] != (uint32_t)rounds;
  EXPECT_EQ(wrong, 0) << "hits[0] = " << h[0];
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.tasksRun, (uint64_t)rounds * (ids + 1));
  EXPECT_EQ(st.tilesRun, (uint64_t)rounds * (ids + 1000));
  std::printf("[   info   ] %s: %llu tasks (%llu tiles) in %.3f s\n",
              GetParam().c_str(), (unsigned long long)st.tasksRun,
              (unsigned long long)st.tilesRun, elapsed);
}

// Several host threads submit and wait at once.
TEST_P(RuntimeTest, ConcurrentSubmitters) {
  const int threads = 4, each = scaled(500, 50);
  Buffer counts = alloc(threads * 4);
  zero(counts);
  std::vector<GraphId> gs(threads);
  for (int i = 0; i < threads; ++i) {
    GraphSpec g;
    g.tasks.push_back({"count", {counts.arg()}, {threads, i}, {}});
    ASSERT_OK(rt->createGraph(g, gs[i]));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      for (int k = 0; k < each; ++k) {
        Submission s;
        if (!rt->submit(gs[i], static_cast<Priority>(k % 3), s).ok() ||
            !rt->wait(s, kWaitUs).ok())
          ++failures;
      }
    });
  for (std::thread &t : pool)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<uint32_t> c = readU32(counts, threads);
  for (int i = 0; i < threads; ++i)
    EXPECT_EQ(c[i], (uint32_t)each) << i;
}

// A tile whose dispatch returns an error (here: a kind the image's switch
// does not know) fails its submission with a message; the runtime goes on.
TEST_P(RuntimeTest, TaskErrorsFailTheSubmission) {
  Buffer sink = alloc(64);
  GraphId bad = oneTaskGraph("missing", sink);
  Submission s;
  ASSERT_OK(rt->submit(bad, Priority::Urgent, s));
  Status st = rt->wait(s, kWaitUs);
  EXPECT_EQ(st.code(), ErrorCode::TaskFailed);
  EXPECT_EQ(st.message(), "a task of the graph failed: task 0 ('missing', "
                          "gpuos_task_missing) of graph " + std::to_string(bad) +
                              ", tile 0, gpuos_dispatch returned 1008");
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::TaskFailed); // remembered
  // In a bigger graph the failure travels in the run's counter: the graph
  // still completes (its other tasks run) and reports the failing task.
  Buffer t = alloc(1024);
  GraphSpec mixed;
  mixed.tasks.push_back({"tiny", {t.arg()}, {}, {}});
  mixed.tasks.push_back({"missing", {sink.arg()}, {}, {0}});
  mixed.tasks.push_back({"tiny", {t.arg()}, {}, {1}});
  GraphId mixedId;
  ASSERT_OK(rt->createGraph(mixed, mixedId));
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK(rt->submit(mixedId, Priority::Normal, s));
    st = rt->wait(s, kWaitUs);
    EXPECT_EQ(st.code(), ErrorCode::TaskFailed) << round;
    EXPECT_EQ(st.message(), "a task of the graph failed: task 1 ('missing', "
                            "gpuos_task_missing) of graph " +
                                std::to_string(mixedId) +
                                ", tile 0, gpuos_dispatch returned 1008");
  }
  // A run of one task of many tiles completes when its last tile is
  // counted (no tasksLeft decrement): every tile fails here, and each
  // priority's run reports it; the slot's counters are clean afterwards.
  Buffer many = alloc(300 * 4);
  GraphSpec wide;
  wide.tasks.push_back({"missing_tiles", {many.arg()}, {300}, {}});
  GraphId wideId;
  ASSERT_OK(rt->createGraph(wide, wideId));
  for (Priority p : {Priority::Urgent, Priority::Normal, Priority::Background}) {
    ASSERT_OK(rt->submit(wideId, p, s));
    st = rt->wait(s, kWaitUs);
    EXPECT_EQ(st.code(), ErrorCode::TaskFailed) << (int)p;
    EXPECT_NE(st.message().find("task 0 ('missing_tiles', gpuos_task_missing_tiles) of graph " +
                                std::to_string(wideId)),
              std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("gpuos_dispatch returned 1012"), std::string::npos)
        << st.message();
  }
  GraphSpec ok;
  ok.tasks.push_back({"tiny", {t.arg()}, {}, {}});
  GraphId good;
  ASSERT_OK(rt->createGraph(ok, good));
  ASSERT_OK(rt->submit(good, Priority::Urgent, s));
  EXPECT_OK(rt->wait(s, kWaitUs));
  Buffer y = alloc(3000 * 4);
  GraphSpec hits; // the same shape of run after the failures: counted right
  hits.tasks.push_back({"hits", {y.arg()}, {3000}, {}});
  GraphId hitsId;
  ASSERT_OK(rt->createGraph(hits, hitsId));
  zero(y);
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK(rt->submit(hitsId, round == 1 ? Priority::Urgent : Priority::Normal, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
  }
  std::vector<uint32_t> h = readU32(y, 3000);
  for (uint32_t i = 0; i < 3000; ++i)
    ASSERT_EQ(h[i], 3u) << i;
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.failed, 7u);
  EXPECT_EQ(stats.completed, 11u);
}

// Misuse is rejected on the host with a message.
TEST_P(RuntimeTest, RejectsMisuse) {
  Submission s;
  Status st = rt->submit(999, Priority::Urgent, s);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "unknown graph 999");
  st = rt->wait(Submission{12345}, 0);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "unknown submission 12345");
  EXPECT_EQ(rt->free(0x1234).message(),
            "free: 4660 is not a buffer from alloc() (or was freed)");
  Buffer b = alloc(16);
  EXPECT_OK(rt->free(b.ptr));
  EXPECT_EQ(rt->free(b.ptr).code(), ErrorCode::InvalidArgument);

  // A graph with work in flight cannot be destroyed; wait() can time out.
  Buffer stamps = alloc(8);
  GraphId spin = spinGraph(stamps, 1, gpu() ? 50'000'000 : 200'000'000);
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  st = rt->destroyGraph(spin);
  EXPECT_EQ(st.message(), "graph " + std::to_string(spin) +
                              " has 1 submissions in flight");
  st = rt->wait(s, 1000);
  EXPECT_EQ(st.code(), ErrorCode::Timeout);
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::NotReady);
  EXPECT_OK(rt->wait(s, kWaitUs));
  EXPECT_OK(rt->destroyGraph(spin));
  EXPECT_EQ(rt->submit(spin, Priority::Urgent, s).message(),
            "unknown graph " + std::to_string(spin));
  EXPECT_EQ(rt->submit(spin, static_cast<Priority>(7), s).message(),
            "priority 7 is not urgent (0), normal (1) or background (2)");
}

// After close() every call says so; close() twice is fine.
TEST_P(RuntimeTest, ClosedRuntimeRejectsEverything) {
  Buffer t = alloc(1024);
  GraphSpec g;
  g.tasks.push_back({"tiny", {t.arg()}, {}, {}});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Urgent, s));
  ASSERT_OK(rt->close());
  EXPECT_TRUE(rt->closed());
  EXPECT_OK(rt->close());
  EXPECT_EQ(rt->submit(id, Priority::Urgent, s).code(), ErrorCode::Closed);
  EXPECT_EQ(rt->wait(s, 0).code(), ErrorCode::Closed);
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::Closed);
  Buffer b;
  Status st = rt->alloc(16, b);
  EXPECT_EQ(st.code(), ErrorCode::Closed);
  EXPECT_EQ(st.message(), "the runtime is closed");
  EXPECT_EQ(rt->createGraph(g, id).code(), ErrorCode::Closed);
  EXPECT_EQ(rt->park().code(), ErrorCode::Closed);
  Stats stats;
  EXPECT_EQ(rt->stats(stats).code(), ErrorCode::Closed);
  rt.reset();
}

// Loading the same image again (a swap) keeps the graphs: their kinds are
// rebound by name and they run on the new module.
TEST_P(RuntimeTest, ReloadingTheImageKeepsGraphs) {
  Buffer t = alloc(1024);
  GraphId id = oneTaskGraph("tiny", t);
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Urgent, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  std::vector<char> cubin;
  std::string json;
  ASSERT_OK(testimage::readImage(GetParam(), false, cubin, json));
  ASSERT_OK(rt->loadImage(cubin, json));
  ASSERT_OK(rt->submit(id, Priority::Urgent, s));
  EXPECT_OK(rt->wait(s, kWaitUs));
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.swaps, 1u);
}

// Without an image, graphs cannot be made; options are checked.
TEST(RuntimeSim, NeedsImageAndValidOptions) {
  std::unique_ptr<Runtime> rt;
  ASSERT_OK(Runtime::openWithBackend(testimage::makeTestSimBackend(2),
                                     RuntimeOptions(), rt));
  GraphId id;
  Status st = rt->createGraph(GraphSpec{}, id);
  EXPECT_EQ(st.message(), "no image is loaded");
  RuntimeOptions bad;
  bad.ringCapacity = 1000;
  std::unique_ptr<Runtime> rt2;
  st = Runtime::openWithBackend(testimage::makeTestSimBackend(2), bad, rt2);
  EXPECT_EQ(st.message(), "ringCapacity must be a power of two in [32, 2^24]");
  std::vector<char> cubin = {'x'};
  st = rt->loadImage(cubin, std::string("{\"abi\": 0, \"tasks\": []}"));
  EXPECT_EQ(st.code(), ErrorCode::BadImage);
  EXPECT_EQ(st.message(), "the manifest lists no tasks");
}

/// The sharing tests' pair on the simulator: a background graph of
/// `bgTiles` spin tiles of `bgNs` each and an urgent graph of two tiles of
/// `urgentNs`, each tile stamping its end time (zero before it ran).
struct SpinPair {
  Buffer bgStamps, uStamps;
  GraphId bg = 0, urgent = 0;

  Status create(Runtime &rt, uint32_t bgTiles, uint64_t bgNs, uint64_t urgentNs) {
    GPUOS_RETURN_IF_ERROR(rt.alloc(bgTiles * 8, bgStamps));
    GPUOS_RETURN_IF_ERROR(rt.alloc(2 * 8, uStamps));
    std::vector<uint64_t> zeros(bgTiles, 0);
    GPUOS_RETURN_IF_ERROR(rt.copyToDevice(bgStamps.ptr, zeros.data(), bgTiles * 8));
    GraphSpec b, u;
    b.tasks.push_back({"spin", {bgStamps.arg()}, {(int64_t)bgTiles, (int64_t)bgNs}, {}});
    u.tasks.push_back({"spin", {uStamps.arg()}, {2, (int64_t)urgentNs}, {}});
    GPUOS_RETURN_IF_ERROR(rt.createGraph(b, bg));
    return rt.createGraph(u, urgent);
  }
};

// RuntimeOptions::urgentExclusive on the simulator (6 workers): while an
// urgent graph of two long tiles runs, background tiles keep finishing
// on the other workers without it, and none start with it (those running
// when it arrived finish within one tile). Stamps are each tile's end on
// the simulator's clock; the window leaves a margin for descheduled spin
// threads on a loaded machine. Afterwards background work runs again: the
// urgent run left the in-flight count.
TEST(RuntimeSim, UrgentExclusiveHoldsOtherWorkBack) {
  const uint32_t bgTiles = 400;
  const uint64_t bgNs = 2'000'000, urgentNs = 150'000'000;
  for (bool exclusive : {false, true}) {
    SCOPED_TRACE(exclusive ? "urgentExclusive" : "default");
    std::unique_ptr<Runtime> rt;
    RuntimeOptions options;
    options.urgentExclusive = exclusive;
    ASSERT_OK(testimage::openSimWithImage(6, options, rt));
    SpinPair pair;
    ASSERT_OK(pair.create(*rt, bgTiles, bgNs, urgentNs));
    const Buffer &bgStamps = pair.bgStamps, &uStamps = pair.uStamps;
    Submission b, u;
    ASSERT_OK(rt->submit(pair.bg, Priority::Background, b));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_OK(rt->submit(pair.urgent, Priority::Urgent, u));
    ASSERT_OK(rt->wait(u, kWaitUs));
    ASSERT_OK(rt->wait(b, kWaitUs));
    std::vector<uint64_t> bgEnd(bgTiles), uEnd(2);
    ASSERT_OK(rt->copyFromDevice(bgEnd.data(), bgStamps.ptr, bgTiles * 8));
    ASSERT_OK(rt->copyFromDevice(uEnd.data(), uStamps.ptr, 2 * 8));
    ASSERT_EQ(std::count(bgEnd.begin(), bgEnd.end(), 0u), 0) << "a background tile did not run";
    // Both urgent tiles ran in [start, end]; the window is its middle.
    uint64_t start = std::min(uEnd[0], uEnd[1]) - urgentNs;
    uint64_t end = std::min(uEnd[0], uEnd[1]);
    uint64_t from = start + 40'000'000, to = end - 10'000'000;
    long inside = std::count_if(bgEnd.begin(), bgEnd.end(),
                                [&](uint64_t t) { return t > from && t < to; });
    if (exclusive)
      EXPECT_EQ(inside, 0) << "background tiles finished while the urgent run was in flight";
    else
      EXPECT_GT(inside, 10) << "the other workers idled beside the urgent run";
    // The urgent run left the in-flight count: background runs on its own.
    std::vector<uint64_t> zeros(bgTiles, 0);
    ASSERT_OK(rt->copyToDevice(bgStamps.ptr, zeros.data(), bgTiles * 8));
    ASSERT_OK(rt->submit(pair.bg, Priority::Background, b));
    ASSERT_OK(rt->wait(b, 10'000'000));
    ASSERT_OK(rt->close());
  }
}

// RuntimeOptions::urgentSMs on the simulator (6 workers, each on its own
// "SM"; the poller's is SM 0): with 3, workers 1 and 2 serve only urgent
// work. The background graph's tiles all run on workers 3-6, and an urgent
// graph submitted while each of those is inside a long background tile
// runs at once on the reserved two instead of waiting for a tile boundary:
// one task of two tiles, then two dependent tasks of four tiles, which runs
// as a gang of only the two reserved workers (a member on a busy worker
// would hold the others back). Values that could leave no worker to the
// other priorities are refused.
TEST(RuntimeSim, UrgentSMsServeOnlyUrgentWork) {
  const uint32_t bgTiles = 8;
  const uint64_t bgNs = 600'000'000, urgentNs = 10'000'000;
  RuntimeOptions options;
  options.urgentSMs = 3;
  std::unique_ptr<Runtime> rt;
  ASSERT_OK(testimage::openSimWithImage(6, options, rt));
  SpinPair pair;
  ASSERT_OK(pair.create(*rt, bgTiles, bgNs, urgentNs));
  Buffer stamps[2];
  GraphSpec wide;
  for (uint32_t k = 0; k < 2; ++k) {
    ASSERT_OK(rt->alloc(4 * 8, stamps[k]));
    wide.tasks.push_back({"spin", {stamps[k].arg()}, {4, (int64_t)urgentNs}, {}});
  }
  wide.tasks[1].deps = {0};
  GraphId wideId;
  ASSERT_OK(rt->createGraph(wide, wideId));
  // Milliseconds from submitting `urgent` to its end, with the background
  // graph submitted just before.
  auto besideBackground = [&](GraphId urgent, double &ms) {
    Submission b, u;
    ASSERT_OK(rt->submit(pair.bg, Priority::Background, b));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto submitted = std::chrono::steady_clock::now();
    ASSERT_OK(rt->submit(urgent, Priority::Urgent, u));
    ASSERT_OK(rt->wait(u, kWaitUs));
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                   submitted).count();
    ASSERT_OK(rt->wait(b, kWaitUs));
  };
  double oneTaskMs = 0, gangMs = 0;
  besideBackground(pair.urgent, oneTaskMs);
  besideBackground(wideId, gangMs);
  // A background tile has at least 550 ms left when the urgent graph comes.
  EXPECT_LT(oneTaskMs, 300.0) << "the urgent graph waited for a background tile";
  EXPECT_LT(gangMs, 300.0) << "the gang waited for a member on a busy worker";
  Stats s;
  ASSERT_OK(rt->stats(s));
  EXPECT_EQ(s.gangRuns, 1u);
  ASSERT_EQ(s.tilesPerBlock.size(), 7u);
  EXPECT_EQ(s.tilesPerBlock[1] + s.tilesPerBlock[2], 2u + 8u)
      << "the reserved workers ran other work, or not the urgent tiles";
  uint64_t others = 0;
  for (size_t k = 3; k < 7; ++k)
    others += s.tilesPerBlock[k];
  EXPECT_EQ(others, 2 * bgTiles);
  ASSERT_OK(rt->close());

  options.urgentSMs = 6;
  Status st = Runtime::openWithBackend(testimage::makeTestSimBackend(6), options, rt);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "urgentSMs is 6, but the device has 6 SMs: at least one "
                          "must serve the other priorities");
  // The simulator fits two blocks an SM: four SMs could hold all six workers.
  options.urgentSMs = 4;
  st = testimage::openSimWithImage(6, options, rt);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "urgentSMs is 4: 4 SMs of up to 2 blocks each could hold all 6 "
                          "workers of this image, leaving none for the other priorities");
  if (rt)
    ASSERT_OK(rt->close());
}

// With 12 simulated workers a released successor is published as 12
// ranges, more than one publish chunk: thread 0 reserves them and the
// block's warp publishes them (Worker.h publishStaged; a warp of one lane
// here), two successors at most, the third by thread 0 alone. The root's
// one-tile successor is kept and starts a chain of kept continuations,
// whose tasksLeft decrements are deferred to the chain's end, and a join
// waits for all of it. Every tile runs exactly once per submission, and
// every run completes (a lost deferred decrement would hang it).
TEST(RuntimeSim, WideSuccessorsAndDeferredDecrements) {
  std::unique_ptr<Runtime> rt;
  ASSERT_OK(testimage::openSimWithImage(12, RuntimeOptions(), rt));
  const uint32_t wide[3] = {300, 200, 100};
  const uint32_t kChain = 8;
  Buffer root, counts, bufs[3];
  ASSERT_OK(rt->alloc(4, root));
  ASSERT_OK(rt->alloc(16 * 4, counts));
  for (int k = 0; k < 3; ++k)
    ASSERT_OK(rt->alloc(wide[k] * 4, bufs[k]));
  std::vector<uint32_t> zeros(300, 0);
  ASSERT_OK(rt->copyToDevice(root.ptr, zeros.data(), 4));
  ASSERT_OK(rt->copyToDevice(counts.ptr, zeros.data(), 16 * 4));
  for (int k = 0; k < 3; ++k)
    ASSERT_OK(rt->copyToDevice(bufs[k].ptr, zeros.data(), wide[k] * 4));
  GraphSpec g;
  g.tasks.push_back({"hits", {root.arg()}, {1}, {}}); // 0
  for (int k = 0; k < 3; ++k)                          // 1..3: wide
    g.tasks.push_back({"hits", {bufs[k].arg()}, {(int64_t)wide[k]}, {0}});
  for (uint32_t k = 0; k < kChain; ++k) // 4..11: a chain after the root
    g.tasks.push_back({"count", {counts.arg()}, {16, (int64_t)k}, {k ? 3 + k : 0}});
  g.tasks.push_back({"count", {counts.arg()}, {16, (int64_t)kChain}, // join
                     {1, 2, 3, 3 + kChain}});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  const int rounds = 30;
  for (int r = 0; r < rounds; ++r) {
    Submission s;
    ASSERT_OK(rt->submit(id, static_cast<Priority>(r % 3), s));
    ASSERT_OK(rt->wait(s, 30'000'000));
  }
  std::vector<uint32_t> got(16);
  ASSERT_OK(rt->copyFromDevice(got.data(), counts.ptr, 16 * 4));
  for (uint32_t k = 0; k <= kChain; ++k)
    EXPECT_EQ(got[k], (uint32_t)rounds) << "count " << k;
  for (int k = 0; k < 3; ++k) {
    std::vector<uint32_t> hits(wide[k]);
    ASSERT_OK(rt->copyFromDevice(hits.data(), bufs[k].ptr, wide[k] * 4));
    for (uint32_t t = 0; t < wide[k]; ++t)
      ASSERT_EQ(hits[t], (uint32_t)rounds) << "task " << k + 1 << " tile " << t;
  }
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.tasksRun, (uint64_t)rounds * g.tasks.size());
}

// A non-urgent run of more root ranges than the poller's warp has lanes,
// submitted beside another run, goes into its root queue as one expand
// entry whose worker publishes the ranges and frees the entry's slot
// (Protocol.h, kExpandKind). With queues of 128 slots, 300 runs of 48
// one-tile ranges wrap the normal root queue and the shared queues many
// times; each run runs every tile once. Without the free, the poller waits
// forever for its slot on the next lap.
TEST_P(RuntimeTest, ExpandedRunsFreeTheirRootSlots) {
  RuntimeOptions options;
  options.queueCapacity = 128;
  if (!reopen(options))
    return;
  const uint32_t tiles = 48; // 48 ranges: more than 32 lanes
  Buffer stamps = alloc(tiles * 8);
  GraphId id = spinGraph(stamps, tiles, 1000);
  // Runs are expanded only beside other runs: a long tile stays in flight
  // through the rounds (submitted again whenever it has ended).
  GraphId holdId = spinGraph(alloc(8), 1, gpu() ? 5'000'000 : 50'000'000);
  Stats before;
  ASSERT_OK(rt->stats(before));
  Submission hold;
  uint32_t holds = 0;
  for (int round = 0; round < 300; ++round) {
    if (holds == 0 || rt->poll(hold).code() != ErrorCode::NotReady) {
      if (holds > 0)
        ASSERT_OK(rt->wait(hold, kWaitUs));
      ASSERT_OK(rt->submit(holdId, Priority::Background, hold));
      ++holds;
    }
    Submission s;
    ASSERT_OK(rt->submit(id, round % 3 ? Priority::Normal : Priority::Background, s));
    Status st = rt->wait(s, kWaitUs);
    ASSERT_TRUE(st.ok()) << "round " << round << ": " << st.toString();
  }
  ASSERT_OK(rt->wait(hold, kWaitUs));
  zero(stamps);
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Normal, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  std::vector<uint64_t> got(tiles);
  ASSERT_OK(rt->copyFromDevice(got.data(), stamps.ptr, tiles * 8));
  EXPECT_EQ(std::count(got.begin(), got.end(), 0u), 0) << "a tile did not run";
  Stats after;
  ASSERT_OK(rt->stats(after));
  EXPECT_EQ(after.tilesRun - before.tilesRun, 301u * tiles + holds);
  EXPECT_EQ(after.completed - before.completed, 301u + holds);
}

// A non-urgent run of more root ranges than the poller's publish chunk
// (8 x its lanes), submitted with nothing else in flight, is split
// (Poller.h, startRun): the chunk holds an expand entry for the ranges past
// it, then the first ranges, and the worker that takes the entry publishes
// the rest from the right template on. Three root tasks of 150, 100 and 90
// one-tile ranges (340 > 256) over queues of 1024 slots: each round runs
// every tile exactly once (a range published twice or skipped by the
// offset shows in the counts) and the root queue wraps many times (an
// expand entry whose slot were not freed would stop the poller on the
// next lap).
TEST_P(RuntimeTest, IdleRunsOfMoreRangesThanAChunkAreSplit) {
  RuntimeOptions options;
  options.queueCapacity = 1024;
  if (!reopen(options))
    return;
  const uint32_t wide[3] = {150, 100, 90};
  Buffer bufs[3];
  GraphSpec g;
  for (int k = 0; k < 3; ++k) {
    bufs[k] = alloc(wide[k] * 4);
    zero(bufs[k]);
    g.tasks.push_back({"hits", {bufs[k].arg()}, {(int64_t)wide[k]}, {}});
  }
  GraphId id = 0;
  ASSERT_OK(rt->createGraph(g, id));
  const int rounds = 40;
  for (int round = 0; round < rounds; ++round) {
    Submission s;
    ASSERT_OK(rt->submit(id, round % 2 ? Priority::Normal : Priority::Background, s));
    Status st = rt->wait(s, kWaitUs);
    ASSERT_TRUE(st.ok()) << "round " << round << ": " << st.toString();
  }
  for (int k = 0; k < 3; ++k) {
    std::vector<uint32_t> hits = readU32(bufs[k], wide[k]);
    for (uint32_t t = 0; t < wide[k]; ++t)
      ASSERT_EQ(hits[t], (uint32_t)rounds) << "task " << k << " tile " << t;
  }
}

// A graph keeps its run slots for its next submissions. With every slot
// taken by one graph's burst and nothing in flight, another graph takes an
// idle slot back (it was refused: "all 4 run slots are in use"), and the
// first graph's slots keep working with one fewer.
TEST_P(RuntimeTest, IdleRunSlotsGoToOtherGraphs) {
  RuntimeOptions options;
  options.maxRuns = 4;
  if (!reopen(options))
    return;
  Buffer counts = alloc(16 * 4);
  zero(counts);
  GraphId burst = oneTaskGraph("count", counts, {1, 0});
  std::vector<Submission> subs(4);
  for (Submission &s : subs)
    ASSERT_OK(rt->submit(burst, Priority::Normal, s));
  for (Submission &s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  GraphId other = oneTaskGraph("count", counts, {1, 1});
  ASSERT_NE(other, 0u);
  for (GraphId id : {other, burst, other}) {
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Normal, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
  }
  std::vector<uint32_t> c = readU32(counts, 2);
  EXPECT_EQ(c[0], 5u);
  EXPECT_EQ(c[1], 2u);
  // Slots held by submissions in flight are not taken: a fifth graph, with
  // four runs of a long tile in flight, is refused with the reason.
  GraphId hold = spinGraph(alloc(8), 1, gpu() ? 20'000'000 : 200'000'000);
  GraphId hold2 = spinGraph(alloc(8), 1, gpu() ? 20'000'000 : 200'000'000);
  Submission held[4];
  for (int k = 0; k < 4; ++k)
    ASSERT_OK(rt->submit(k % 2 ? hold : hold2, Priority::Background, held[k]));
  GraphSpec late;
  late.tasks.push_back({"count", {counts.arg()}, {1, 2}, {}});
  GraphId lateId = 0;
  Status st = rt->createGraph(late, lateId);
  EXPECT_EQ(st.code(), ErrorCode::OutOfMemory) << st.toString();
  EXPECT_NE(st.message().find("in use by submissions in flight"), std::string::npos)
      << st.message();
  for (Submission &s : held)
    ASSERT_OK(rt->wait(s, kWaitUs));
}

// A submission the ring cannot take in time (the poller is running an
// urgent one-tile graph inline, so it reads no entry) fails with Timeout and
// gives its run slot and admitted tiles back: the graph can be destroyed
// afterwards, and the submissions the ring took all complete.
TEST_P(RuntimeTest, RingFullTimeoutGivesTheRunSlotBack) {
  RuntimeOptions options;
  options.ringCapacity = 32;
  if (!reopen(options))
    return;
  testhooks::Scoped<uint32_t> limit(testhooks::ringFullTimeoutMs, 100);
  Buffer counts = alloc(4);
  zero(counts);
  GraphId fill = oneTaskGraph("count", counts, {1, 0});
  GraphId hold = spinGraph(alloc(8), 1, 1'500'000'000);
  Submission held;
  ASSERT_OK(rt->submit(hold, Priority::Urgent, held));
  std::this_thread::sleep_for(std::chrono::milliseconds(100)); // running inline
  std::vector<Submission> posted;
  Status refused;
  for (int k = 0; k < 64 && refused.ok(); ++k) {
    Submission s;
    refused = rt->submit(fill, Priority::Normal, s);
    if (refused.ok())
      posted.push_back(s);
  }
  ASSERT_EQ(refused.code(), ErrorCode::Timeout) << refused.toString();
  EXPECT_EQ(refused.message(),
            "the submission ring stayed full for 100 ms (the kernel's poller "
            "took no entry)");
  EXPECT_GE(posted.size(), 30u); // the ring's 32 entries, less what was read
  ASSERT_OK(rt->wait(held, kWaitUs));
  for (Submission &s : posted)
    ASSERT_OK(rt->wait(s, kWaitUs));
  EXPECT_EQ(readU32(counts, 1)[0], (uint32_t)posted.size());
  EXPECT_OK(rt->destroyGraph(fill));
}

// Destroyed graphs' arena ranges wait for a safe point while the kernel may
// still read them, and are taken back at once when none is resident: a full
// arena of destroyed graphs holds as many graphs again.
TEST_P(RuntimeTest, ArenaRangesOfDestroyedGraphsAreReused) {
  RuntimeOptions options;
  options.arenaBytes = 1 << 16;
  if (!reopen(options))
    return;
  Buffer counts = alloc(4);
  zero(counts);
  GraphSpec big;
  for (int k = 0; k < 64; ++k)
    big.tasks.push_back({"count", {counts.arg()}, {1, 0}, {}});
  auto fill = [&](std::vector<GraphId> &ids) -> Status {
    for (;;) {
      GraphId id = 0;
      Status st = rt->createGraph(big, id);
      if (!st.ok())
        return st;
      ids.push_back(id);
    }
  };
  std::vector<GraphId> first, second;
  Status full = fill(first);
  EXPECT_EQ(full.code(), ErrorCode::OutOfMemory) << full.toString();
  ASSERT_GE(first.size(), 2u);
  Submission s;
  ASSERT_OK(rt->submit(first.front(), Priority::Normal, s)); // resident now
  ASSERT_OK(rt->wait(s, kWaitUs));
  for (GraphId id : first)
    ASSERT_OK(rt->destroyGraph(id));
  full = fill(second);
  EXPECT_EQ(full.code(), ErrorCode::OutOfMemory) << full.toString();
  EXPECT_EQ(second.size(), first.size());
  ASSERT_OK(rt->submit(second.back(), Priority::Normal, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  EXPECT_EQ(readU32(counts, 1)[0], 128u);
}

// Tasks of many tiles are published as a few ranges that workers split and
// give back (Protocol.h): every tile of every task still runs exactly once
// per submission, through fan-out and join dependencies between multi-tile
// tasks, with urgent multi-tile and one-tile graphs submitted beside them
// (urgent work waiting at a tile boundary makes a range go back to its
// queue, so ranges are given back and re-split all the time).
TEST_P(RuntimeTest, ManyTileTasksRunEveryTileOnce) {
  const int n = scaled(12000, 3000), rounds = scaled(20, 30);
  const int sizes[4] = {n, n, n / 2 + 7, 3};
  Buffer bufs[4] = {alloc(sizes[0] * 4), alloc(sizes[1] * 4),
                    alloc(sizes[2] * 4), alloc(sizes[3] * 4)};
  for (const Buffer &b : bufs)
    zero(b);
  GraphSpec g; // a -> {b, c} -> d
  g.tasks.push_back({"hits", {bufs[0].arg()}, {sizes[0]}, {}});
  g.tasks.push_back({"hits", {bufs[1].arg()}, {sizes[1]}, {0}});
  g.tasks.push_back({"hits", {bufs[2].arg()}, {sizes[2]}, {0}});
  g.tasks.push_back({"hits", {bufs[3].arg()}, {sizes[3]}, {1, 2}});
  GraphId dag;
  ASSERT_OK(rt->createGraph(g, dag));
  const int un = scaled(2000, 300);
  Buffer uhits = alloc(un * 4), tiny = alloc(256 * 4);
  zero(uhits);
  GraphId urgentMany, urgentOne;
  ASSERT_OK(rt->createGraph(GraphSpec{{{"hits", {uhits.arg()}, {un}, {}}}, Priority::Urgent},
                            urgentMany));
  ASSERT_OK(rt->createGraph(GraphSpec{{{"tiny", {tiny.arg()}, {}, {}}}, Priority::Urgent},
                            urgentOne));
  Stats st0;
  ASSERT_OK(rt->stats(st0));

  std::atomic<bool> done{false};
  std::atomic<int> urgentRuns{0}, urgentOnes{0};
  std::thread urgent([&] {
    for (int i = 0; !done.load() || i < 4; ++i) {
      Submission s;
      bool many = i % 2 == 0;
      if (!rt->submit(many ? urgentMany : urgentOne, Priority::Urgent, s).ok() ||
          !rt->wait(s, kWaitUs).ok()) {
        ADD_FAILURE() << "urgent submission " << i;
        break;
      }
      (many ? urgentRuns : urgentOnes)++;
    }
  });
  std::vector<Submission> subs;
  for (int r = 0; r < rounds; ++r) {
    Submission s;
    ASSERT_OK(rt->submit(dag, r % 2 ? Priority::Normal : Priority::Background, s));
    subs.push_back(s);
  }
  for (const Submission &s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  done.store(true);
  urgent.join();

  for (int t = 0; t < 4; ++t) {
    std::vector<uint32_t> h = readU32(bufs[t], sizes[t]);
    int wrong = 0;
    for (int i = 0; i < sizes[t]; ++i)
      wrong += h[i] != (uint32_t)rounds;
    EXPECT_EQ(wrong, 0) << "task " << t << ": hits[0] = " << h[0];
  }
  std::vector<uint32_t> u = readU32(uhits, un);
  int wrong = 0;
  for (int i = 0; i < un; ++i)
    wrong += u[i] != (uint32_t)urgentRuns.load();
  EXPECT_EQ(wrong, 0) << "urgent hits[0] = " << u[0] << ", runs " << urgentRuns.load();
  Stats st;
  ASSERT_OK(rt->stats(st));
  uint64_t tiles = (uint64_t)rounds * (sizes[0] + sizes[1] + sizes[2] + sizes[3]) +
                   (uint64_t)urgentRuns.load() * un + urgentOnes.load();
  EXPECT_EQ(st.tilesRun - st0.tilesRun, tiles);
  EXPECT_EQ(st.tasksRun - st0.tasksRun,
            (uint64_t)rounds * 4 + urgentRuns.load() + urgentOnes.load());
  std::printf("[   info   ] %s: %d rounds of %d tiles beside %d urgent many-tile "
              "and %d one-tile runs\n",
              GetParam().c_str(), rounds,
              sizes[0] + sizes[1] + sizes[2] + sizes[3], urgentRuns.load(),
              urgentOnes.load());
}

// An urgent task waits at most one tile per worker when the background
// task in the way is one task of many tiles run as ranges (the range is
// given back at the next tile boundary), and the background task still
// finishes every tile.
TEST_P(RuntimeTest, UrgentOvertakesARangeAtATileBoundary) {
  Stats st0;
  ASSERT_OK(rt->stats(st0));
  // Ranges of ~40 tiles per worker: without the give-back an urgent task
  // would wait for a whole range, several times the bound below. On the
  // GPU one task of 40 tiles per worker (64 root ranges, split over the
  // workers); on the simulator (a few workers) the spin task is the
  // successor of a one-tile task, so it is published as 8 ranges of 10-20
  // tiles, and its tiles are long enough for a loaded CPU.
  const uint64_t tileNs = gpu() ? 200'000 : 20'000'000;
  const uint32_t tiles = st0.workers * 40;
  Buffer stamps = alloc(tiles * 8), ustamp = alloc(16), first = alloc(4);
  GraphId background = 0;
  if (gpu()) {
    background = spinGraph(stamps, tiles, tileNs);
  } else {
    GraphSpec g;
    g.tasks.push_back({"hits", {first.arg()}, {1}, {}});
    g.tasks.push_back({"spin", {stamps.arg()}, {(int64_t)tiles, (int64_t)tileNs}, {0}});
    ASSERT_OK(rt->createGraph(g, background));
  }
  // Two tiles: through the queues and the workers, not run inline.
  GraphId urgent = spinGraph(ustamp, 2, 0);
  Submission warm;
  ASSERT_OK(rt->submit(urgent, Priority::Urgent, warm));
  ASSERT_OK(rt->wait(warm, kWaitUs));
  Submission bg;
  ASSERT_OK(rt->submit(background, Priority::Background, bg));
  double worst = 0;
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(tileNs * 3 / 2));
    Submission u;
    auto t1 = Clock::now();
    ASSERT_OK(rt->submit(urgent, Priority::Urgent, u));
    ASSERT_OK(rt->wait(u, kWaitUs));
    worst = std::max(worst, seconds(Clock::now() - t1));
  }
  EXPECT_EQ(rt->poll(bg).code(), ErrorCode::NotReady)
      << "the background graph finished before the urgent tasks";
  EXPECT_LT(worst, (gpu() ? 2.0 : 4.0) * tileNs * 1e-9 + (gpu() ? 0.0005 : 0.05))
      << "urgent latency " << worst * 1e6 << " us";
  ASSERT_OK(rt->wait(bg, kWaitUs));
  std::vector<uint64_t> bgStamps(tiles);
  ASSERT_OK(rt->copyFromDevice(bgStamps.data(), stamps.ptr, tiles * 8));
  EXPECT_EQ(std::count(bgStamps.begin(), bgStamps.end(), 0u), 0);
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.tilesRun - st0.tilesRun, (uint64_t)tiles + 12 + (gpu() ? 0 : 1));
}

// Completion callbacks: each fires exactly once with what wait would
// return, on the notifier thread, for successes, task failures and
// submissions that had already finished; a callback may submit more work;
// close() returns after the callbacks of what it drained have run.
TEST_P(RuntimeTest, CompletionCallbacksFireOnceWithTheResult) {
  struct Seen {
    std::mutex m;
    std::condition_variable cv;
    std::map<uint64_t, std::vector<Status>> calls;
    std::set<std::thread::id> threads;
    size_t total = 0;
  } seen;
  auto record = [&seen](Submission s, const Status &st) {
    std::lock_guard<std::mutex> lock(seen.m);
    seen.calls[s.id].push_back(st);
    seen.threads.insert(std::this_thread::get_id());
    ++seen.total;
    seen.cv.notify_all();
  };
  auto waitFor = [&seen](size_t n) {
    std::unique_lock<std::mutex> lock(seen.m);
    return seen.cv.wait_for(lock, std::chrono::seconds(30),
                            [&] { return seen.total >= n; });
  };
  const int n = scaled(200, 50);
  Buffer counts = alloc(4 * 4), sink = alloc(64);
  zero(counts);
  GraphId count = oneTaskGraph("count", counts, {4, 2});
  GraphId bad = oneTaskGraph("missing", sink);
  std::vector<Submission> subs;
  for (int i = 0; i < n; ++i) {
    Submission s;
    ASSERT_OK(rt->submit(i % 10 == 9 ? bad : count,
                         i % 3 == 0 ? Priority::Urgent : Priority::Normal, s));
    ASSERT_OK(rt->onComplete(s, record));
    subs.push_back(s);
  }
  ASSERT_TRUE(waitFor(n)) << seen.total << " of " << n << " callbacks";
  // One already finished: its callback comes too, with the same result.
  Submission done = subs.back();
  ASSERT_EQ(rt->wait(done, kWaitUs).code(), ErrorCode::TaskFailed);
  ASSERT_OK(rt->onComplete(done, record));
  ASSERT_TRUE(waitFor(n + 1));
  {
    std::lock_guard<std::mutex> lock(seen.m);
    for (int i = 0; i < n; ++i) {
      const std::vector<Status> &c = seen.calls[subs[i].id];
      ASSERT_EQ(c.size(), i == n - 1 ? 2u : 1u) << "submission " << i;
      if (i % 10 == 9) {
        EXPECT_EQ(c[0].code(), ErrorCode::TaskFailed) << i;
        EXPECT_TRUE(c[0].message().find("gpuos_dispatch returned 1008") !=
                    std::string::npos)
            << c[0].message();
      } else {
        EXPECT_OK(c[0]);
      }
    }
    EXPECT_EQ(seen.threads.size(), 1u);
    EXPECT_EQ(seen.threads.count(std::this_thread::get_id()), 0u);
  }
  int good = n - n / 10;
  EXPECT_EQ(readU32(counts, 4)[2], (uint32_t)good);

  // A callback that submits the next link of a chain: 20 in a row.
  std::atomic<int> links{0};
  std::function<void(Submission, const Status &)> next;
  next = [&](Submission, const Status &st) {
    EXPECT_OK(st);
    if (links.fetch_add(1) + 1 < 20) {
      Submission s;
      EXPECT_OK(rt->submit(count, Priority::Normal, s));
      EXPECT_OK(rt->onComplete(s, next));
    }
  };
  Submission first;
  ASSERT_OK(rt->submit(count, Priority::Normal, first));
  ASSERT_OK(rt->onComplete(first, next));
  EXPECT_TRUE(eventually([&] { return links.load() >= 20; }));
  EXPECT_EQ(links.load(), 20);
  EXPECT_EQ(readU32(counts, 4)[2], (uint32_t)good + 20);

  // Bad calls: an unknown submission, an empty callback.
  EXPECT_EQ(rt->onComplete(Submission{12345}, record).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(rt->onComplete(first, nullptr).code(), ErrorCode::InvalidArgument);

  // close() drains: callbacks registered on work in flight have run when
  // it returns, with the work's result.
  size_t before;
  {
    std::lock_guard<std::mutex> lock(seen.m);
    before = seen.total;
  }
  GraphId spin = spinGraph(alloc(64 * 8), 64, 200'000);
  std::vector<Submission> last;
  for (int i = 0; i < 4; ++i) {
    Submission s;
    ASSERT_OK(rt->submit(spin, Priority::Background, s));
    ASSERT_OK(rt->onComplete(s, record));
    last.push_back(s);
  }
  ASSERT_OK(rt->close());
  {
    std::lock_guard<std::mutex> lock(seen.m);
    EXPECT_EQ(seen.total, before + 4);
    for (const Submission &s : last) {
      ASSERT_EQ(seen.calls[s.id].size(), 1u);
      EXPECT_OK(seen.calls[s.id][0]);
    }
  }
  EXPECT_EQ(rt->onComplete(last[0], record).code(), ErrorCode::Closed);
  rt.reset();
}
