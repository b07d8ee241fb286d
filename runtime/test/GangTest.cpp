//===- GangTest.cpp - urgent graphs run as gangs, on simulator and GPU ----===//
//
// RuntimeOptions::gangs (Worker.h, "Gangs"): an urgent submission of a
// graph of several tasks that finds no other gang in flight (WhenIdle: no
// other run) runs as a gang (members take fixed shares of every task's
// tiles and wait on the device's dependency counters). These tests check that such runs compute what the
// CPU reference says, run every tile once, leave the run slot's counters
// at rest for the next run, fail cleanly, and that everything else still
// goes through the queues.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Runtime.h"

#include "RuntimeFixture.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <random>
#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

namespace {

/// Floats per tile of the test image's `stream` kind.
constexpr int64_t kStreamTile = 4096;

class GangTest : public RuntimeFixture {
protected:
  void SetUp() override {} // each test opens with its own options

  void openWith(GangPolicy gangs) {
    RuntimeOptions options;
    options.gangs = gangs;
    options.traceRecords = 16; // readHopTrace: how each tile came
    options.traceAllTiles = true;
    open(options);
  }

  uint64_t gangRuns() {
    Stats s;
    EXPECT_OK(rt->stats(s));
    return s.gangRuns;
  }

  /// Every one of the n floats of `b` is `want`.
  void expectAll(const Buffer &b, int64_t n, float want, int round = 0) {
    std::vector<float> out = readFloats(b, n);
    EXPECT_EQ(std::count(out.begin(), out.end(), want), n) << "round " << round;
  }

  /// z = 3 (3 x + 1) + 1 as two `stream` tasks through y (4.0 for x = 0);
  /// `backwards` lists them the other way round (task 0 depends on task 1).
  GraphId twoStreams(const Buffer &x, const Buffer &y, const Buffer &z, int64_t n,
                     bool backwards = false) {
    GraphSpec g;
    TaskSpec first{"stream", {x.arg(), y.arg()}, {n, n}, {}};
    TaskSpec second{"stream", {y.arg(), z.arg()}, {n, n}, {backwards ? 1u : 0u}};
    if (backwards)
      g.tasks = {second, first};
    else
      g.tasks = {first, second};
    GraphId id = 0;
    EXPECT_OK(rt->createGraph(g, id));
    return id;
  }

  /// Submits `background` and then the urgent `id`, waits for the urgent
  /// run, checks that the background one was still running (else the test
  /// proves nothing), then waits for it too.
  void urgentBehind(GraphId background, GraphId id) {
    Submission bg, urgent;
    ASSERT_OK(rt->submit(background, Priority::Background, bg));
    ASSERT_OK(rt->submit(id, Priority::Urgent, urgent));
    ASSERT_OK(rt->wait(urgent, kWaitUs));
    EXPECT_EQ(rt->poll(bg).code(), ErrorCode::NotReady)
        << "the background graph ended before the urgent one: the test proves nothing";
    ASSERT_OK(rt->wait(bg, kWaitUs));
  }

  /// z = 3 (3 x + 1) + 1 over `elems` floats, urgent, behind a running
  /// background graph, `rounds` times, each checked.
  struct ForwardBehind {
    Buffer x, y, z;
    int64_t elems = 0;
    GraphId fwd = 0, background = 0;
  };
  ForwardBehind forwardBehindBackground(int rounds) {
    ForwardBehind f;
    f.elems = kStreamTile * scaled(64, 6);
    f.x = alloc(f.elems * 4);
    f.y = alloc(f.elems * 4);
    f.z = alloc(f.elems * 4);
    zero(f.x);
    f.fwd = twoStreams(f.x, f.y, f.z, f.elems);
    f.background = longBackground();
    for (int round = 0; round < rounds; ++round) {
      zero(f.y);
      zero(f.z);
      urgentBehind(f.background, f.fwd);
      expectAll(f.z, f.elems, 4.0f, round);
    }
    return f;
  }

  /// A long background graph of many short tiles (an urgent entry bound to
  /// an owed ticket of a worker inside a background tile waits for that
  /// tile, ReadyQueue.h), within the queue's admission limit.
  GraphId longBackground() {
    const uint32_t tiles = scaled(20000, 400);
    return spinGraph(alloc(tiles * 8), tiles, 100'000); // 100 us tiles
  }

  /// Tiles traced since open (the last 64 per block) that came `from`.
  size_t tilesTraced(TileOrigin from) {
    EXPECT_OK(rt->park()); // trace slots are plain stores: read them parked
    std::vector<HopTraceRecord> recs;
    EXPECT_OK(rt->readHopTrace(recs));
    return std::count_if(recs.begin(), recs.end(),
                         [&](const HopTraceRecord &r) { return r.origin == from; });
  }
  /// Tiles traced since open that gang members ran.
  size_t gangTilesTraced() { return tilesTraced(TileOrigin::FromGang); }
};

INSTANTIATE_TEST_SUITE_P(Backends, GangTest, kBackends, backendName);

/// The test image's `stream` kind (tiles of 4096 floats, kStreamTile), as
/// the CPU reference: every input value shows in the output, so a tile that
/// read its input before the producer wrote it is caught.
double streamRef(double v) { return 3.0 * v + 1.0; }
bool near(float got, double want) {
  return std::fabs(got - want) <= 1e-6 * std::max(1.0, std::fabs(want));
}

/// A random DAG whose dependencies point to earlier tasks: `stream` tasks
/// of 1 to maxTiles tiles (more than the workers: gang members then run
/// several tiles of a task) reading an earlier output from a random
/// offset on (so a tile depends on tiles other members ran), and
/// `add4k` fan-ins of two earlier outputs. Buffers hold maxTiles * 4096
/// floats and are zeroed before each run.
struct RandomDag {
  GraphSpec spec;
  std::vector<Buffer> out;
  std::vector<std::vector<double>> ref;
  Buffer src;
  std::vector<float> input;
  size_t len = 0;
};

} // namespace

// Urgent runs alone on the GPU run as gangs and match the CPU reference,
// run after run on the same slot (the gang leaves gangLeft and tilesDone
// at rest); the same graph at normal priority, or with gangs off, goes
// through the queues and computes the same.
TEST_P(GangTest, RandomDagsMatchTheCpuReference) {
  for (bool gang : {true, false}) {
    SCOPED_TRACE(gang ? "gangs" : "queues only");
    if (rt)
      ASSERT_OK(rt->close());
    rt.reset();
    openWith(gang ? GangPolicy::OneAtATime : GangPolicy::Off);
    if (IsSkipped())
      return;
    const int maxTiles = scaled(600, 20), n = scaled(40, 14);
    RandomDag dag;
    dag.len = (size_t)maxTiles * kStreamTile;
    std::mt19937 rng(77);
    std::uniform_real_distribution<float> uni(-2.0f, 2.0f);
    dag.input.resize(dag.len);
    for (float &v : dag.input)
      v = uni(rng);
    dag.src = alloc(dag.len * 4);
    ASSERT_OK(rt->copyToDevice(dag.src.ptr, dag.input.data(), dag.len * 4));
    const int tileChoices[] = {1, 2, 3, 16, maxTiles};
    for (int k = 0; k < n; ++k) {
      dag.out.push_back(alloc(dag.len * 4));
      std::vector<double> r(dag.len, 0.0);
      std::uniform_int_distribution<int> earlier(0, std::max(0, k - 1));
      if (k >= 2 && rng() % 4 == 0) {
        uint32_t a = earlier(rng), b = earlier(rng);
        dag.spec.tasks.push_back({"add4k", {dag.out[a].arg(), dag.out[b].arg(), dag.out[k].arg()},
                                  {}, {a, b}});
        for (int i = 0; i < 4096; ++i)
          r[i] = dag.ref[a][i] + dag.ref[b][i];
      } else {
        int tiles = tileChoices[rng() % 5];
        if (rng() % 2)
          tiles = 1 + (int)(rng() % maxTiles);
        int64_t elems = (int64_t)tiles * kStreamTile;
        // Read from `shift` elements on: tile j then reads what other tiles
        // (other gang members) of the producer wrote.
        int64_t shift = 64 * (int64_t)(rng() % ((dag.len - elems) / 64 + 1));
        Buffer from = dag.src;
        std::vector<uint32_t> deps;
        if (k > 0) {
          deps.push_back(earlier(rng));
          from = dag.out[deps[0]];
        }
        BufferArg view{from.ptr + 4 * shift, from.bytes - 4 * shift, {}, {}};
        dag.spec.tasks.push_back({"stream", {view, dag.out[k].arg()}, {elems, elems}, deps});
        for (int64_t i = 0; i < elems; ++i)
          r[i] = streamRef(k > 0 ? dag.ref[deps[0]][i + shift] : dag.input[i + shift]);
      }
      dag.ref.push_back(std::move(r));
    }
    GraphId id;
    ASSERT_OK(rt->createGraph(dag.spec, id));
    Stats st0;
    ASSERT_OK(rt->stats(st0));
    const int rounds = 4;
    for (int round = 0; round < rounds; ++round) {
      for (const Buffer &b : dag.out)
        zero(b);
      Submission s;
      ASSERT_OK(rt->submit(id, round == 3 ? Priority::Normal : Priority::Urgent, s));
      ASSERT_OK(rt->wait(s, kWaitUs));
      size_t bad = 0, firstBad = 0;
      for (int k = 0; k < n; ++k) {
        std::vector<float> v = readFloats(dag.out[k], dag.len);
        for (size_t i = 0; i < dag.len; ++i)
          if (!near(v[i], dag.ref[k][i]) && !bad++)
            firstBad = k;
      }
      ASSERT_EQ(bad, 0u) << "round " << round << ", first wrong output of task " << firstBad;
    }
    Stats st;
    ASSERT_OK(rt->stats(st));
    uint64_t tiles = 0;
    for (const TaskSpec &t : dag.spec.tasks)
      tiles += t.kind == "add4k" ? 16 : (uint64_t)t.dynamic[0] / kStreamTile;
    EXPECT_EQ(st.tilesRun - st0.tilesRun, rounds * tiles); // each tile once
    EXPECT_EQ(st.tasksRun - st0.tasksRun, (uint64_t)rounds * n);
    // Three urgent runs, each alone: gangs exactly when the option is on.
    EXPECT_EQ(st.gangRuns - st0.gangRuns, gang ? 3u : 0u);
    size_t traced = gangTilesTraced();
    if (gang)
      EXPECT_GT(traced, 0u);
    else
      EXPECT_EQ(traced, 0u);
  }
}

// A failing tile fails its gang run (naming the task) without stopping
// the gang: the run completes, and the next runs of the same slot and of
// another graph are correct.
TEST_P(GangTest, FailingTileFailsOnlyItsRun) {
  openWith(GangPolicy::OneAtATime);
  if (IsSkipped())
    return;
  const int64_t elems = kStreamTile * scaled(300, 9);
  Buffer t = alloc(1024), sink = alloc(64), x = alloc(elems * 4), y = alloc(elems * 4),
         z = alloc(elems * 4);
  zero(x);
  GraphSpec bad; // z = 3 (3 x + 1) + 1, beside a failing task
  bad.tasks.push_back({"tiny", {t.arg()}, {}, {}});
  bad.tasks.push_back({"stream", {x.arg(), y.arg()}, {elems, elems}, {0}});
  bad.tasks.push_back({"missing", {sink.arg()}, {}, {0}});
  bad.tasks.push_back({"stream", {y.arg(), z.arg()}, {elems, elems}, {1, 2}});
  GraphId badId;
  ASSERT_OK(rt->createGraph(bad, badId));
  for (int round = 0; round < 3; ++round) {
    Submission s;
    ASSERT_OK(rt->submit(badId, Priority::Urgent, s));
    Status st = rt->wait(s, kWaitUs);
    EXPECT_EQ(st.code(), ErrorCode::TaskFailed) << round;
    EXPECT_EQ(st.message(), "a task of the graph failed: task 2 ('missing', "
                            "gpuos_task_missing) of graph " + std::to_string(badId) +
                                ", tile 0, gpuos_dispatch returned 1008");
  }
  EXPECT_EQ(gangRuns(), 3u);
  GraphSpec good = bad;
  good.tasks[2] = {"tiny", {t.arg()}, {}, {0}};
  GraphId goodId;
  ASSERT_OK(rt->createGraph(good, goodId));
  for (GraphId id : {goodId, badId, goodId}) {
    zero(y);
    zero(z);
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Urgent, s));
    Status st = rt->wait(s, kWaitUs);
    if (id == badId) {
      EXPECT_EQ(st.code(), ErrorCode::TaskFailed);
      continue;
    }
    ASSERT_OK(st);
    expectAll(z, elems, 4.0f);
  }
  EXPECT_EQ(gangRuns(), 6u);
}

// With GangPolicy::WhenIdle only urgent submissions that find the GPU
// idle start as gangs: urgent runs submitted while a background graph is
// in flight, and graphs whose dependencies point to later tasks (index
// order is no schedule), go through the queues, and all compute the right
// thing.
TEST_P(GangTest, OtherRunsGoThroughTheQueues) {
  openWith(GangPolicy::WhenIdle);
  if (IsSkipped())
    return;
  const int64_t elems = kStreamTile * scaled(64, 6);
  Buffer x = alloc(elems * 4), y = alloc(elems * 4), z = alloc(elems * 4);
  zero(x);
  Submission s;
  ASSERT_OK(rt->submit(twoStreams(x, y, z, elems, /*backwards=*/true), Priority::Urgent, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  expectAll(z, elems, 4.0f);
  EXPECT_EQ(gangRuns(), 0u);

  // An urgent forward graph while a long background graph runs: not a gang.
  GraphId fwd = twoStreams(x, y, z, elems), background = longBackground();
  zero(y);
  zero(z);
  urgentBehind(background, fwd);
  expectAll(z, elems, 4.0f);
  EXPECT_EQ(gangRuns(), 0u);
  // Alone, the same graph is a gang.
  zero(y);
  zero(z);
  ASSERT_OK(rt->submit(fwd, Priority::Urgent, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  expectAll(z, elems, 4.0f);
  EXPECT_EQ(gangRuns(), 1u);
}

// A chain of one-tile tasks is no gang (width 1, GraphLayout::gangTiles):
// continuations run it on one worker, and the hop trace shows them kept;
// x <- 3 x + 1 twelve times, ping-pong between two buffers, exact in f32.
TEST_P(GangTest, OneTileChainRunsAsContinuations) {
  openWith(GangPolicy::OneAtATime);
  if (IsSkipped())
    return;
  Buffer bufs[2] = {alloc(kStreamTile * 4), alloc(kStreamTile * 4)};
  const int n = 12;
  GraphSpec chain;
  for (int k = 0; k < n; ++k)
    chain.tasks.push_back({"stream", {bufs[k % 2].arg(), bufs[(k + 1) % 2].arg()},
                           {kStreamTile, kStreamTile},
                           k ? std::vector<uint32_t>{(uint32_t)k - 1} : std::vector<uint32_t>{}});
  GraphId id;
  ASSERT_OK(rt->createGraph(chain, id));
  double want = 0.0;
  for (int k = 0; k < n; ++k)
    want = streamRef(want);
  for (int round = 0; round < 5; ++round) {
    zero(bufs[0]);
    zero(bufs[1]);
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Urgent, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    expectAll(bufs[n % 2], kStreamTile, (float)want, round);
  }
  EXPECT_EQ(gangRuns(), 0u);
  EXPECT_EQ(gangTilesTraced(), 0u);
  EXPECT_GT(tilesTraced(TileOrigin::Continued), 0u);
}

// GangPolicy::OneAtATime: an urgent graph submitted while a background
// graph runs still starts as a gang (no other gang is in flight); its
// members wait for at most a background tile to start.
TEST_P(GangTest, BesideOtherWorkOneAtATime) {
  openWith(GangPolicy::OneAtATime);
  if (IsSkipped())
    return;
  forwardBehindBackground(3);
  EXPECT_EQ(gangRuns(), 3u);
}

// UrgentAlone: an urgent graph is a gang beside background work (as with
// OneAtATime), but not while another urgent run is in flight (as with
// WhenIdle), so a batch of urgent calls does not hold workers in gangs.
TEST_P(GangTest, UrgentAloneGangsBesideBackgroundNotBesideUrgent) {
  RuntimeOptions options;
  options.gangs = GangPolicy::UrgentAlone;
  options.inlineUrgentSingletons = false; // the urgent spin goes through the queues
  open(options);
  if (IsSkipped())
    return;
  ForwardBehind f = forwardBehindBackground(2);
  EXPECT_EQ(gangRuns(), 2u);
  // Behind an urgent run still in flight: through the queues.
  GraphId urgentSpin = spinGraph(alloc(8), 1, gpu() ? 200'000'000 : 300'000'000);
  Submission spin, s;
  zero(f.y);
  zero(f.z);
  ASSERT_OK(rt->submit(urgentSpin, Priority::Urgent, spin));
  ASSERT_OK(rt->submit(f.fwd, Priority::Urgent, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  expectAll(f.z, f.elems, 4.0f);
  EXPECT_EQ(rt->poll(spin).code(), ErrorCode::NotReady)
      << "the urgent spin ended first: the test proves nothing";
  EXPECT_EQ(gangRuns(), 2u);
  ASSERT_OK(rt->wait(spin, kWaitUs));
  // Alone again: a gang (the spin's completion uncounted it).
  zero(f.y);
  zero(f.z);
  ASSERT_OK(rt->submit(f.fwd, Priority::Urgent, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  expectAll(f.z, f.elems, 4.0f);
  EXPECT_EQ(gangRuns(), 3u);
}

// A level of independent one-tile tasks and a join: the gang is as wide
// as the level (GraphLayout::gangTiles), its members run the tasks side
// by side, and the join waits for all of them.
TEST_P(GangTest, WideLevelOfOneTileTasks) {
  openWith(GangPolicy::OneAtATime);
  if (IsSkipped())
    return;
  const int n = scaled(48, 8);
  Buffer x = alloc(kStreamTile * 4), sum = alloc(kStreamTile * 4);
  std::vector<Buffer> outs;
  GraphSpec g;
  std::vector<uint32_t> all;
  for (int k = 0; k < n; ++k) {
    outs.push_back(alloc(kStreamTile * 4));
    g.tasks.push_back({"stream", {x.arg(), outs[k].arg()}, {kStreamTile, kStreamTile}, {}});
    all.push_back((uint32_t)k);
  }
  // sum = outs[0] + outs[n - 1], after every task of the level.
  g.tasks.push_back({"add4k", {outs[0].arg(), outs[n - 1].arg(), sum.arg()}, {}, all});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  zero(x);
  for (int round = 0; round < 3; ++round) {
    for (const Buffer &b : outs)
      zero(b);
    zero(sum);
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Urgent, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    for (const Buffer &b : outs)
      expectAll(b, kStreamTile, 1.0f, round);
    expectAll(sum, kStreamTile, 2.0f, round);
  }
  EXPECT_EQ(gangRuns(), 3u);
}

// Several threads submit urgent graphs at once beside a background graph,
// with and without urgentExclusive: one gang at a time, the rest through
// the queues, every result exact and every tile run once.
TEST_P(GangTest, ConcurrentUrgentSubmittersBesideBackground) {
  for (bool exclusive : {false, true}) {
    SCOPED_TRACE(exclusive ? "urgentExclusive" : "priorities");
    if (rt)
      ASSERT_OK(rt->close());
    rt.reset();
    RuntimeOptions options;
    options.urgentExclusive = exclusive;
    open(options);
    if (IsSkipped())
      return;
    const int threads = 3, rounds = scaled(40, 8);
    const int64_t elems = kStreamTile * scaled(32, 3);
    struct Lane {
      Buffer x, y, z;
      GraphId id = 0;
    };
    std::vector<Lane> lanes(threads);
    for (Lane &l : lanes) {
      l.x = alloc(elems * 4);
      l.y = alloc(elems * 4);
      l.z = alloc(elems * 4);
      zero(l.x);
      l.id = twoStreams(l.x, l.y, l.z, elems);
    }
    GraphId background = longBackground();
    Stats st0;
    ASSERT_OK(rt->stats(st0));
    Submission bg;
    ASSERT_OK(rt->submit(background, Priority::Background, bg));
    std::atomic<int> bad{0};
    std::vector<std::thread> workers;
    for (Lane &l : lanes)
      workers.emplace_back([&, lp = &l] {
        const std::vector<float> zeros(elems, 0.0f);
        for (int r = 0; r < rounds; ++r) {
          Submission s;
          std::vector<float> out(elems);
          if (!rt->copyToDevice(lp->y.ptr, zeros.data(), elems * 4).ok() ||
              !rt->copyToDevice(lp->z.ptr, zeros.data(), elems * 4).ok() ||
              !rt->submit(lp->id, Priority::Urgent, s).ok() || !rt->wait(s, kWaitUs).ok() ||
              !rt->copyFromDevice(out.data(), lp->z.ptr, elems * 4).ok() ||
              std::count(out.begin(), out.end(), 4.0f) != elems)
            ++bad;
        }
      });
    for (std::thread &t : workers)
      t.join();
    ASSERT_OK(rt->wait(bg, kWaitUs));
    EXPECT_EQ(bad.load(), 0);
    Stats st;
    ASSERT_OK(rt->stats(st));
    uint64_t urgentRuns = (uint64_t)threads * rounds;
    EXPECT_EQ(st.tilesRun - st0.tilesRun,
              urgentRuns * 2 * (elems / kStreamTile) + (uint64_t)scaled(20000, 400));
    EXPECT_GE(st.gangRuns - st0.gangRuns, 1u);
    EXPECT_LE(st.gangRuns - st0.gangRuns, urgentRuns);
    std::printf("[   info   ] %s%s: %llu of %llu urgent runs were gangs\n", GetParam().c_str(),
                exclusive ? " (urgentExclusive)" : "",
                (unsigned long long)(st.gangRuns - st0.gangRuns),
                (unsigned long long)urgentRuns);
  }
}

// A runtime of one worker makes every gang a gang of one member (G =
// min(workers, width)): its block runs every task of the run in order with
// no counter (Worker.h, gangSeek and gangFinishTile's size-1 paths). Two
// chained `stream` tasks of 6 tiles, run after run on the same slot, exact
// against the reference, every run a gang. Simulator only: the GPU always
// has more workers.
TEST(GangSim, OneWorkerRunsAGangOfOne) {
  std::unique_ptr<Runtime> rt;
  RuntimeOptions options;
  options.gangs = GangPolicy::OneAtATime;
  ASSERT_OK(testimage::openSimWithImage(1, options, rt));
  const int64_t n = kStreamTile * 6;
  Buffer x, y, z;
  ASSERT_OK(rt->alloc(n * 4, x));
  ASSERT_OK(rt->alloc(n * 4, y));
  ASSERT_OK(rt->alloc(n * 4, z));
  std::vector<float> in(n);
  for (int64_t i = 0; i < n; ++i)
    in[i] = (float)(i % 97) * 0.25f;
  ASSERT_OK(rt->copyToDevice(x.ptr, in.data(), n * 4));
  GraphSpec g;
  g.tasks.push_back({"stream", {x.arg(), y.arg()}, {n, n}, {}});
  g.tasks.push_back({"stream", {y.arg(), z.arg()}, {n, n}, {0}});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  for (int round = 0; round < 4; ++round) {
    std::vector<float> zeros(n, 0.0f);
    ASSERT_OK(rt->copyToDevice(z.ptr, zeros.data(), n * 4));
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Urgent, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    std::vector<float> out(n);
    ASSERT_OK(rt->copyFromDevice(out.data(), z.ptr, n * 4));
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i)
      wrong += !near(out[i], streamRef(streamRef(in[i])));
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.gangRuns, 4u);
  EXPECT_EQ(st.tilesRun, 4u * 12u);
  ASSERT_OK(rt->close());
}
