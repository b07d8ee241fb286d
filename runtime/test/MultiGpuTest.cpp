//===- MultiGpuTest.cpp - one runtime per device, all at once ---------------===//
//
// One Runtime (one resident kernel, one context) per visible GPU, each
// driven by its own host thread with independent graphs; skipped visibly
// with fewer than two GPUs.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Driver.h"

#include "RuntimeFixture.h"

#include <thread>

using namespace gpuos::runtime;
using namespace gpuos::runtime::rttest;

TEST(RuntimeMultiGpu, IndependentGraphsOnEveryDevice) {
  if (testimage::cubinPath().empty())
    GTEST_SKIP() << "the CUDA parts of the runtime were not built (no nvcc)";
  const DriverStatus &driver = loadDriver();
  if (!driver.available())
    GTEST_SKIP() << driver.error;
  SystemInfo system = querySystem(driver);
  int devices = (int)system.devices.size();
  if (devices < 2)
    GTEST_SKIP() << "needs 2 GPUs, " << devices << " visible";
  std::vector<std::unique_ptr<Runtime>> rts(devices);
  std::vector<char> cubin;
  std::string json;
  ASSERT_OK(testimage::readImage("gpu", false, cubin, json));
  for (int d = 0; d < devices; ++d) {
    ASSERT_OK(Runtime::open(d, RuntimeOptions(), rts[d]));
    ASSERT_OK(rts[d]->loadImage(cubin, json));
  }
  const int tasks = 200, rounds = 200;
  std::vector<std::string> errors(devices);
  std::vector<std::thread> threads;
  for (int d = 0; d < devices; ++d)
    threads.emplace_back([&, d] {
      Runtime &rt = *rts[d];
      auto fail = [&](const Status &st) { errors[d] = st.toString(); };
      Buffer counts;
      Status st = rt.alloc(tasks * 4, counts);
      std::vector<uint32_t> c(tasks, 0);
      if (st.ok())
        st = rt.copyToDevice(counts.ptr, c.data(), tasks * 4);
      GraphSpec g;
      for (int k = 0; k < tasks; ++k)
        g.tasks.push_back({"count", {counts.arg()}, {tasks, k},
                           k % 10 ? std::vector<uint32_t>{(uint32_t)k - 1}
                                  : std::vector<uint32_t>{}});
      GraphId id = 0;
      if (st.ok())
        st = rt.createGraph(g, id);
      std::vector<Submission> subs(rounds);
      for (int r = 0; st.ok() && r < rounds; ++r)
        st = rt.submit(id, Priority::Normal, subs[r]);
      for (int r = 0; st.ok() && r < rounds; ++r)
        st = rt.wait(subs[r], kWaitUs);
      if (st.ok())
        st = rt.copyFromDevice(c.data(), counts.ptr, tasks * 4);
      if (!st.ok())
        return fail(st);
      for (int k = 0; k < tasks; ++k)
        if (c[k] != (uint32_t)rounds)
          return fail(Status::error(ErrorCode::TaskFailed,
                                    "device " + std::to_string(d) + " counter " +
                                        std::to_string(k) + " = " +
                                        std::to_string(c[k])));
    });
  for (std::thread &t : threads)
    t.join();
  for (int d = 0; d < devices; ++d) {
    EXPECT_EQ(errors[d], "") << "device " << d;
    Stats st;
    ASSERT_OK(rts[d]->stats(st));
    EXPECT_EQ(st.tasksRun, (uint64_t)tasks * rounds) << "device " << d;
    EXPECT_OK(rts[d]->close());
  }
}
