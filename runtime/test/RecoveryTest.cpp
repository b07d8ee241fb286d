//===- RecoveryTest.cpp - deadlines, hangs and faults, on sim and GPU -----===//
//
// On the GPU these use a private context (ownContext) so that a fault or a
// context teardown cannot touch other tests; runtime/scripts/gpu-check.sh
// runs them in their own process. On the simulator, the "fault" kind throws
// SimFault (the block dies, the backend reports a sticky error, and a reset
// frees all of its memory, as a destroyed context does).
//
//===----------------------------------------------------------------------===//

#include "RuntimeFixture.h"
#include "TestHooks.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <csignal>
#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

namespace {

class RecoveryTest : public RuntimeFixture {
protected:
  void SetUp() override {} // each test opens with its own options

  void openWith(RuntimeOptions options) {
    options.ownContext = true;
    open(options);
  }

  static bool has(const Status &st, const std::string &what) {
    return st.message().find(what) != std::string::npos;
  }
};

// simhost/gpuhost: the context in a device host process
// (RuntimeOptions::isolateDevice), which a reset ends and starts anew.
INSTANTIATE_TEST_SUITE_P(Backends, RecoveryTest, kBackends, backendName);

} // namespace

// A submission past its timeout fails with DeadlineExceeded naming the
// tile still running; the runtime serves other work meanwhile, and the
// slot is reused once the device is done with it.
TEST_P(RecoveryTest, DeadlineNamesTheRunningTile) {
  RuntimeOptions options;
  options.hangGraceUs = 60'000'000; // no hang recovery here
  openWith(options);
  if (IsSkipped() || HasFatalFailure())
    return;
  Buffer stamps = alloc(64), t = alloc(1024);
  GraphId spin = spinGraph(stamps, 1, gpu() ? 300'000'000 : 600'000'000);
  ASSERT_OK(rt->setGraphTimeout(spin, 30'000));
  GraphSpec tiny;
  tiny.tasks.push_back({"tiny", {t.arg()}, {}, {}});
  GraphId tinyId;
  ASSERT_OK(rt->createGraph(tiny, tinyId));

  Submission s;
  auto t0 = Clock::now();
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  Status st = rt->wait(s, -1);
  double waited = seconds(Clock::now() - t0);
  EXPECT_EQ(st.code(), ErrorCode::DeadlineExceeded) << st.toString();
  EXPECT_TRUE(has(st, "the submission of graph " + std::to_string(spin) +
                          " missed its timeout of 30000 us: task 0 ('spin', "
                          "gpuos_task_spin) of graph " + std::to_string(spin) +
                          ", tile 0 on block"))
      << st.message();
  EXPECT_LT(waited, 0.25) << "the deadline was noticed late";
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::DeadlineExceeded); // remembered
  // Other work runs beside the stuck tile.
  for (int i = 0; i < 10; ++i) {
    Submission u;
    ASSERT_OK(rt->submit(tinyId, Priority::Urgent, u));
    ASSERT_OK(rt->wait(u, kWaitUs));
  }
  // The device still holds the slot until the tile ends.
  EXPECT_EQ(rt->destroyGraph(spin).code(), ErrorCode::InvalidArgument);
  ASSERT_OK(rt->park()); // drains: the spin tile finishes
  EXPECT_OK(rt->destroyGraph(spin));
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.deadlineMisses, 1u);
  EXPECT_EQ(stats.recoveries, 0u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.completed, 11u);
  EXPECT_EQ(rt->setGraphTimeout(tinyId, -5).message(),
            "setGraphTimeout: the timeout -5 us is negative (0: no limit)");
  EXPECT_EQ(rt->setGraphTimeout(999, 1).message(), "unknown graph 999");
}

// A tile that overstays its deadline by hangGraceUs is declared hung: the
// kernel is told to stop; once the tile has ended (within another
// hangGraceUs) the kernel is restarted with fresh protocol state. No sticky
// error: buffers and graphs are kept, the submissions in flight fail.
TEST_P(RecoveryTest, HungTileRecoversTheKernel) {
  RuntimeOptions options;
  options.timeoutUs = 30'000;
  options.hangGraceUs = gpu() ? 2'000'000 : 1'000'000;
  openWith(options);
  if (IsSkipped() || HasFatalFailure())
    return;
  Buffer stamps = alloc(64), counts = alloc(4 * 4);
  zero(stamps);
  zero(counts);
  GraphId spin = spinGraph(stamps, 1, gpu() ? 3'000'000'000ull : 1'500'000'000ull);
  GraphId count = oneTaskGraph("count", counts, {4, 2});
  Submission s, queued;
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  EXPECT_EQ(rt->wait(s, -1).code(), ErrorCode::DeadlineExceeded);
  auto t0 = Clock::now();
  Status st = rt->park(); // waits for the drain: the watchdog steps in
  double recovery = seconds(Clock::now() - t0);
  EXPECT_EQ(st.code(), ErrorCode::Faulted) << st.toString();
  EXPECT_TRUE(has(st, "the kernel is hung: task 0 ('spin', gpuos_task_spin) of graph " +
                          std::to_string(spin)))
      << st.message();
  EXPECT_TRUE(has(st, "the runtime recovered (kernel stopped and restarted; buffers "
                      "and graphs kept"))
      << st.message();
  std::printf("[   info   ] %s: hang noticed, kernel stopped and restarted in %.3f s\n",
              GetParam().c_str(), recovery);
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::DeadlineExceeded);
  // Buffers and graphs survive; the tile did finish before the stop.
  uint64_t stamp = 0;
  ASSERT_OK(rt->copyFromDevice(&stamp, stamps.ptr, 8));
  EXPECT_NE(stamp, 0u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(rt->submit(count, Priority::Normal, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
  }
  EXPECT_EQ(readU32(counts, 4)[2], 3u);
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.recoveries, 1u);
  EXPECT_EQ(stats.deadlineMisses, 1u);
}

// A task that takes an illegal-address fault: its submission fails naming
// graph, task and kind; every other submission in flight or queued fails
// with Faulted (none hangs, none is lost silently); the context is
// recreated; buffers from alloc() and graphs using them are reported lost;
// new work runs.
TEST_P(RecoveryTest, FaultFailsWhatWasInFlightAndRecovers) {
  openWith(RuntimeOptions());
  if (IsSkipped() || HasFatalFailure())
    return;
  Buffer counts = alloc(100 * 4), sink = alloc(64), stamps = alloc(1024 * 8);
  zero(counts);
  GraphSpec cg;
  for (int k = 0; k < 100; ++k)
    cg.tasks.push_back({"count", {counts.arg()}, {100, k}, {}});
  GraphId count, fault;
  ASSERT_OK(rt->createGraph(cg, count));
  ASSERT_OK(rt->createGraph(GraphSpec{{{"fault", {sink.arg()}, {}, {}}}, Priority::Normal},
                            fault));
  // Keeps work in flight; on the simulator as ranges of several tiles
  // (more tiles than Protocol.h's kRootRanges).
  GraphId spin = gpu() ? spinGraph(stamps, 8, 20'000'000)
                       : spinGraph(stamps, 1024, 500'000);
  // Graphs over memory that is not from alloc() survive a recovery (the
  // simulator's "device" memory is host memory; on a GPU this would be
  // memory of another context or mapped host memory).
  std::vector<uint32_t> external(8, 0);
  GraphId survivor = 0;
  if (!gpu() && !hosted()) {
    BufferArg ext{reinterpret_cast<uint64_t>(external.data()), 32, {}, {}};
    ASSERT_OK(rt->createGraph(GraphSpec{{{"count", {ext}, {8, 3}, {}}}, Priority::Normal},
                              survivor));
  }
  std::vector<Submission> subs;
  Submission s, f;
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  subs.push_back(s);
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(rt->submit(count, Priority::Normal, s));
    subs.push_back(s);
  }
  ASSERT_OK(rt->submit(fault, Priority::Normal, f));
  // Its completion callback gets the fault too (the notifier's own kernel
  // checks may be the ones that notice it).
  std::atomic<int> faultCalls{0};
  std::mutex faultMutex;
  Status faultSeen;
  ASSERT_OK(rt->onComplete(f, [&](Submission, const Status &cs) {
    std::lock_guard<std::mutex> lock(faultMutex);
    faultSeen = cs;
    faultCalls.fetch_add(1);
  }));
  for (int i = 0; i < 5; ++i) {
    Status st = rt->submit(count, Priority::Normal, s);
    if (!st.ok()) // the fault may be noticed by submit already
      break;
    subs.push_back(s);
  }
  Status st = rt->wait(f, kWaitUs);
  EXPECT_EQ(st.code(), ErrorCode::Faulted) << st.toString();
  eventually([&] { return faultCalls.load() != 0; });
  EXPECT_EQ(faultCalls.load(), 1);
  {
    std::lock_guard<std::mutex> lock(faultMutex);
    EXPECT_EQ(faultSeen.code(), ErrorCode::Faulted);
    EXPECT_EQ(faultSeen.message(), st.message());
  }
  EXPECT_TRUE(has(st, "task 0 ('fault', gpuos_task_fault; ops test.wild_store at TestTasks.cu:113:5, test.unreached) of graph " +
                          std::to_string(fault)))
      << st.message();
  Stats stats;
  Status statsSt = rt->stats(stats);
  if (gpu() && !hosted() && !statsSt.ok()) {
    // The driver may refuse any new context in a process after an illegal
    // address ("the process must be terminated"): then the runtime must
    // say so and stay Faulted, answering every call, hanging nowhere.
    EXPECT_TRUE(has(st, "recreating the context failed")) << st.message();
    EXPECT_TRUE(has(st, "restart the process")) << st.message();
    EXPECT_EQ(statsSt.code(), ErrorCode::Faulted);
    for (const Submission &x : subs) { // done before the fault, or failed
      Status r = rt->wait(x, kWaitUs);
      EXPECT_TRUE(r.ok() || (r.code() == ErrorCode::Faulted &&
                             has(r, "restart the process")))
          << r.toString();
    }
    EXPECT_EQ(rt->submit(count, Priority::Normal, s).code(), ErrorCode::Faulted);
    std::printf("[   info   ] gpu: no in-process recovery: %s\n", st.message().c_str());
    EXPECT_OK(rt->close());
    return;
  }
  ASSERT_OK(statsSt);
  EXPECT_TRUE(has(st, "buffers from alloc() were lost")) << st.message();
  int faulted = 0;
  for (const Submission &x : subs) {
    Status r = rt->wait(x, kWaitUs);
    EXPECT_TRUE(r.ok() || r.code() == ErrorCode::Faulted) << r.toString();
    faulted += r.code() == ErrorCode::Faulted;
  }
  EXPECT_GE(faulted, 1); // the spin graph at least was still running
  std::printf("[   info   ] %s: %d of %zu other submissions failed with the fault\n",
              GetParam().c_str(), faulted, subs.size());

  st = rt->submit(count, Priority::Normal, s);
  EXPECT_EQ(st.code(), ErrorCode::Faulted);
  EXPECT_TRUE(has(st, "graph " + std::to_string(count) + " used buffer 0x")) << st.message();
  EXPECT_EQ(rt->free(counts.ptr).code(), ErrorCode::Faulted);
  uint32_t v;
  EXPECT_EQ(rt->copyFromDevice(&v, counts.ptr, 4).code(), ErrorCode::Faulted);
  if (!gpu() && !hosted()) {
    ASSERT_OK(rt->submit(survivor, Priority::Normal, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    EXPECT_EQ(__atomic_load_n(&external[3], __ATOMIC_ACQUIRE), 1u);
  }
  Buffer fresh = alloc(100 * 4);
  zero(fresh);
  GraphSpec again = cg;
  for (TaskSpec &t : again.tasks)
    t.buffers = {fresh.arg()};
  GraphId id;
  ASSERT_OK(rt->createGraph(again, id));
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(rt->submit(id, Priority::Normal, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
  }
  std::vector<uint32_t> c = readU32(fresh, 100);
  for (int k = 0; k < 100; ++k)
    EXPECT_EQ(c[k], 3u) << k;
  // Many-tile tasks after the recovery (no range of the failed kernel
  // survives in the queues): every tile once per submission.
  const int n = 3000;
  Buffer hits = alloc(n * 4);
  zero(hits);
  GraphId manyTiles;
  ASSERT_OK(rt->createGraph(GraphSpec{{{"hits", {hits.arg()}, {n}, {}},
                                       {"hits", {hits.arg()}, {n}, {0}}},
                                      Priority::Background},
                            manyTiles));
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(rt->submit(manyTiles, Priority::Background, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
  }
  std::vector<uint32_t> h = readU32(hits, n);
  int wrong = 0;
  for (int k = 0; k < n; ++k)
    wrong += h[k] != 6u;
  EXPECT_EQ(wrong, 0) << "hits[0] = " << h[0];
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.recoveries, 1u);
}

// Without recovery the fault stays: every call says so, nothing hangs.
TEST_P(RecoveryTest, WithoutRecoveryTheFaultIsSticky) {
  RuntimeOptions options;
  options.recoverFaults = false;
  openWith(options);
  if (IsSkipped() || HasFatalFailure())
    return;
  Buffer sink = alloc(64);
  GraphId fault;
  ASSERT_OK(rt->createGraph(GraphSpec{{{"fault", {sink.arg()}, {}, {}}}, Priority::Normal},
                            fault));
  Submission s;
  ASSERT_OK(rt->submit(fault, Priority::Normal, s));
  // Its callback gets the fault although nothing recovers (the notifier
  // may notice it first, or the wait below).
  std::atomic<int> calls{0}, code{-1};
  ASSERT_OK(rt->onComplete(s, [&](Submission, const Status &cs) {
    code.store((int)cs.code());
    calls.fetch_add(1);
  }));
  Status st = rt->wait(s, kWaitUs);
  EXPECT_EQ(st.code(), ErrorCode::Faulted);
  EXPECT_TRUE(has(st, "the resident kernel failed")) << st.message();
  eventually([&] { return calls.load() != 0; });
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(code.load(), (int)ErrorCode::Faulted);
  EXPECT_EQ(rt->submit(fault, Priority::Normal, s).code(), ErrorCode::Faulted);
  EXPECT_OK(rt->close());
}

// A tile that does not end even after the kernel was told to stop cannot be
// recovered in-process (destroying its context would wait for it): the
// runtime fails everything, stays Faulted, and close() returns at once,
// abandoning the kernel to the end of the process. With the context in a
// device host, ending that process ends the tile: the runtime recovers and
// runs new work.
TEST_P(RecoveryTest, WedgedTileLeavesTheRuntimeFaultedNotHung) {
  RuntimeOptions options;
  options.timeoutUs = 30'000;
  options.hangGraceUs = 200'000;
  openWith(options);
  if (IsSkipped() || HasFatalFailure())
    return;
  Buffer stamps = alloc(64);
  GraphId spin = spinGraph(stamps, 1, gpu() ? 8'000'000'000ull : 2'000'000'000ull);
  Submission s;
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  EXPECT_EQ(rt->wait(s, -1).code(), ErrorCode::DeadlineExceeded);
  auto t0 = Clock::now();
  Status st = rt->park();
  EXPECT_EQ(st.code(), ErrorCode::Faulted);
  EXPECT_TRUE(has(st, "task 0 ('spin', gpuos_task_spin) of graph")) << st.message();
  if (hosted()) {
    EXPECT_TRUE(has(st, "so its device host process was ended")) << st.message();
    EXPECT_TRUE(has(st, "the runtime recovered")) << st.message();
    // New work on new buffers runs, and promptly: the wedged tile went
    // with its process.
    Buffer counts = alloc(4 * 4);
    zero(counts);
    GraphId count = oneTaskGraph("count", counts, {4, 1});
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK(rt->submit(count, Priority::Normal, s));
      ASSERT_OK(rt->wait(s, kWaitUs));
    }
    EXPECT_EQ(readU32(counts, 4)[1], 3u);
    std::printf("[   info   ] %s: wedged tile ended with its device host, new work "
                "done %.3f s after the park\n",
                GetParam().c_str(), seconds(Clock::now() - t0));
    EXPECT_LT(seconds(Clock::now() - t0), gpu() ? 6.0 : 1.5)
        << "new work waited for the wedged tile";
    EXPECT_OK(rt->close());
    return;
  }
  EXPECT_TRUE(has(st, "a running tile cannot be preempted")) << st.message();
  EXPECT_EQ(rt->submit(spin, Priority::Normal, s).code(), ErrorCode::Faulted);
  EXPECT_OK(rt->close());
  double elapsed = seconds(Clock::now() - t0);
  EXPECT_LT(elapsed, 1.5) << "gave up too late";
  rt.reset();
}

// The device host process dies (here: killed) while work is queued: the
// submissions fail naming what happened to it, a new device host starts,
// and new work runs and computes the right numbers.
TEST_P(RecoveryTest, DeviceHostDeathFailsWhatWasQueuedAndRecovers) {
  if (!hosted())
    GTEST_SKIP() << "the context is in this process";
  openWith(RuntimeOptions());
  if (IsSkipped() || HasFatalFailure())
    return;
  int host = rt->deviceInfo().hostProcess;
  ASSERT_GT(host, 0);
  const int n = 4096;
  Buffer stamps = alloc(1024 * 8);
  GraphId spin = gpu() ? spinGraph(stamps, 8, 200'000'000) : spinGraph(stamps, 64, 20'000'000);
  Submission s;
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // tiles start
  ASSERT_EQ(kill(host, SIGKILL), 0);
  Status st = rt->wait(s, kWaitUs);
  EXPECT_EQ(st.code(), ErrorCode::Faulted) << st.toString();
  EXPECT_TRUE(has(st, "the device host process (")) << st.message();
  // Its status, when it was gone within 200 ms (a GPU process may take
  // longer to leave; then it is killed again and named so).
  EXPECT_TRUE(has(st, "was killed by signal 9") ||
              has(st, "closed its socket and was ended"))
      << st.message();
  // Named when its tiles had started (usually), else said to be queued.
  EXPECT_TRUE(has(st, "task 0 ('spin', gpuos_task_spin) of graph") ||
              has(st, "was in flight or queued"))
      << st.message();
  EXPECT_TRUE(has(st, "buffers from alloc() were lost")) << st.message();
  int next = rt->deviceInfo().hostProcess;
  EXPECT_GT(next, 0);
  EXPECT_NE(next, host);
  // y = 3x + 1 on fresh buffers, checked element by element.
  Buffer in = alloc(n * 4), out = alloc(n * 4);
  std::vector<float> xs(n);
  for (int i = 0; i < n; ++i)
    xs[i] = (float)i * 0.25f - 7.0f;
  ASSERT_OK(rt->copyToDevice(in.ptr, xs.data(), n * 4));
  GraphSpec g;
  g.tasks.push_back({"stream", {in.arg(), out.arg()}, {n, n}, {}});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  ASSERT_OK(rt->submit(id, Priority::Urgent, s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  std::vector<float> ys = readFloats(out, n);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += ys[i] != 3.0f * xs[i] + 1.0f;
  EXPECT_EQ(wrong, 0);
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.recoveries, 1u);
}

// A device host that stops answering (stopped here, as a process wedged
// in a driver call would be) is ended at the reply deadline instead of
// holding every call, and the runtime recovers as from its death.
TEST_P(RecoveryTest, DeviceHostThatStopsAnsweringIsEndedAndRecovers) {
  if (!hosted())
    GTEST_SKIP() << "the context is in this process";
  openWith(RuntimeOptions());
  if (IsSkipped() || HasFatalFailure())
    return;
  int host = rt->deviceInfo().hostProcess;
  ASSERT_GT(host, 0);
  GraphId spin = spinGraph(alloc(64 * 8), 8, 20'000'000);
  Submission s;
  ASSERT_OK(rt->submit(spin, Priority::Background, s));
  std::this_thread::sleep_for(std::chrono::milliseconds(10)); // tiles start
  testhooks::deviceHostReplyMs = 300;
  ASSERT_EQ(kill(host, SIGSTOP), 0);
  auto start = Clock::now();
  Status st = rt->wait(s, kWaitUs); // its checks of the kernel get no answer
  testhooks::deviceHostReplyMs = 0;
  EXPECT_LT(seconds(Clock::now() - start), 10.0);
  EXPECT_EQ(st.code(), ErrorCode::Faulted) << st.toString();
  EXPECT_TRUE(has(st, "did not answer a request within 300 ms")) << st.message();
  int next = rt->deviceInfo().hostProcess;
  EXPECT_GT(next, 0);
  EXPECT_NE(next, host);
  GraphId again = oneTaskGraph("tiny", alloc(1024));
  ASSERT_OK(rt->submit(again, Priority::Urgent, s));
  EXPECT_OK(rt->wait(s, kWaitUs));
}

// A stopped device host that stops taking a copy (more than the socket
// holds) is ended at the same deadline: the copy fails instead of
// blocking forever in send, and the runtime recovers.
TEST_P(RecoveryTest, DeviceHostThatStopsTakingACopyIsEndedAndRecovers) {
  if (!hosted())
    GTEST_SKIP() << "the context is in this process";
  openWith(RuntimeOptions());
  if (IsSkipped() || HasFatalFailure())
    return;
  int host = rt->deviceInfo().hostProcess;
  ASSERT_GT(host, 0);
  const size_t bytes = 8u << 20;
  Buffer big = alloc(bytes);
  std::vector<char> data(bytes, 1);
  testhooks::deviceHostReplyMs = 300;
  ASSERT_EQ(kill(host, SIGSTOP), 0);
  auto start = Clock::now();
  Status st = rt->copyToDevice(big.ptr, data.data(), bytes);
  testhooks::deviceHostReplyMs = 0;
  EXPECT_LT(seconds(Clock::now() - start), 10.0);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(has(st, "did not take a request's 8388608 bytes within 300 ms; it was ended"))
      << st.message();
  // The next call (here an allocation, which queries no kernel) notices
  // the ended host and recovers; new buffers and graphs run in a new one.
  Buffer lost;
  Status again0 = rt->alloc(1024, lost);
  EXPECT_EQ(again0.code(), ErrorCode::Faulted) << again0.toString();
  EXPECT_TRUE(has(again0, "the runtime recovered")) << again0.message();
  int next = rt->deviceInfo().hostProcess;
  EXPECT_GT(next, 0);
  EXPECT_NE(next, host);
  Submission s;
  GraphId again = oneTaskGraph("tiny", alloc(1024));
  ASSERT_OK(rt->submit(again, Priority::Urgent, s));
  EXPECT_OK(rt->wait(s, kWaitUs));
}

// A fault inside a gang (an urgent graph run with no other gang in
// flight): the members waiting for the faulting task's successors leave
// when the kernel is stopped, the submission fails naming the task, and
// (on the simulator) the recovered runtime runs gangs again, exactly.
TEST_P(RecoveryTest, FaultInAGangFailsItAndRecovers) {
  openWith(RuntimeOptions());
  if (IsSkipped() || HasFatalFailure())
    return;
  const int64_t n = 4096 * scaled(64, 6); // stream tiles of 4096 floats
  Buffer x = alloc(n * 4), y = alloc(n * 4), sink = alloc(64);
  GraphSpec g; // y = 3x + 1 on many members, then a fault, then y = 3y + 1
  g.tasks.push_back({"stream", {x.arg(), y.arg()}, {n, n}, {}});
  g.tasks.push_back({"fault", {sink.arg()}, {}, {0}});
  g.tasks.push_back({"stream", {y.arg(), x.arg()}, {n, n}, {1}});
  GraphId id;
  ASSERT_OK(rt->createGraph(g, id));
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Urgent, s));
  Status st = rt->wait(s, kWaitUs);
  EXPECT_EQ(st.code(), ErrorCode::Faulted) << st.toString();
  EXPECT_TRUE(has(st, "task 1 ('fault', gpuos_task_fault; ops test.wild_store at TestTasks.cu:113:5, test.unreached) of graph " + std::to_string(id)))
      << st.message();
  Stats stats;
  Status statsSt = rt->stats(stats);
  if (gpu() && !hosted() && !statsSt.ok()) { // this driver: no new context in-process
    EXPECT_TRUE(has(st, "restart the process")) << st.message();
    EXPECT_EQ(rt->submit(id, Priority::Urgent, s).code(), ErrorCode::Faulted);
    std::printf("[   info   ] gpu: no in-process recovery: %s\n", st.message().c_str());
    EXPECT_OK(rt->close());
    return;
  }
  ASSERT_OK(statsSt);
  EXPECT_EQ(stats.recoveries, 1u);
  // The same shape on fresh buffers, without the fault: a gang again.
  Buffer a = alloc(n * 4), b = alloc(n * 4), t = alloc(1024);
  zero(a);
  GraphSpec ok = g;
  ok.tasks[0].buffers = {a.arg(), b.arg()};
  ok.tasks[1] = {"tiny", {t.arg()}, {}, {0}};
  ok.tasks[2].buffers = {b.arg(), a.arg()};
  ASSERT_OK(rt->createGraph(ok, id));
  for (int round = 0; round < 3; ++round) {
    zero(a);
    ASSERT_OK(rt->submit(id, Priority::Urgent, s));
    ASSERT_OK(rt->wait(s, kWaitUs));
    std::vector<float> out(n);
    ASSERT_OK(rt->copyFromDevice(out.data(), a.ptr, n * 4));
    EXPECT_EQ(std::count(out.begin(), out.end(), 4.0f), n) << "round " << round;
  }
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.gangRuns, 3u); // since the recovery
}
