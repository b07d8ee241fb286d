//===- StressTest.cpp - a million tasks, a hundred swaps under load -------===//
//
// Exact per-task counters in device memory, checked on the host: a task
// lost or run twice shows up as a counter off by one. GPU sizes: >= 1e6
// task executions, >= 100 image swaps with submissions in flight; the
// simulator runs the same scenarios scaled down (CI).
//
//===----------------------------------------------------------------------===//

#include "RuntimeFixture.h"

#include <atomic>
#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

namespace {

class StressTest : public RuntimeFixture {
protected:
  /// `graphs` graphs of `tasks` count tasks (chains of ten), each task
  /// with its own counter.
  std::vector<GraphId> countGraphs(const Buffer &counts, int graphs, int tasks) {
    std::vector<GraphId> ids;
    for (int g = 0; g < graphs; ++g) {
      GraphSpec spec;
      for (int k = 0; k < tasks; ++k) {
        TaskSpec t{"count", {counts.arg()}, {graphs * tasks, g * tasks + k}, {}};
        if (k % 10)
          t.deps.push_back(k - 1);
        spec.tasks.push_back(std::move(t));
      }
      GraphId id = 0;
      Status st = rt->createGraph(spec, id);
      EXPECT_TRUE(st.ok()) << st.toString();
      ids.push_back(id);
    }
    return ids;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, StressTest, kBackends, backendName);

} // namespace

TEST_P(StressTest, MillionTasksRunExactlyOnce) {
  const int graphs = scaled(100, 10), tasks = scaled(1000, 100), rounds = scaled(10, 4);
  Buffer counts = alloc((uint64_t)graphs * tasks * 4);
  zero(counts);
  std::vector<GraphId> ids = countGraphs(counts, graphs, tasks);
  auto t0 = Clock::now();
  std::vector<Submission> subs;
  for (int r = 0; r < rounds; ++r)
    for (int g = 0; g < graphs; ++g) {
      Submission s;
      ASSERT_OK(rt->submit(ids[g], static_cast<Priority>((r + g) % 3), s));
      subs.push_back(s);
    }
  for (const Submission &s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  double elapsed = seconds(Clock::now() - t0);
  std::vector<uint32_t> c = readU32(counts, (size_t)graphs * tasks);
  int wrong = 0;
  for (uint32_t v : c)
    wrong += v != (uint32_t)rounds;
  EXPECT_EQ(wrong, 0);
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.tasksRun, (uint64_t)graphs * tasks * rounds);
  EXPECT_EQ(st.tilesRun, (uint64_t)graphs * tasks * rounds);
  std::printf("[   info   ] %s: %llu tasks in %.3f s (%.3f us/task)\n",
              GetParam().c_str(), (unsigned long long)st.tasksRun, elapsed,
              elapsed * 1e6 / (double)st.tasksRun);
}

TEST_P(StressTest, HundredSwapsUnderLoad) {
  const int graphs = 8, tasks = 100, swaps = scaled(100, 20);
  Buffer counts = alloc(graphs * tasks * 4);
  zero(counts);
  std::vector<GraphId> ids = countGraphs(counts, graphs, tasks);
  std::vector<char> cubin[2];
  std::string json[2];
  for (int v = 0; v < 2; ++v)
    ASSERT_OK(testimage::readImage(GetParam(), v == 1, cubin[v], json[v]));
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<int> runs(graphs, 0);
  std::vector<std::thread> submitters;
  for (int t = 0; t < 2; ++t)
    submitters.emplace_back([&, t] {
      std::vector<Submission> pending;
      for (int i = 0; !stop.load(); ++i) {
        int g = t * (graphs / 2) + i % (graphs / 2);
        Submission s;
        Status st = rt->submit(ids[g], static_cast<Priority>(i % 3), s);
        if (!st.ok()) {
          ++failures;
          break;
        }
        ++runs[g];
        pending.push_back(s);
        if (pending.size() >= 32) {
          for (const Submission &p : pending)
            failures += !rt->wait(p, kWaitUs).ok();
          pending.clear();
        }
      }
      for (const Submission &p : pending)
        failures += !rt->wait(p, kWaitUs).ok();
    });
  auto t0 = Clock::now();
  for (int k = 0; k < swaps; ++k)
    ASSERT_OK(rt->loadImage(cubin[(k + 1) % 2], json[(k + 1) % 2]));
  double elapsed = seconds(Clock::now() - t0);
  stop.store(true);
  for (std::thread &t : submitters)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<uint32_t> c = readU32(counts, graphs * tasks);
  int wrong = 0;
  for (int i = 0; i < graphs * tasks; ++i)
    wrong += c[i] != (uint32_t)runs[i / tasks];
  EXPECT_EQ(wrong, 0);
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.swaps, (uint64_t)swaps);
  uint64_t total = 0;
  for (int r : runs)
    total += (uint64_t)r * tasks;
  EXPECT_EQ(st.tasksRun, total);
  std::printf("[   info   ] %s: %d swaps in %.3f s under load, %llu tasks, %llu "
              "submissions queued on the host during swaps\n",
              GetParam().c_str(), swaps, elapsed, (unsigned long long)total,
              (unsigned long long)st.hostQueued);
}
