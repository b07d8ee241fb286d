//===- CApiTest.cpp - the C API (for FFI) ---------------------------------===//

#include "gpuos/runtime/gpuos_runtime.h"

#include "CApiInternal.h"
#include "Eventually.h"
#include "TestImage.h"
#include "gpuos/runtime/Driver.h"
#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace gpuos::runtime;

namespace {

/// A C handle around a runtime on the CPU simulator with the test image.
gpuos_runtime *openSim() {
  std::unique_ptr<Runtime> rt;
  std::string skip, error;
  if (!testimage::openTestRuntime("sim", RuntimeOptions(), rt, skip, error)) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  return wrapRuntime(std::move(rt));
}

} // namespace

// Null handles and null outputs are invalid arguments with a message.
TEST(CApi, NullArgumentsAreRejected) {
  EXPECT_EQ(gpuos_submit(nullptr, 1, 0, nullptr), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "the runtime handle is null");
  EXPECT_EQ(gpuos_open(0, nullptr, nullptr), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "the output pointer 'out' is null");
  EXPECT_EQ(gpuos_park(nullptr), GPUOS_ERROR_INVALID_ARGUMENT);
  gpuos_destroy(nullptr); // fine
  gpuos_options o;
  std::memset(&o, 0xFF, sizeof(o));
  gpuos_options_init(&o);
  EXPECT_EQ(o.urgent_exclusive, 0u); // every field set, the policies off
  EXPECT_EQ(o.record_jobs, 1u);
  EXPECT_EQ(o.gang_policy, 3u); // UrgentAlone, the default
  EXPECT_EQ(o.isolate_device, 0u);
  o.struct_size = 3;
  gpuos_runtime *rt = nullptr;
  EXPECT_EQ(gpuos_open(0, &o, &rt), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(rt, nullptr);
  gpuos_options_init(&o);
  o.gang_policy = 7;
  EXPECT_EQ(gpuos_open(0, &o, &rt), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(),
               "gpuos_options.gang_policy is 7; 0 (never), 1 (when idle), 2 (one at a "
               "time) or 3 (when no other urgent run is in flight)");
  EXPECT_EQ(rt, nullptr);
  EXPECT_STREQ(gpuos_status_name(GPUOS_ERROR_TASK_FAILED), "task failed");
}

// The tile limit of one graph follows the options' queue capacity (half of
// it may be in flight), with no GPU; null means the defaults.
TEST(CApi, MaxGraphTilesFollowTheQueueCapacity) {
  gpuos_options o;
  gpuos_options_init(&o);
  RuntimeOptions defaults;
  EXPECT_EQ(gpuos_max_graph_tiles(&o), defaults.maxTilesInFlight());
  EXPECT_EQ(gpuos_max_graph_tiles(nullptr), defaults.maxTilesInFlight());
  o.queue_capacity = 64;
  EXPECT_EQ(gpuos_max_graph_tiles(&o), 32u);
}

// Without a driver, gpuos_open says "no GPU" (and why) instead of failing
// to load. Visible skip on a machine with a GPU.
TEST(CApi, OpenWithoutDriverIsNoGpu) {
  if (loadDriver().available())
    GTEST_SKIP() << "a CUDA driver is present";
  gpuos_runtime *rt = nullptr;
  EXPECT_EQ(gpuos_open(0, nullptr, &rt), GPUOS_ERROR_NO_GPU);
  EXPECT_EQ(rt, nullptr);
  EXPECT_NE(std::string(gpuos_last_error()).find("no GPU"), std::string::npos);
  // The same from a device host process: it starts, finds no driver, and
  // its answer comes back as the open's error.
  gpuos_options o;
  gpuos_options_init(&o);
  o.isolate_device = 1;
  EXPECT_EQ(gpuos_open(0, &o, &rt), GPUOS_ERROR_NO_GPU);
  EXPECT_EQ(rt, nullptr);
  EXPECT_NE(std::string(gpuos_last_error()).find("no GPU"), std::string::npos)
      << gpuos_last_error();
}

// Options are checked before the driver is loaded, so a bad one is named
// with or without a GPU (it was NO_GPU without one), by its C field name.
TEST(CApi, BadOptionsAreNamedBeforeTheDriver) {
  gpuos_options o;
  gpuos_options_init(&o);
  o.ring_capacity = 3;
  gpuos_runtime *rt = nullptr;
  EXPECT_EQ(gpuos_open(0, &o, &rt), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(rt, nullptr);
  EXPECT_STREQ(gpuos_last_error(),
               "gpuos_options.ring_capacity must be a power of two in [32, 2^24]");
  gpuos_options_init(&o);
  o.timeout_us = -1;
  EXPECT_EQ(gpuos_open(0, &o, &rt), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "gpuos_options.timeout_us and "
                                   "gpuos_options.hang_grace_us must not be negative");
}

// A device host that is not there is named, before anything starts.
TEST(CApi, MissingDeviceHostIsNamed) {
  const char *was = std::getenv("GPUOS_DEVICE_HOST");
  std::string saved = was ? was : "";
  setenv("GPUOS_DEVICE_HOST", "/nonexistent/gpuos-device-host", 1);
  gpuos_options o;
  gpuos_options_init(&o);
  o.isolate_device = 1;
  gpuos_runtime *rt = nullptr;
  EXPECT_EQ(gpuos_open(0, &o, &rt), GPUOS_ERROR_INVALID_ARGUMENT);
  std::string missing = gpuos_last_error();
  // An executable that is no device host: it leaves without answering.
  setenv("GPUOS_DEVICE_HOST", "/bin/true", 1);
  EXPECT_NE(gpuos_open(0, &o, &rt), GPUOS_OK);
  std::string notAHost = gpuos_last_error();
  if (was)
    setenv("GPUOS_DEVICE_HOST", saved.c_str(), 1);
  else
    unsetenv("GPUOS_DEVICE_HOST");
  EXPECT_EQ(rt, nullptr);
  EXPECT_EQ(missing, "GPUOS_DEVICE_HOST=/nonexistent/gpuos-device-host is not an executable");
  EXPECT_EQ(notAHost, "the device host process (/bin/true) exited with status 0");
}

// A whole round through the C API: buffers, a graph with dependencies,
// submit, wait, results, stats; then validation errors and close.
TEST(CApi, RunsAGraphOnTheSimulator) {
  gpuos_runtime *rt = openSim();
  ASSERT_NE(rt, nullptr);
  uint64_t x, y, z;
  ASSERT_EQ(gpuos_alloc(rt, 4096 * 4, &x), GPUOS_OK);
  ASSERT_EQ(gpuos_alloc(rt, 4096 * 4, &y), GPUOS_OK);
  ASSERT_EQ(gpuos_alloc(rt, 4096 * 4, &z), GPUOS_OK);
  int64_t shape[1] = {4096};
  gpuos_buffer bx = {x, 0, shape, 1, "f32"}, by = {y, 0, nullptr, 0, nullptr},
               bz = {z, 0, nullptr, 0, nullptr};
  gpuos_buffer iotaBufs[] = {bx}, scaleBufs[] = {bx, by}, addBufs[] = {bx, by, bz};
  uint32_t dep0[] = {0}, dep01[] = {0, 1};
  gpuos_task tasks[] = {
      {"iota4k", iotaBufs, 1, nullptr, 0, nullptr, 0},
      {"scale4k", scaleBufs, 2, nullptr, 0, dep0, 1},
      {"add4k", addBufs, 3, nullptr, 0, dep01, 2},
  };
  gpuos_graph g;
  ASSERT_EQ(gpuos_graph_create(rt, tasks, 3, GPUOS_PRIORITY_DEFAULT, &g), GPUOS_OK)
      << gpuos_last_error();
  gpuos_submission s;
  ASSERT_EQ(gpuos_submit(rt, g, GPUOS_PRIORITY_URGENT, &s), GPUOS_OK);
  // A completion callback, through C: called once, with the status.
  struct Called {
    std::atomic<int> times{0};
    std::atomic<int> status{-1};
    gpuos_submission sub = 0;
  } called;
  ASSERT_EQ(gpuos_on_complete(
                rt, s,
                [](gpuos_submission sub, gpuos_status st, const char *, void *user) {
                  auto *c = static_cast<Called *>(user);
                  c->sub = sub;
                  c->status.store(st);
                  c->times.fetch_add(1);
                },
                &called),
            GPUOS_OK);
  EXPECT_EQ(gpuos_on_complete(rt, s, nullptr, nullptr), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "the callback 'fn' is null");
  ASSERT_EQ(gpuos_wait(rt, s, 30000000), GPUOS_OK) << gpuos_last_error();
  EXPECT_EQ(gpuos_poll(rt, s), GPUOS_OK);
  EXPECT_TRUE(rttest::eventually([&] { return called.times.load() != 0; }));
  EXPECT_EQ(called.times.load(), 1);
  EXPECT_EQ(called.status.load(), (int)GPUOS_OK);
  EXPECT_EQ(called.sub, s);
  std::vector<float> out(4096);
  ASSERT_EQ(gpuos_copy_from_device(rt, out.data(), z, 4096 * 4), GPUOS_OK);
  EXPECT_EQ(out[10], 21.0f);
  gpuos_stats stats;
  ASSERT_EQ(gpuos_get_stats(rt, &stats), GPUOS_OK);
  EXPECT_EQ(stats.completed, 1u);
  EXPECT_EQ(stats.tasks_run, 3u);
  EXPECT_EQ(stats.tiles_run, 48u);

  // Host-side validation, through C.
  gpuos_task unknown[] = {{"nope", iotaBufs, 1, nullptr, 0, nullptr, 0}};
  EXPECT_EQ(gpuos_graph_create(rt, unknown, 1, 0, &g), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpuos_last_error()).find("unknown task kind 'nope'"),
            std::string::npos);
  gpuos_buffer misaligned = {x + 2, 0, nullptr, 0, nullptr};
  gpuos_task bad[] = {{"iota4k", &misaligned, 1, nullptr, 0, nullptr, 0}};
  EXPECT_EQ(gpuos_graph_create(rt, bad, 1, 0, &g), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpuos_last_error()).find("is not 4-byte aligned"),
            std::string::npos);
  gpuos_task nullKind[] = {{nullptr, iotaBufs, 1, nullptr, 0, nullptr, 0}};
  EXPECT_EQ(gpuos_graph_create(rt, nullKind, 1, 0, &g), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "task 0: kind is null");
  EXPECT_EQ(gpuos_submit(rt, g, 9, &s), GPUOS_ERROR_INVALID_ARGUMENT);

  // A manifest graph by name.
  const char *names[] = {"z"};
  gpuos_buffer zb[] = {bz};
  gpuos_graph mg;
  ASSERT_EQ(gpuos_graph_from_manifest(rt, "chain", names, zb, 1, &mg), GPUOS_OK)
      << gpuos_last_error();
  ASSERT_EQ(gpuos_submit(rt, mg, GPUOS_PRIORITY_DEFAULT, &s), GPUOS_OK);
  ASSERT_EQ(gpuos_wait(rt, s, 30000000), GPUOS_OK);
  ASSERT_EQ(gpuos_park(rt), GPUOS_OK);
  // Bindings are checked as gpuos_graph_create's buffers are.
  gpuos_buffer rankless = bz;
  rankless.rank = 3;
  rankless.shape = nullptr;
  EXPECT_EQ(gpuos_graph_from_manifest(rt, "chain", names, &rankless, 1, &mg),
            GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "binding 'z' has a rank but no shape");
  const char *twice[] = {"z", "z"};
  gpuos_buffer zz[] = {bz, bz};
  EXPECT_EQ(gpuos_graph_from_manifest(rt, "chain", twice, zz, 2, &mg),
            GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(), "binding 'z' is given twice");

  // Safe-point actions, graph timeouts and per-SM statistics, through C.
  struct Ctx {
    gpuos_runtime *rt;
    uint64_t ptr;
  } ctx{rt, z};
  EXPECT_EQ(gpuos_at_safe_point(
                rt, [](void *u) { auto *c = static_cast<Ctx *>(u);
                                  return gpuos_free(c->rt, c->ptr); },
                &ctx),
            GPUOS_OK) << gpuos_last_error();
  EXPECT_EQ(gpuos_free(rt, z), GPUOS_ERROR_INVALID_ARGUMENT); // freed inside
  EXPECT_EQ(gpuos_at_safe_point(rt, [](void *) { return GPUOS_ERROR_CUDA; }, nullptr),
            GPUOS_ERROR_CUDA);
  EXPECT_STREQ(gpuos_last_error(), "the safe-point action returned CUDA error");
  // A failing call inside the action keeps its own message; a code that is
  // not a gpuos_status is named as such.
  EXPECT_EQ(gpuos_at_safe_point(
                rt, [](void *u) { auto *c = static_cast<Ctx *>(u);
                                  return gpuos_free(c->rt, c->ptr); },
                &ctx),
            GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(gpuos_last_error())
                .rfind("the safe-point action returned invalid argument: ", 0),
            0u) << gpuos_last_error();
  EXPECT_GT(std::string(gpuos_last_error()).size(),
            std::string("the safe-point action returned invalid argument: ").size());
  EXPECT_EQ(gpuos_at_safe_point(rt, [](void *) { return (gpuos_status)99; }, nullptr),
            GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpuos_last_error(),
               "the safe-point action returned 99, which is not a gpuos_status");
  EXPECT_EQ(gpuos_at_safe_point(rt, nullptr, nullptr), GPUOS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuos_graph_set_timeout(rt, mg, 1000000), GPUOS_OK);
  EXPECT_EQ(gpuos_graph_set_timeout(rt, 4242, 1), GPUOS_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(gpuos_get_stats(rt, &stats), GPUOS_OK);
  EXPECT_GE(stats.num_sms, 1u);
  std::vector<gpuos_sm_stats> sms(stats.num_sms);
  uint32_t count = 0;
  ASSERT_EQ(gpuos_get_sm_stats(rt, sms.data(), (uint32_t)sms.size(), &count), GPUOS_OK);
  EXPECT_EQ(count, stats.num_sms);
  uint64_t tiles = 0;
  for (const gpuos_sm_stats &sm : sms) {
    tiles += sm.tiles;
    EXPECT_LE(sm.busy_cycles, sm.active_cycles);
  }
  EXPECT_EQ(tiles, 96u); // two runs of the 48-tile chain
  EXPECT_EQ(gpuos_get_sm_stats(rt, nullptr, 4, &count), GPUOS_ERROR_INVALID_ARGUMENT);

  ASSERT_EQ(gpuos_close(rt), GPUOS_OK);
  EXPECT_EQ(gpuos_submit(rt, mg, 0, &s), GPUOS_ERROR_CLOSED);
  EXPECT_STREQ(gpuos_last_error(), "the runtime is closed");
  gpuos_destroy(rt);
}
