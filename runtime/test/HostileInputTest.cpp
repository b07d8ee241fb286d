//===- HostileInputTest.cpp - extreme and hostile arguments ---------------===//
//
// Arguments at the edges of their types (a "never" timeout of INT64_MAX, a
// dynamic size of 2^62, an allocation of 2^64 - 1 bytes), ids and buffers
// used wrongly, and calls from the wrong place: each gets a clear error or
// the documented behaviour, never a crash, a hang, a wrapped-around
// computation or a success it cannot vouch for. Each case was a bug.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/gpuos_runtime.h"

#include "CApiInternal.h"
#include "RuntimeFixture.h"

#include <cstdint>
#include <future>
#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

namespace {

class HostileInputTest : public RuntimeFixture {
protected:
  void SetUp() override {} // each test opens with its options
};

INSTANTIATE_TEST_SUITE_P(Backends, HostileInputTest, kBackends, backendName);

bool contains(const Status &st, const std::string &text) {
  return st.message().find(text) != std::string::npos;
}

} // namespace

// INT64_MAX microseconds means "no limit" everywhere: as a wait's timeout,
// a graph's timeout and the hang grace (the conversion to the clock's
// nanoseconds used to wrap into the past: immediate timeouts, deadlines
// already missed, and a runtime declared hung for good).
TEST_P(HostileInputTest, HugeTimeoutsMeanNoLimit) {
  RuntimeOptions o;
  o.hangGraceUs = INT64_MAX;
  open(o);
  if (!rt)
    return;
  Buffer stamps = alloc(64);
  GraphId slow = spinGraph(stamps, 1, 100'000'000); // 100 ms
  Submission s;
  ASSERT_OK(rt->submit(slow, Priority::Normal, s));
  auto start = Clock::now();
  ASSERT_OK(rt->wait(s, INT64_MAX));
  EXPECT_GE(seconds(Clock::now() - start), 0.05);

  ASSERT_OK(rt->setGraphTimeout(slow, INT64_MAX));
  ASSERT_OK(rt->submit(slow, Priority::Normal, s));
  EXPECT_OK(rt->wait(s, kWaitUs));

  // A deadline missed with an endless grace fails that submission only.
  GraphId late = spinGraph(alloc(64), 1, 300'000'000);
  ASSERT_OK(rt->setGraphTimeout(late, 10'000));
  GraphId bystander = spinGraph(alloc(64), 1, 100'000'000);
  Submission lateRun, other;
  ASSERT_OK(rt->submit(late, Priority::Normal, lateRun));
  ASSERT_OK(rt->submit(bystander, Priority::Normal, other));
  EXPECT_EQ(rt->wait(lateRun, kWaitUs).code(), ErrorCode::DeadlineExceeded);
  EXPECT_OK(rt->wait(other, kWaitUs));
  std::this_thread::sleep_for(std::chrono::milliseconds(400)); // the late tile ends
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.recoveries, 0u);
  ASSERT_OK(rt->submit(bystander, Priority::Normal, other));
  EXPECT_OK(rt->wait(other, kWaitUs));
}

// A view whose extent does not fit 64 bits is refused, not wrapped around
// to a few bytes that a small buffer passes.
TEST_P(HostileInputTest, ViewsBeyondSixtyFourBitsAreRefused) {
  open();
  if (!rt)
    return;
  Buffer x = alloc(4), y = alloc(4096 * 4);
  GraphSpec g;
  g.tasks.push_back({"stream", {x.arg(), y.arg()}, {(int64_t)(1ull << 62) + 1, 4096}, {}});
  GraphId id;
  Status st = rt->createGraph(g, id);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "task 0 ('stream'): buffer 0 ('x') spans more than 2^64 "
                          "bytes with shape [4611686018427387905] and strides [1]");
}

// A caller's byte count cannot stretch one of the runtime's own
// allocations (it used to win over what the runtime knew).
TEST_P(HostileInputTest, ClaimedBytesCannotExceedTheAllocation) {
  open();
  if (!rt)
    return;
  Buffer x = alloc(4), y = alloc(4096 * 4);
  BufferArg claim = x.arg();
  claim.bytes = 4096 * 4;
  GraphSpec g;
  g.tasks.push_back({"stream", {claim, y.arg()}, {4096, 4096}, {}});
  GraphId id;
  Status st = rt->createGraph(g, id);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(st, "buffer 0 ('x') claims 16384 bytes but its allocation has 4"))
      << st.toString();
}

// An allocation of 2^64 - 1 bytes is out of memory (the simulator rounded
// it up to zero and handed out 256 bytes).
TEST_P(HostileInputTest, AllocOfAllAddressesIsOutOfMemory) {
  open();
  if (!rt)
    return;
  Buffer b;
  EXPECT_EQ(rt->alloc(UINT64_MAX, b).code(), ErrorCode::OutOfMemory);
}

// Freeing a buffer a graph is bound to makes the graph stale (it ran on
// freed memory), with a message that names the buffer.
TEST_P(HostileInputTest, FreeingABoundBufferStalesItsGraphs) {
  open();
  if (!rt)
    return;
  Buffer t = alloc(1024);
  GraphId id = oneTaskGraph("tiny", t);
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Normal, s));
  ASSERT_OK(rt->free(t.ptr));
  EXPECT_OK(rt->wait(s, kWaitUs)); // in flight before the free: it finishes
  Status st = rt->submit(id, Priority::Normal, s);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "graph " + std::to_string(id) + " uses buffer " +
                              std::to_string(t.ptr) +
                              " (task 0), which was freed; destroy the graph");
  EXPECT_OK(rt->destroyGraph(id));
}

// A submit that waits for admission (too many tiles in flight) waits
// without the runtime's lock: poll on another thread answers at once.
TEST_P(HostileInputTest, AdmissionWaitLeavesTheRuntimeToOthers) {
  RuntimeOptions o;
  o.queueCapacity = 64; // 32 tiles in flight per priority
  open(o);
  if (!rt)
    return;
  GraphId id = spinGraph(alloc(8 * 32), 24, 100'000'000); // 24 tiles of 100 ms
  Submission first, second;
  ASSERT_OK(rt->submit(id, Priority::Normal, first));
  auto blocked = std::async(std::launch::async, [&] {
    return rt->submit(id, Priority::Normal, second);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto start = Clock::now();
  Status polled = rt->poll(first);
  double pollSeconds = seconds(Clock::now() - start);
  // The blocked submit waits for tiles of 100 ms: the poll answered first.
  EXPECT_NE(blocked.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(polled.code(), ErrorCode::NotReady);
  EXPECT_LT(pollSeconds, 0.05);
  ASSERT_OK(blocked.get());
  EXPECT_OK(rt->wait(first, kWaitUs));
  EXPECT_OK(rt->wait(second, kWaitUs));
}

// A graph of more tiles than RuntimeOptions::maxTilesInFlight() could never
// be admitted: refused at creation, naming the limit; one of exactly that
// many runs. (The Python front-end reads the limit through the C API,
// gpuos_max_graph_tiles, and runs larger graphs in PyTorch.)
TEST_P(HostileInputTest, GraphsOfMoreTilesThanAdmittedAreRefused) {
  RuntimeOptions o;
  o.queueCapacity = 64;
  open(o);
  if (!rt)
    return;
  const uint32_t limit = (uint32_t)o.maxTilesInFlight();
  Buffer stamps = alloc(8 * (limit + 1));
  GraphSpec g;
  g.tasks.push_back({"spin", {stamps.arg()}, {(int64_t)limit + 1, 1000}, {}});
  GraphId id = 0;
  Status st = rt->createGraph(g, id);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(st.message().find("the graph has " + std::to_string(limit + 1) +
                              " tiles; a ready queue admits at most " +
                              std::to_string(limit) + " in flight"),
            std::string::npos)
      << st.toString();
  GraphId fits = spinGraph(stamps, limit, 1000);
  Submission s;
  ASSERT_OK(rt->submit(fits, Priority::Normal, s));
  EXPECT_OK(rt->wait(s, kWaitUs));
}

// Waiting inside a safe-point action for a submission queued there would
// never end (it runs after the action): refused; it runs afterwards.
TEST_P(HostileInputTest, WaitInsideTheSafePointForItsOwnSubmissionIsRefused) {
  open();
  if (!rt)
    return;
  Buffer t = alloc(1024);
  GraphId id = oneTaskGraph("tiny", t);
  Submission s;
  Status inside;
  ASSERT_OK(rt->atSafePoint([&]() -> Status {
    GPUOS_RETURN_IF_ERROR(rt->submit(id, Priority::Normal, s));
    inside = rt->wait(s, -1);
    return Status::success();
  }));
  EXPECT_EQ(inside.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(inside.message(), "wait: the submission was queued inside atSafePoint "
                              "or an image swap on this thread, and runs after it returns");
  EXPECT_OK(rt->wait(s, kWaitUs));
}

// A failed submission never reads as a success: once its error is no
// longer kept (4096 later failures), wait says that it is not known.
TEST_P(HostileInputTest, ForgottenFailuresAreNotSuccesses) {
  open();
  if (!rt)
    return;
  GraphId id = oneTaskGraph("missing", alloc(4)); // its dispatch fails
  Submission first;
  ASSERT_OK(rt->submit(id, Priority::Normal, first));
  EXPECT_EQ(rt->wait(first, kWaitUs).code(), ErrorCode::TaskFailed);
  for (int i = 0; i < 4096; ++i) {
    Submission s;
    ASSERT_OK(rt->submit(id, Priority::Normal, s));
    ASSERT_EQ(rt->wait(s, kWaitUs).code(), ErrorCode::TaskFailed);
  }
  Status st = rt->wait(first, kWaitUs);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(st, "whether it failed is no longer known")) << st.toString();
  EXPECT_EQ(rt->poll(first).code(), ErrorCode::InvalidArgument);
}

// An id with a real serial but another run slot (bit flips, another
// runtime's id) is unknown while the real submission runs.
TEST_P(HostileInputTest, ForgedSubmissionIdsAreUnknown) {
  open();
  if (!rt)
    return;
  GraphId slow = spinGraph(alloc(64), 1, 300'000'000);
  GraphId quick = oneTaskGraph("tiny", alloc(1024));
  Submission running, done;
  ASSERT_OK(rt->submit(slow, Priority::Normal, running));
  ASSERT_OK(rt->submit(quick, Priority::Normal, done));
  ASSERT_OK(rt->wait(done, kWaitUs));
  uint64_t slot = running.id & 0xFFFFFF, otherSlot = done.id & 0xFFFFFF;
  ASSERT_NE(slot, otherSlot);
  Submission forged{(running.id & ~uint64_t(0xFFFFFF)) | otherSlot};
  EXPECT_EQ(rt->poll(running).code(), ErrorCode::NotReady);
  Status st = rt->poll(forged);
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(st.message(), "unknown submission " + std::to_string(forged.id));
  EXPECT_EQ(rt->wait(forged, 0).code(), ErrorCode::InvalidArgument);
  EXPECT_OK(rt->wait(running, kWaitUs));
}

// A wait under way when close() drains its submission gets the drained
// result, as the submission's callback does (it used to get Closed).
TEST_P(HostileInputTest, AWaitDuringCloseGetsTheDrainedResult) {
  open();
  if (!rt)
    return;
  GraphId id = spinGraph(alloc(64), 1, 200'000'000);
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Normal, s));
  std::promise<Status> callback;
  ASSERT_OK(rt->onComplete(s, [&](Submission, const Status &st) { callback.set_value(st); }));
  auto waiter = std::async(std::launch::async, [&] { return rt->wait(s, kWaitUs); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_OK(rt->close());
  EXPECT_OK(callback.get_future().get());
  EXPECT_OK(waiter.get());
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::Closed); // a call after close
}

// The C API: a directory or an unreadable file is an error that names it
// (the read threw through the C API and aborted the process), and a closed
// runtime says so before it parses the manifest.
TEST(HostileCApi, UnreadableImageFilesAreErrors) {
  std::unique_ptr<Runtime> opened;
  std::string skip, error;
  ASSERT_TRUE(testimage::openTestRuntime("sim", RuntimeOptions(), opened, skip, error))
      << error;
  gpuos_runtime *rt = wrapRuntime(std::move(opened));
  EXPECT_EQ(gpuos_load_image_files(rt, "/tmp", "/tmp"), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "cannot read /tmp: not a regular file");
  EXPECT_EQ(gpuos_load_image_files(rt, "/nonexistent/image.cubin", "/tmp"),
            GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(),
               "cannot read /nonexistent/image.cubin: No such file or directory");
  // A length no image has (SIZE_MAX: "basic_string::_M_create" before).
  EXPECT_EQ(gpuos_load_image(rt, "x", 1, "{}", SIZE_MAX), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(gpuos_last_error()),
            "manifest_bytes " + std::to_string(SIZE_MAX) +
                " is more than 4 GiB: not the size of an image");
  ASSERT_EQ(gpuos_close(rt), GPUOS_OK);
  const char cubin[] = "x";
  EXPECT_EQ(gpuos_load_image(rt, cubin, 1, "{}", 2), GPUOS_ERROR_CLOSED);
  gpuos_destroy(rt);
}
