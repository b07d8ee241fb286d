//===- SwapTest.cpp - image swaps and safe points, on the simulator and GPU -===//
//
// Image v2 (test_image_v2.json) has the same kinds as v1 in another order,
// lacks "missing" and adds "inject". A swap must rebind surviving graphs by
// kind name (a graph that kept v1's indices would run the wrong operator
// and the exact counters below would be off), fail graphs whose kinds
// vanished on their next submit, run submissions made during the swap, and
// keep the old image when the new one does not load.
//
//===----------------------------------------------------------------------===//

#include "RuntimeFixture.h"
#include "TestHooks.h"

#include <atomic>
#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

namespace {

class SwapTest : public RuntimeFixture {
protected:
  void swapTo(bool v2) {
    std::vector<char> cubin;
    std::string json;
    ASSERT_OK(testimage::readImage(GetParam(), v2, cubin, json));
    ASSERT_OK(rt->loadImage(cubin, json));
  }

  /// A graph of `n` count tasks on counters [first, first + n), chained in
  /// tens; `kind` "count" (+1 per run) or "inject" (+7 per run).
  GraphId countGraph(const Buffer &counts, int ids, int first, int n,
                     const std::string &kind = "count") {
    GraphSpec g;
    for (int k = 0; k < n; ++k) {
      TaskSpec t{kind, {counts.arg()}, {ids, first + k}, {}};
      if (k % 10)
        t.deps.push_back(k - 1);
      g.tasks.push_back(std::move(t));
    }
    GraphId id = 0;
    Status st = rt->createGraph(g, id);
    EXPECT_TRUE(st.ok()) << st.toString();
    return id;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, SwapTest, kBackends, backendName);

/// The test image's manifest with `count` tiled by `tile` ids instead of
/// all in one tile (a re-tuned image); false if the manifest changed shape.
bool retileCount(std::string &json, int tile) {
  const std::string coarse = "\"tile\": [1048576],";
  size_t at = json.find(coarse); // the first is count's
  if (at == std::string::npos)
    return false;
  json.replace(at, coarse.size(), "\"tile\": [" + std::to_string(tile) + "],");
  return true;
}

} // namespace

// Kinds are rebound by name; vanished kinds fail on submit; new kinds can
// be used after the swap (operator injection); swapping back restores.
TEST_P(SwapTest, RebindsKindsByName) {
  Buffer counts = alloc(64 * 4), sink = alloc(64), z = alloc(4096 * 4);
  zero(counts);
  GraphId count = countGraph(counts, 64, 0, 20);
  GraphSpec ms;
  ms.tasks.push_back({"missing", {sink.arg()}, {}, {}});
  GraphId missing;
  ASSERT_OK(rt->createGraph(ms, missing));
  GraphId chain;
  ASSERT_OK(rt->createGraphFromManifest("chain", {{"z", z.arg()}}, chain));
  GraphId injected;
  Status st = rt->createGraph(
      GraphSpec{{{"inject", {counts.arg()}, {64, 40}, {}}}, Priority::Normal}, injected);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument); // not in v1
  EXPECT_NE(st.message().find("unknown task kind 'inject'"), std::string::npos)
      << st.message();

  Submission s;
  ASSERT_OK(rt->submit(count, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  swapTo(true);
  ASSERT_OK(rt->submit(count, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  st = rt->submit(missing, Priority::Normal, s);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(st.message().find("graph " + std::to_string(missing) +
                              " cannot run on the current image "
                              "('runtime-test-image-v2'): task 0: unknown task "
                              "kind 'missing'"),
            std::string::npos)
      << st.message();
  zero(z);
  ASSERT_OK(rt->submit(chain, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  std::vector<float> out = readFloats(z, 4096);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[4095], 2.0f * 4095 + 1);
  ASSERT_OK(rt->createGraph(
      GraphSpec{{{"inject", {counts.arg()}, {64, 40}, {}}}, Priority::Normal}, injected));
  ASSERT_OK(rt->submit(injected, s));
  ASSERT_OK(rt->wait(s, kWaitUs));

  swapTo(false);
  st = rt->submit(injected, Priority::Normal, s);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(st.message().find("unknown task kind 'inject'"), std::string::npos);
  ASSERT_OK(rt->submit(missing, Priority::Normal, s)); // valid again on v1
  EXPECT_EQ(rt->wait(s, kWaitUs).code(), ErrorCode::TaskFailed);
  ASSERT_OK(rt->submit(count, s));
  ASSERT_OK(rt->wait(s, kWaitUs));

  std::vector<uint32_t> c = readU32(counts, 64);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(c[i], 3u) << "counter " << i;
  EXPECT_EQ(c[40], 7u);
  EXPECT_OK(rt->destroyGraph(injected));
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.swaps, 2u);
}

// Submissions made by other threads while swaps run are queued and run on
// the new image: every one completes, every counter is exact.
TEST_P(SwapTest, SubmissionsDuringSwapsAreKept) {
  const int graphs = 4, tasks = 50, swaps = scaled(40, 12);
  Buffer counts = alloc(graphs * tasks * 4);
  zero(counts);
  std::vector<GraphId> ids;
  for (int g = 0; g < graphs; ++g)
    ids.push_back(countGraph(counts, graphs * tasks, g * tasks, tasks));
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<int> runs(graphs, 0);
  std::thread submitter([&] {
    std::vector<Submission> pending;
    for (int i = 0; !stop.load() || i < 20; ++i) {
      Submission s;
      Status st = rt->submit(ids[i % graphs], static_cast<Priority>(i % 3), s);
      if (!st.ok()) {
        ++failures;
        ADD_FAILURE() << st.toString();
        break;
      }
      ++runs[i % graphs];
      pending.push_back(s);
      if (pending.size() >= 16) {
        for (const Submission &p : pending)
          if (!rt->wait(p, kWaitUs).ok())
            ++failures;
        pending.clear();
      }
    }
    for (const Submission &p : pending)
      if (!rt->wait(p, kWaitUs).ok())
        ++failures;
  });
  for (int k = 0; k < swaps; ++k)
    swapTo(k % 2 == 0);
  stop.store(true);
  submitter.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<uint32_t> c = readU32(counts, graphs * tasks);
  int wrong = 0;
  for (int i = 0; i < graphs * tasks; ++i)
    wrong += c[i] != (uint32_t)runs[i / tasks];
  EXPECT_EQ(wrong, 0) << "counter 0 = " << c[0] << ", runs " << runs[0];
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.swaps, (uint64_t)swaps);
  std::printf("[   info   ] %s: %d swaps, %llu submissions, %llu queued on the "
              "host during swaps\n",
              GetParam().c_str(), swaps, (unsigned long long)st.submissions,
              (unsigned long long)st.hostQueued);
}

// A swap to an image that does not load keeps the old one, and its graphs.
TEST_P(SwapTest, FailedSwapKeepsTheOldImage) {
  Buffer counts = alloc(16 * 4);
  zero(counts);
  GraphId count = countGraph(counts, 16, 0, 10);
  std::vector<char> cubin;
  std::string json;
  ASSERT_OK(testimage::readImage(GetParam(), true, cubin, json));
  std::vector<char> junk = {'n', 'o', 'p', 'e'};
  Status st = rt->loadImage(junk, json);
  EXPECT_EQ(st.code(), ErrorCode::BadImage) << st.toString();
  Submission s;
  ASSERT_OK(rt->submit(count, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  EXPECT_EQ(readU32(counts, 16)[9], 1u);
  ASSERT_NE(rt->manifest(), nullptr);
  EXPECT_EQ(rt->manifest()->contentHash, "runtime-test-image");
}

// atSafePoint: the kernel is parked while the action runs; frees happen at
// once; submissions are queued and run afterwards; re-entry is refused.
TEST_P(SwapTest, SafePointActionsRunQuiescent) {
  Buffer counts = alloc(16 * 4), spare = alloc(1 << 20);
  zero(counts);
  GraphId count = countGraph(counts, 16, 0, 10);
  Submission before, during;
  ASSERT_OK(rt->submit(count, before));
  bool ran = false;
  Status st = rt->atSafePoint([&]() -> Status {
    ran = true;
    Stats stats;
    GPUOS_RETURN_IF_ERROR(rt->stats(stats));
    EXPECT_FALSE(stats.resident);
    EXPECT_EQ(stats.runsInFlight, 0u); // drained: `before` is done
    EXPECT_OK(rt->poll(before));
    GPUOS_RETURN_IF_ERROR(rt->free(spare.ptr));
    GPUOS_RETURN_IF_ERROR(rt->submit(count, during));
    EXPECT_EQ(rt->poll(during).code(), ErrorCode::NotReady); // queued
    Status nested = rt->atSafePoint([] { return Status::success(); });
    EXPECT_EQ(nested.message(),
              "atSafePoint cannot be called from inside atSafePoint or an image swap");
    EXPECT_EQ(rt->close().code(), ErrorCode::InvalidArgument);
    return Status::success();
  });
  ASSERT_OK(st);
  EXPECT_TRUE(ran);
  ASSERT_OK(rt->wait(during, kWaitUs));
  EXPECT_EQ(readU32(counts, 16)[9], 2u);
  st = rt->atSafePoint([] { return Status::error(ErrorCode::Cuda, "from the action"); });
  EXPECT_EQ(st.message(), "from the action");
  EXPECT_EQ(rt->free(spare.ptr).code(), ErrorCode::InvalidArgument); // freed
}

// Submissions queued at a safe point that the ring cannot take when it
// ends (an urgent one-tile graph queued first runs inline on the poller,
// which then reads no entry) fail with the reason instead of staying queued
// with nothing to post them; those posted complete, and nothing holds the
// graph afterwards.
TEST_P(SwapTest, SafePointSubmissionsTheRingCannotTakeFail) {
  RuntimeOptions options;
  options.ringCapacity = 32;
  if (!reopen(options))
    return;
  testhooks::Scoped<uint32_t> limit(testhooks::ringFullTimeoutMs, 100);
  // The poller finds the spin alone, and runs it inline.
  testhooks::Scoped<uint32_t> delay(testhooks::delayAfterLaunchUs, 50'000);
  Buffer counts = alloc(4);
  zero(counts);
  GraphId fill = oneTaskGraph("count", counts, {1, 0});
  GraphId hold = spinGraph(alloc(8), 1, 1'500'000'000);
  Submission held;
  std::vector<Submission> queuedSubs(48);
  Status st = rt->atSafePoint([&]() -> Status {
    GPUOS_RETURN_IF_ERROR(rt->submit(hold, Priority::Urgent, held));
    for (Submission &s : queuedSubs)
      GPUOS_RETURN_IF_ERROR(rt->submit(fill, Priority::Normal, s));
    return Status::success();
  });
  const std::string full = "the submission ring stayed full for 100 ms (the "
                           "kernel's poller took no entry)";
  EXPECT_EQ(st.code(), ErrorCode::Timeout) << st.toString();
  EXPECT_EQ(st.message(), full);
  ASSERT_OK(rt->wait(held, kWaitUs));
  uint32_t ran = 0, failed = 0;
  for (Submission &s : queuedSubs) {
    Status r = rt->wait(s, 5'000'000);
    if (r.ok()) {
      ++ran;
      continue;
    }
    ++failed;
    EXPECT_EQ(r.code(), ErrorCode::Timeout);
    EXPECT_EQ(r.message(), "not posted when the safe point ended: " + full);
  }
  EXPECT_GE(ran, 30u); // the ring's 32 entries, less the spin's
  EXPECT_GE(failed, 1u);
  EXPECT_EQ(readU32(counts, 1)[0], ran);
  Submission again;
  ASSERT_OK(rt->submit(fill, Priority::Normal, again));
  ASSERT_OK(rt->wait(again, kWaitUs));
  EXPECT_OK(rt->destroyGraph(fill));
}

// Deterministic on the simulator (its "+slow" image takes 300 ms to load):
// submissions made while the module loads are queued on the host; after
// the swap, those of a graph whose kind vanished fail with the stale
// message, the others run on the new image.
TEST(SwapSim, SubmissionsDuringTheLoadAreQueued) {
  std::unique_ptr<Runtime> rt;
  std::string skip, error;
  ASSERT_TRUE(testimage::openTestRuntime("sim", RuntimeOptions(), rt, skip, error))
      << error;
  Buffer counts, sink;
  ASSERT_OK(rt->alloc(16 * 4, counts));
  ASSERT_OK(rt->alloc(64, sink));
  std::vector<uint32_t> zeros(16, 0);
  ASSERT_OK(rt->copyToDevice(counts.ptr, zeros.data(), 64));
  GraphId count, missing;
  ASSERT_OK(rt->createGraph(
      GraphSpec{{{"count", {counts.arg()}, {16, 5}, {}}}, Priority::Normal}, count));
  ASSERT_OK(rt->createGraph(GraphSpec{{{"missing", {sink.arg()}, {}, {}}}, Priority::Normal},
                            missing));
  std::vector<char> cubin;
  std::string json;
  ASSERT_OK(testimage::readImage("sim", true, cubin, json));
  std::string slow = "sim-v2+slow";
  Status swap;
  std::thread swapper([&] {
    swap = rt->loadImage(std::vector<char>(slow.begin(), slow.end()), json);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Submission a, b;
  auto t0 = Clock::now();
  ASSERT_OK(rt->submit(count, a));
  ASSERT_OK(rt->submit(missing, b));
  EXPECT_LT(seconds(Clock::now() - t0), 0.1) << "submit waited for the swap";
  EXPECT_EQ(rt->poll(a).code(), ErrorCode::NotReady);
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.hostQueued, 2u);
  swapper.join();
  ASSERT_OK(swap);
  ASSERT_OK(rt->wait(a, kWaitUs));
  Status m = rt->wait(b, kWaitUs);
  EXPECT_EQ(m.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(m.message().find("unknown task kind 'missing'"), std::string::npos)
      << m.message();
  std::vector<uint32_t> c(16);
  ASSERT_OK(rt->copyFromDevice(c.data(), counts.ptr, 64));
  EXPECT_EQ(c[5], 1u);
  ASSERT_OK(rt->stats(st));
  EXPECT_GE(st.lastSwap.loadUs, 250000.0);
  EXPECT_OK(rt->close());
}

// A swap to an image that tiles a graph finer: submissions queued during
// the load were admitted with the old tile count (1 tile of `count`), and
// are admitted again with the new one (32) as the swap posts them. Posted
// with the old count, 16 of them put 512 tiles in flight where the queues
// hold 32, and the kernel stalled for good on a full queue.
TEST(SwapSim, QueuedSubmissionsAreAdmittedWithTheNewTiling) {
  RuntimeOptions o;
  o.queueCapacity = 64; // 32 tiles in flight per priority
  std::unique_ptr<Runtime> rt;
  std::string skip, error;
  ASSERT_TRUE(testimage::openTestRuntime("sim", o, rt, skip, error)) << error;
  Buffer counts; // `count`'s buffer has n elements
  ASSERT_OK(rt->alloc(4096 * 4, counts));
  std::vector<uint32_t> c(4096, 0);
  ASSERT_OK(rt->copyToDevice(counts.ptr, c.data(), 4096 * 4));
  GraphId count;
  ASSERT_OK(rt->createGraph(
      GraphSpec{{{"count", {counts.arg()}, {4096, 3}, {}}}, Priority::Normal}, count));
  std::vector<char> cubin;
  std::string json;
  ASSERT_OK(testimage::readImage("sim", false, cubin, json));
  ASSERT_TRUE(retileCount(json, 128));
  std::string slow = "sim+slow";
  Status swap;
  std::thread swapper([&] {
    swap = rt->loadImage(std::vector<char>(slow.begin(), slow.end()), json);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int runs = 16;
  std::vector<Submission> subs(runs);
  for (Submission &s : subs)
    ASSERT_OK(rt->submit(count, s));
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.hostQueued, (uint64_t)runs) << "submitted after the swap";
  swapper.join();
  ASSERT_OK(swap);
  for (Submission &s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  ASSERT_OK(rt->copyFromDevice(c.data(), counts.ptr, 16));
  EXPECT_EQ(c[3], runs * 32u); // 4096 ids in tiles of 128
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.runsInFlight, 0u);
  EXPECT_OK(rt->close());
}

// A swap rebinds graphs with the kernel parked: a range one graph gives
// back there (its root entries, 32 under the old tiling, 3 under the new)
// is free at once for what the rebind needs next, even in a full arena.
// Until 2026-12-06 it waited for a safe point that the parked kernel never
// reached, and the graph went stale with "the graph arena is full".
TEST(SwapSim, RebindReusesRangesGivenBackInAFullArena) {
  RuntimeOptions o;
  o.arenaBytes = 1 << 16;
  std::unique_ptr<Runtime> rt;
  std::string skip, error;
  ASSERT_TRUE(testimage::openTestRuntime("sim", o, rt, skip, error)) << error;
  std::vector<char> cubin;
  std::string json;
  ASSERT_OK(testimage::readImage("sim", false, cubin, json));
  std::string fine = json, three = json;
  ASSERT_TRUE(retileCount(fine, 128));   // 4096 ids: 32 tiles
  ASSERT_TRUE(retileCount(three, 1366)); // 3 tiles
  ASSERT_OK(rt->loadImage(cubin, fine));
  Buffer counts;
  ASSERT_OK(rt->alloc(4096 * 4, counts));
  std::vector<uint32_t> c(4096, 0);
  ASSERT_OK(rt->copyToDevice(counts.ptr, c.data(), 4096 * 4));
  GraphId wide;
  ASSERT_OK(rt->createGraph(
      GraphSpec{{{"count", {counts.arg()}, {4096, 3}, {}}}, Priority::Normal}, wide));
  // Fill the arena with one-tile graphs (one tile under either tiling).
  Status full;
  for (int k = 0; full.ok() && k < 100000; ++k) {
    GraphId id;
    full = rt->createGraph(
        GraphSpec{{{"count", {counts.arg()}, {1, 0}, {}}}, Priority::Normal}, id);
  }
  ASSERT_EQ(full.code(), ErrorCode::OutOfMemory) << full.toString();
  ASSERT_OK(rt->loadImage(cubin, three));
  Submission s;
  ASSERT_OK(rt->submit(wide, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  ASSERT_OK(rt->copyFromDevice(c.data(), counts.ptr, 16));
  EXPECT_EQ(c[3], 3u); // one per tile
  EXPECT_OK(rt->close());
}

// A submission queued inside a safe point whose deadline passes before the
// action returns is declared failed then; it was never posted, so the end
// of the safe point finishes it on the host: its run slot and its admitted
// tiles come back (they leaked: the graph could not be destroyed, and a
// later submit waited for admission forever).
TEST_P(SwapTest, DeadlineDeclaredWhileQueuedFreesTheSubmission) {
  Buffer x = alloc(4096 * 4);
  GraphId id = 0;
  ASSERT_OK(rt->createGraph(GraphSpec{{{"iota4k", {x.arg()}, {}, {}}}, Priority::Normal},
                            id));
  ASSERT_OK(rt->setGraphTimeout(id, 1000));
  Submission queued[2];
  ASSERT_OK(rt->atSafePoint([&]() -> Status {
    for (Submission &s : queued)
      GPUOS_RETURN_IF_ERROR(rt->submit(id, s));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    // The call that declares the failure reports it.
    EXPECT_EQ(rt->poll(queued[0]).code(), ErrorCode::DeadlineExceeded);
    return Status::success();
  }));
  for (Submission &s : queued) {
    Status w = rt->wait(s, kWaitUs);
    EXPECT_EQ(w.code(), ErrorCode::DeadlineExceeded) << w.toString();
    EXPECT_NE(w.message().find("none of its tiles was running"), std::string::npos)
        << w.message();
  }
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.runsInFlight, 0u);
  ASSERT_OK(rt->setGraphTimeout(id, 0));
  zero(x);
  Submission after;
  ASSERT_OK(rt->submit(id, after));
  ASSERT_OK(rt->wait(after, kWaitUs));
  std::vector<float> v(4096);
  ASSERT_OK(rt->copyFromDevice(v.data(), x.ptr, v.size() * 4));
  EXPECT_EQ(v[4095], 0.5f * 4095); // iota4k: x[i] = 0.5 i
  EXPECT_OK(rt->destroyGraph(id));
}

// Tasks of many tiles (run as ranges that split over the workers and go
// back to their queue at tile boundaries) across swaps: every swap drains
// them, and every tile runs exactly once per submission.
TEST_P(SwapTest, ManyTileTasksAcrossSwaps) {
  const int n = scaled(8000, 2000), swaps = scaled(10, 6);
  Buffer a = alloc(n * 4), b = alloc(n * 4);
  zero(a);
  zero(b);
  GraphSpec g;
  g.tasks.push_back({"hits", {a.arg()}, {n}, {}});
  g.tasks.push_back({"hits", {b.arg()}, {n}, {0}});
  GraphId id = 0;
  ASSERT_OK(rt->createGraph(g, id));
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  int runs = 0;
  std::thread submitter([&] {
    std::vector<Submission> pending;
    for (int i = 0; !stop.load() || i < 8; ++i) {
      Submission s;
      if (!rt->submit(id, static_cast<Priority>(i % 3), s).ok()) {
        ++failures;
        break;
      }
      ++runs;
      pending.push_back(s);
      if (pending.size() >= 4) {
        for (const Submission &p : pending)
          failures += !rt->wait(p, kWaitUs).ok();
        pending.clear();
      }
    }
    for (const Submission &p : pending)
      failures += !rt->wait(p, kWaitUs).ok();
  });
  for (int k = 0; k < swaps; ++k)
    swapTo(k % 2 == 0);
  stop.store(true);
  submitter.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<uint32_t> ha = readU32(a, n), hb = readU32(b, n);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += (ha[i] != (uint32_t)runs) + (hb[i] != (uint32_t)runs);
  EXPECT_EQ(wrong, 0) << "a[0] = " << ha[0] << ", b[0] = " << hb[0] << ", runs " << runs;
}
