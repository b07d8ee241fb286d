//===- RuntimeFixture.h - a runtime on "sim" or "gpu" per test --*- C++ -*-===//
//
// The parameterized fixture of the runtime's end-to-end tests: every
// scenario runs on "sim" (the CPU simulator, always, part of CI) and on
// "gpu" (skipped visibly without a driver or the nvcc-built image), and
// as "simhost"/"gpuhost" with the device's context in a device host
// process (DeviceHost.h).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_TEST_RUNTIMEFIXTURE_H
#define GPUOS_RUNTIME_TEST_RUNTIMEFIXTURE_H

#include "gpuos/runtime/Runtime.h"

#include "Eventually.h"
#include "TestImage.h"
#include "gtest/gtest.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gpuos::runtime::rttest {

using Clock = std::chrono::steady_clock;

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    ::gpuos::runtime::Status _st = (expr);                                     \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.toString();                  \
  } while (0)
#define EXPECT_OK(expr)                                                        \
  do {                                                                         \
    ::gpuos::runtime::Status _st = (expr);                                     \
    EXPECT_TRUE(_st.ok()) << #expr << ": " << _st.toString();                  \
  } while (0)

constexpr int64_t kWaitUs = 30'000'000; // generous: a hang fails, not blocks

inline double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// The backends every fixture test runs on:
///   INSTANTIATE_TEST_SUITE_P(Backends, MyTest, kBackends, backendName);
inline const auto kBackends = ::testing::Values("sim", "gpu", "simhost", "gpuhost");
inline std::string backendName(const ::testing::TestParamInfo<std::string> &info) {
  return info.param;
}

class RuntimeFixture : public ::testing::TestWithParam<std::string> {
protected:
  bool gpu() const { return GetParam().rfind("gpu", 0) == 0; }
  /// The device's context is in a device host process (DeviceHost.h).
  bool hosted() const { return GetParam().find("host") != std::string::npos; }
  /// Scales a GPU-sized count down for the simulator.
  int scaled(int gpuCount, int simCount) const { return gpu() ? gpuCount : simCount; }

  void open(RuntimeOptions options = RuntimeOptions()) {
    std::string skip, error;
    if (!testimage::openTestRuntime(GetParam(), options, rt, skip, error)) {
      if (!skip.empty())
        GTEST_SKIP() << skip;
      FAIL() << error;
    }
  }

  /// Closes the runtime SetUp opened and opens one with `options`; false
  /// when the test should end here (skipped, or the open failed).
  bool reopen(const RuntimeOptions &options) {
    if (rt)
      EXPECT_OK(rt->close());
    open(options);
    return !IsSkipped() && !HasFatalFailure();
  }

  void SetUp() override {
    if (!IsSkipped() && !HasFatalFailure())
      open();
  }

  void TearDown() override {
    if (rt)
      EXPECT_OK(rt->close());
  }

  Buffer alloc(uint64_t bytes) {
    Buffer b;
    Status st = rt->alloc(bytes, b);
    EXPECT_TRUE(st.ok()) << st.toString();
    return b;
  }

  std::vector<float> readFloats(const Buffer &b, size_t n) {
    std::vector<float> v(n);
    EXPECT_OK(rt->copyFromDevice(v.data(), b.ptr, n * sizeof(float)));
    return v;
  }

  std::vector<uint32_t> readU32(const Buffer &b, size_t n) {
    std::vector<uint32_t> v(n);
    EXPECT_OK(rt->copyFromDevice(v.data(), b.ptr, n * sizeof(uint32_t)));
    return v;
  }

  void zero(const Buffer &b) {
    std::vector<uint8_t> z(b.bytes, 0);
    EXPECT_OK(rt->copyToDevice(b.ptr, z.data(), z.size()));
  }

  /// A graph of one task of `kind` over `out` (with `dynamic` values).
  GraphId oneTaskGraph(const std::string &kind, const Buffer &out,
                       std::vector<int64_t> dynamic = {}) {
    GraphSpec g;
    g.tasks.push_back({kind, {out.arg()}, std::move(dynamic), {}});
    GraphId id = 0;
    Status st = rt->createGraph(g, id);
    EXPECT_TRUE(st.ok()) << st.toString();
    return id;
  }

  /// A graph of one task of `kind` writing `out`, submitted `times` times at
  /// `priority`, each waited for.
  void runOneTask(const std::string &kind, const Buffer &out, Priority priority,
                  int times) {
    GraphId id = oneTaskGraph(kind, out);
    for (int round = 0; round < times; ++round) {
      Submission s;
      ASSERT_OK(rt->submit(id, priority, s));
      ASSERT_OK(rt->wait(s, kWaitUs));
    }
  }

  /// One task of `spin` with `tiles` tiles of `ns` nanoseconds each.
  GraphId spinGraph(const Buffer &stamps, uint32_t tiles, uint64_t ns) {
    GraphSpec g;
    g.tasks.push_back({"spin", {stamps.arg()}, {(int64_t)tiles, (int64_t)ns}, {}});
    GraphId id = 0;
    Status st = rt->createGraph(g, id);
    EXPECT_TRUE(st.ok()) << st.toString();
    return id;
  }

  std::unique_ptr<Runtime> rt;
};


} // namespace gpuos::runtime::rttest

#endif // GPUOS_RUNTIME_TEST_RUNTIMEFIXTURE_H
