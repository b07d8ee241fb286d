//===- StreamTest.cpp - stream-ordered submissions, simulator and GPU -----===//
//
// Runtime::submitOnStream: the run starts only after the work its stream
// had before the call, and the stream's later work only after the run; the
// host never waits. The run's launch is queued behind the stream, and the
// kernel parks when it meets the run's entry early. On "sim" the stream is
// a SimStream (a thread running its queue), on "gpu" a CUstream of the
// runtime's context, held at a point by a wait on a mapped word the test
// writes. Process backends refuse.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Backend.h"
#include "gpuos/runtime/Driver.h"
#include "gpuos/runtime/Runtime.h"

#include "RuntimeFixture.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

namespace {

constexpr size_t kN = 4096; // the test image's scale4k: y = 3 x + 1

/// A stream the test can hold at a point, fill buffers on, and sync.
class TestStream {
public:
  virtual ~TestStream() = default;
  virtual uint64_t handle() const = 0;
  /// Work enqueued after this waits until release().
  virtual void hold() = 0;
  virtual void release() = 0;
  /// Enqueues: `n` floats at device address `dst` become `value`.
  virtual void fill(uint64_t dst, float value, size_t n) = 0;
  virtual void synchronize() = 0;
  /// `n` floats at `src`, read now (also after the runtime has closed).
  virtual std::vector<float> read(uint64_t src, size_t n) = 0;
  /// Starts capturing a CUDA graph on the stream; false where streams
  /// cannot capture. endCapture() ends it and drops the graph.
  virtual bool beginCapture() { return false; }
  virtual void endCapture() {}
};

class SimTestStream final : public TestStream {
public:
  uint64_t handle() const override { return stream_.handle(); }
  void hold() override {
    uint32_t k = ++holds_;
    stream_.enqueue([this, k] {
      while (released_.load(std::memory_order_acquire) < k)
        std::this_thread::yield();
    });
  }
  void release() override { released_.store(holds_, std::memory_order_release); }
  void fill(uint64_t dst, float value, size_t n) override {
    stream_.enqueue([=] {
      auto *p = reinterpret_cast<uint32_t *>(dst);
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      for (size_t i = 0; i < n; ++i) // the workers read them: atomics, for TSan
        __atomic_store_n(p + i, bits, __ATOMIC_RELAXED);
    });
  }
  void synchronize() override { stream_.synchronize(); }
  std::vector<float> read(uint64_t src, size_t n) override {
    std::vector<float> v(n);
    std::memcpy(v.data(), reinterpret_cast<const void *>(src), n * 4);
    return v;
  }

private:
  SimStream stream_;
  uint32_t holds_ = 0;
  std::atomic<uint32_t> released_{0};
};

/// A CUstream on the primary context of device 0 (the test runtime's).
class GpuTestStream final : public TestStream {
public:
  static std::unique_ptr<GpuTestStream> open(std::string &error) {
    const DriverStatus &d = loadDriver();
    if (!d.available() || !d.api->hasStreamOrdering() || !d.api->cuStreamWaitValue32) {
      error = d.available() ? "no stream events or stream memory operations" : d.error;
      return nullptr;
    }
    auto s = std::unique_ptr<GpuTestStream>(new GpuTestStream(*d.api));
    const DriverApi &a = *d.api;
    CUdevice dev = 0;
    if (a.cuDeviceGet(&dev, 0) || a.cuDevicePrimaryCtxRetain(&s->ctx_, dev) ||
        a.cuCtxSetCurrent(s->ctx_) || a.cuStreamCreate(&s->stream_, cu::kStreamNonBlocking) ||
        a.cuMemHostAlloc(reinterpret_cast<void **>(&s->flag_), 4,
                         cu::kMemHostAllocPortable | cu::kMemHostAllocDeviceMap) ||
        a.cuMemHostGetDevicePointer(&s->flagDev_, s->flag_, 0)) {
      error = "could not create a stream and a mapped word";
      return nullptr;
    }
    *s->flag_ = 0;
    return s;
  }
  ~GpuTestStream() override {
    a_.cuCtxSetCurrent(ctx_);
    if (stream_) {
      a_.cuStreamSynchronize(stream_);
      a_.cuStreamDestroy(stream_);
    }
    for (void *p : staging_)
      a_.cuMemFreeHost(p);
    if (flag_)
      a_.cuMemFreeHost(flag_);
  }
  uint64_t handle() const override { return reinterpret_cast<uint64_t>(stream_); }
  void hold() override {
    a_.cuCtxSetCurrent(ctx_);
    EXPECT_EQ(a_.cuStreamWaitValue32(stream_, flagDev_, ++holds_, cu::kStreamWaitValueGeq), 0);
  }
  void release() override { __atomic_store_n(flag_, holds_, __ATOMIC_RELEASE); }
  void fill(uint64_t dst, float value, size_t n) override {
    a_.cuCtxSetCurrent(ctx_);
    void *host = nullptr;
    ASSERT_EQ(a_.cuMemHostAlloc(&host, n * 4, cu::kMemHostAllocPortable), 0);
    staging_.push_back(host);
    std::fill_n(static_cast<float *>(host), n, value);
    EXPECT_EQ(a_.cuMemcpyHtoDAsync(dst, host, n * 4, stream_), 0);
  }
  void synchronize() override {
    a_.cuCtxSetCurrent(ctx_);
    EXPECT_EQ(a_.cuStreamSynchronize(stream_), 0);
  }
  std::vector<float> read(uint64_t src, size_t n) override {
    a_.cuCtxSetCurrent(ctx_);
    std::vector<float> v(n);
    void *host = nullptr;
    EXPECT_EQ(a_.cuMemHostAlloc(&host, n * 4, cu::kMemHostAllocPortable), 0);
    EXPECT_EQ(a_.cuMemcpyDtoHAsync(host, src, n * 4, stream_), 0);
    EXPECT_EQ(a_.cuStreamSynchronize(stream_), 0);
    std::memcpy(v.data(), host, n * 4);
    a_.cuMemFreeHost(host);
    return v;
  }

  bool beginCapture() override {
    if (!a_.cuStreamBeginCapture || !a_.cuStreamEndCapture || !a_.cuGraphDestroy)
      return false;
    a_.cuCtxSetCurrent(ctx_);
    CUresult began = a_.cuStreamBeginCapture(stream_, cu::kStreamCaptureModeThreadLocal);
    EXPECT_EQ(began, 0);
    return began == 0;
  }
  void endCapture() override {
    a_.cuCtxSetCurrent(ctx_);
    CUgraph graph = nullptr;
    EXPECT_EQ(a_.cuStreamEndCapture(stream_, &graph), 0);
    if (graph)
      a_.cuGraphDestroy(graph);
  }

private:
  explicit GpuTestStream(const DriverApi &a) : a_(a) {}
  const DriverApi &a_;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  uint32_t *flag_ = nullptr;
  CUdeviceptr flagDev_ = 0;
  uint32_t holds_ = 0;
  std::vector<void *> staging_;
};

class StreamTest : public RuntimeFixture {
protected:
  void SetUp() override {} // opened with a short idle park below

  /// Opens the runtime; false (and the test is skipped or over) when this
  /// backend has no streams.
  bool openWithStream(uint32_t idleParkUs = 200) {
    RuntimeOptions options;
    options.idleParkUs = idleParkUs; // 200: parks many times while a test holds a stream
    open(options);
    if (IsSkipped() || HasFatalFailure())
      return false;
    stream = makeStream();
    return !HasFailure();
  }

  /// A stream of this backend (null for process backends).
  std::unique_ptr<TestStream> makeStream() {
    if (GetParam() == "sim")
      return std::make_unique<SimTestStream>();
    if (GetParam() != "gpu")
      return nullptr;
    std::string error;
    std::unique_ptr<TestStream> s = GpuTestStream::open(error);
    if (!s)
      ADD_FAILURE() << error;
    return s;
  }

  /// Process backends have no streams: the two tests that call the
  /// submits there check that they say so; the others skip.
  bool skipWithoutStream() {
    if (stream)
      return false;
    [&] { // GTEST_SKIP returns from a void function
      GTEST_SKIP() << GetParam() << " has no streams (RunWaitsForItsStream... "
                   << "checks that it says so)";
    }();
    return true;
  }

  /// x and y of kN floats, both zero, and the graph y = 3 x + 1 over them.
  GraphId zeroedScaleGraph(Buffer &x, Buffer &y) {
    x = alloc(kN * 4);
    y = alloc(kN * 4);
    zero(x);
    zero(y);
    return scaleGraph(x, y);
  }

  GraphId scaleGraph(const Buffer &x, const Buffer &y) {
    GraphSpec g;
    g.tasks.push_back({"scale4k", {x.arg(), y.arg()}, {}, {}});
    GraphId id = 0;
    EXPECT_OK(rt->createGraph(g, id));
    return id;
  }

  void expectAll(const Buffer &b, float value, const char *what) {
    std::vector<float> v = readFloats(b, kN);
    int bad = 0;
    for (float f : v)
      bad += f != value;
    EXPECT_EQ(bad, 0) << what << ": expected " << value << ", [0] = " << v[0];
  }

  std::unique_ptr<TestStream> stream;
};

// The run reads what the stream wrote before the submission and is done
// before what the stream does after it: y = 3 * 5 + 1 proves both (the
// later fill of x with 0 would make it 1, the initial x 0 would too). While
// the stream is held the run does not start (a kernel that took the entry
// anyway would compute 3 * 0 + 1).
TEST_P(StreamTest, RunWaitsForItsStreamAndTheStreamForTheRun) {
  if (!openWithStream())
    return;
  Buffer x, y;
  GraphId id = zeroedScaleGraph(x, y);
  Submission s;
  if (!stream) {
    Status st = rt->submitOnStream(id, Priority::Normal, 0, s);
    EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.toString();
    return;
  }
  stream->hold();
  stream->fill(x.ptr, 5.0f, kN);
  ASSERT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), s));
  stream->fill(x.ptr, 0.0f, kN);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::NotReady);
  expectAll(y, 0.0f, "y while the stream is held");
  stream->release();
  ASSERT_OK(rt->wait(s, kWaitUs));
  stream->synchronize();
  expectAll(y, 16.0f, "y");
  expectAll(x, 0.0f, "x after the stream's later fill");
}

// Back-to-back stream-ordered submissions of one graph, each between two
// fills on the stream, with the host never waiting: more calls than a
// graph gets run slots (the submit waits for the stream, as a full CUDA
// launch queue does). The last run saw the last fill.
TEST_P(StreamTest, BackToBackCallsPipeline) {
  if (!openWithStream() || skipWithoutStream())
    return;
  Buffer x = alloc(kN * 4), y = alloc(kN * 4);
  zero(y);
  GraphId id = scaleGraph(x, y);
  const int calls = 100;
  std::vector<Submission> subs(calls);
  for (int i = 0; i < calls; ++i) {
    stream->fill(x.ptr, (float)i, kN);
    if (i % 3 == 0) // the graph's own priority
      ASSERT_OK(rt->submitOnStream(id, stream->handle(), subs[i]));
    else
      ASSERT_OK(rt->submitOnStream(id, i % 2 ? Priority::Urgent : Priority::Background,
                                   stream->handle(), subs[i]));
  }
  stream->fill(x.ptr, -1.0f, kN);
  for (Submission s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  stream->synchronize();
  expectAll(y, 3.0f * (calls - 1) + 1.0f, "y");
  Stats st;
  ASSERT_OK(rt->stats(st));
  EXPECT_EQ(st.completed, (uint64_t)calls);
}

// A plain submission behind a held stream-ordered one waits for it (the
// ring is in order), and both complete once the stream goes on.
TEST_P(StreamTest, LaterSubmissionsWaitBehindTheStreamEntry) {
  if (!openWithStream() || skipWithoutStream())
    return;
  Buffer x = alloc(kN * 4), y = alloc(kN * 4), u = alloc(kN * 4), v = alloc(kN * 4);
  zero(y);
  zero(u);
  zero(v);
  GraphId ordered = scaleGraph(x, y), plain = scaleGraph(u, v);
  stream->hold();
  stream->fill(x.ptr, 1.0f, kN);
  Submission a, b;
  ASSERT_OK(rt->submitOnStream(ordered, Priority::Background, stream->handle(), a));
  ASSERT_OK(rt->submit(plain, Priority::Urgent, b));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt->poll(b).code(), ErrorCode::NotReady);
  stream->release();
  ASSERT_OK(rt->wait(a, kWaitUs));
  ASSERT_OK(rt->wait(b, kWaitUs));
  expectAll(y, 4.0f, "y");
  expectAll(v, 1.0f, "v");
}

// Two streams take turns: a run on stream B behind a held run on stream A
// waits for it (ring order), and B's later work waits for B's run; once A
// goes on, both runs read what their streams wrote before them, and a
// plain submission afterwards runs too.
TEST_P(StreamTest, TwoStreamsTakeTurns) {
  if (!openWithStream() || skipWithoutStream())
    return;
  std::unique_ptr<TestStream> other = makeStream();
  ASSERT_TRUE(other);
  Buffer x = alloc(kN * 4), y = alloc(kN * 4), u = alloc(kN * 4), v = alloc(kN * 4);
  Buffer p = alloc(kN * 4), q = alloc(kN * 4);
  zero(y);
  zero(v);
  zero(q);
  GraphId onA = scaleGraph(x, y), onB = scaleGraph(u, v), plain = scaleGraph(p, q);
  stream->hold();
  stream->fill(x.ptr, 5.0f, kN);
  Submission a, b, c;
  ASSERT_OK(rt->submitOnStream(onA, Priority::Normal, stream->handle(), a));
  other->fill(u.ptr, 2.0f, kN);
  ASSERT_OK(rt->submitOnStream(onB, Priority::Urgent, other->handle(), b));
  other->fill(u.ptr, -1.0f, kN);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt->poll(b).code(), ErrorCode::NotReady);
  expectAll(v, 0.0f, "v while the first stream is held");
  stream->release();
  ASSERT_OK(rt->wait(a, kWaitUs));
  ASSERT_OK(rt->wait(b, kWaitUs));
  stream->synchronize();
  other->synchronize();
  expectAll(y, 16.0f, "y");
  expectAll(v, 7.0f, "v");
  expectAll(u, -1.0f, "u after the second stream's later fill");
  other->fill(p.ptr, 1.0f, kN);
  other->synchronize();
  ASSERT_OK(rt->submit(plain, Priority::Normal, c));
  ASSERT_OK(rt->wait(c, kWaitUs));
  expectAll(q, 4.0f, "q");
}

// A kernel that idles (it would park only after 10 s) parks when it meets
// a stream-ordered entry whose stream is held: on a GPU the stream's
// earlier kernels need the SMs it holds. A launch before the entry must not
// take it (y would be 3 * 0 + 1 before the fill).
TEST_P(StreamTest, AHeldEntryParksTheKernel) {
  if (!openWithStream(10'000'000) || skipWithoutStream())
    return;
  Buffer x, y;
  GraphId id = zeroedScaleGraph(x, y);
  Submission s;
  ASSERT_OK(rt->submit(id, Priority::Normal, s)); // the kernel is up
  ASSERT_OK(rt->wait(s, kWaitUs));
  Stats before;
  ASSERT_OK(rt->stats(before));
  stream->hold();
  stream->fill(x.ptr, 5.0f, kN);
  ASSERT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), s));
  bool parked = false;
  for (auto start = Clock::now(); !parked && seconds(Clock::now() - start) < 5.0;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    Stats now;
    ASSERT_OK(rt->stats(now));
    parked = now.parks > before.parks;
  }
  EXPECT_TRUE(parked) << "the kernel did not park at the held entry";
  EXPECT_EQ(rt->poll(s).code(), ErrorCode::NotReady);
  stream->release();
  ASSERT_OK(rt->wait(s, kWaitUs));
  stream->synchronize();
  expectAll(y, 16.0f, "y");
}

// The launch that runs a stream-ordered run parks as soon as it is idle,
// not after idleParkUs (10 s here): the stream's later work waits for it.
TEST_P(StreamTest, TheStreamGoesOnWhenTheRunEnds) {
  if (!openWithStream(10'000'000) || skipWithoutStream())
    return;
  Buffer x = alloc(kN * 4), y = alloc(kN * 4);
  zero(y);
  GraphId id = scaleGraph(x, y);
  stream->fill(x.ptr, 1.0f, kN);
  Submission s;
  auto start = Clock::now();
  ASSERT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), s));
  stream->fill(x.ptr, 2.0f, kN);
  stream->synchronize();
  EXPECT_LT(seconds(Clock::now() - start), 2.0) << "the launch idled before it parked";
  EXPECT_OK(rt->poll(s));
  expectAll(y, 4.0f, "y");
  expectAll(x, 2.0f, "x after the stream's later fill");
}

// A caller far ahead of its stream waits in submitOnStream for a run slot
// (a graph gets 16 for stream-ordered runs) without the runtime's lock:
// other threads' calls go on meanwhile.
TEST_P(StreamTest, WaitingForASlotLeavesTheRuntimeToOthers) {
  if (!openWithStream() || skipWithoutStream())
    return;
  Buffer x = alloc(kN * 4), y = alloc(kN * 4);
  GraphId id = scaleGraph(x, y);
  stream->hold();
  stream->fill(x.ptr, 2.0f, kN);
  std::vector<Submission> subs(17);
  for (int i = 0; i < 16; ++i)
    ASSERT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), subs[i]));
  std::atomic<bool> submitted{false};
  std::thread ahead([&] {
    EXPECT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), subs[16]));
    submitted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(submitted.load()); // every slot is held by the stream
  auto other = std::async(std::launch::async, [&] {
    Stats st;
    return rt->stats(st).ok();
  });
  EXPECT_EQ(other.wait_for(std::chrono::milliseconds(500)), std::future_status::ready)
      << "stats() waited for the blocked submit";
  stream->release();
  ahead.join();
  EXPECT_TRUE(other.get());
  for (Submission s : subs)
    ASSERT_OK(rt->wait(s, kWaitUs));
  stream->synchronize();
  expectAll(y, 7.0f, "y");
}

// Closing while a stream has not reached a run's launch neither hangs (the
// host withdraws the entry: the launch, when the stream gets to it, parks
// without running it, since its buffers may be gone by then) nor frees the
// memory that launch will still read.
TEST_P(StreamTest, CloseWithAStreamStillHeldDoesNotHang) {
  if (!openWithStream() || skipWithoutStream())
    return;
  Buffer x, y;
  GraphId id = zeroedScaleGraph(x, y);
  stream->hold();
  Submission s;
  ASSERT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), s));
  auto start = Clock::now();
  auto closing = std::async(std::launch::async, [&] { return rt->close(); });
  // A close that hangs on the held stream fails here instead of hanging
  // the test: the stream is released after the limit either way.
  bool returned = closing.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  EXPECT_TRUE(returned) << "close() waits for the held stream";
  stream->release();
  EXPECT_OK(closing.get());
  if (returned)
    EXPECT_LT(seconds(Clock::now() - start), 5.0);
  rt.reset();
  stream->synchronize(); // the queued launch ran and ended
  std::vector<float> v = stream->read(y.ptr, kN); // leaked with the runtime's memory
  EXPECT_EQ(std::count(v.begin(), v.end(), 0.0f), (long)kN) << "the withdrawn run ran: y[0] = " << v[0];
}

// A stream that is capturing a CUDA graph is refused with an error that
// says so (the run would go to the resident kernel at once while its
// launch became a graph node), and nothing is lost: once the capture has
// ended, a submission on the same stream runs and reads what the stream
// wrote before it.
TEST_P(StreamTest, ACapturingStreamIsRefused) {
  if (!openWithStream() || skipWithoutStream())
    return;
  Buffer x, y;
  GraphId id = zeroedScaleGraph(x, y);
  if (!stream->beginCapture())
    GTEST_SKIP() << GetParam() << " streams do not capture CUDA graphs";
  Submission s;
  Status st = rt->submitOnStream(id, Priority::Normal, stream->handle(), s);
  stream->endCapture();
  EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.toString();
  EXPECT_NE(st.message().find("capturing a CUDA graph"), std::string::npos)
      << st.toString();
  stream->fill(x.ptr, 2.0f, kN);
  ASSERT_OK(rt->submitOnStream(id, Priority::Normal, stream->handle(), s));
  ASSERT_OK(rt->wait(s, kWaitUs));
  stream->synchronize();
  expectAll(y, 7.0f, "y");
  Stats stats;
  ASSERT_OK(rt->stats(stats));
  EXPECT_EQ(stats.completed, 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StreamTest, kBackends, backendName);

} // namespace
