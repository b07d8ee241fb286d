//===- SimKernels.cpp - the test image's task kinds for the simulator -----===//
//
// The CPU twins of TestTasks.cu, for SimBackend. A tile runs on one thread
// (a simulated block of one thread). Keep in step with TestTasks.cu.
//
//===----------------------------------------------------------------------===//

#include "TestImage.h"

#include "gpuos/runtime/Backend.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace gpuos::runtime::testimage {

namespace {

uint64_t bufferArg(const unsigned char *args, unsigned i) {
  uint64_t v;
  std::memcpy(&v, args + 8 * i, 8);
  return v;
}
int64_t dynamicArg(const unsigned char *args, unsigned numBuffers, unsigned i) {
  int64_t v;
  std::memcpy(&v, args + 8 * (numBuffers + i), 8);
  return v;
}
uint64_t nowNs() {
  return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr unsigned kTile = 256;

} // namespace

SimKernel simKernels() {
  return [](uint32_t kind, const unsigned char *args, uint32_t tile) -> int {
    switch (kind) {
    case kIota4k: {
      float *x = reinterpret_cast<float *>(bufferArg(args, 0));
      for (unsigned j = 0; j < kTile; ++j)
        x[tile * kTile + j] = 0.5f * (float)(tile * kTile + j);
      return 0;
    }
    case kScale4k: {
      const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
      float *y = reinterpret_cast<float *>(bufferArg(args, 1));
      for (unsigned j = 0; j < kTile; ++j)
        y[tile * kTile + j] = 3.0f * x[tile * kTile + j] + 1.0f;
      return 0;
    }
    case kAdd4k: {
      const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
      const float *y = reinterpret_cast<const float *>(bufferArg(args, 1));
      float *z = reinterpret_cast<float *>(bufferArg(args, 2));
      for (unsigned j = 0; j < kTile; ++j) {
        unsigned i = tile * kTile + j;
        z[i] = x[i] + y[i];
      }
      return 0;
    }
    case kTiny: {
      float *t = reinterpret_cast<float *>(bufferArg(args, 0));
      for (unsigned j = 0; j < kTile; ++j)
        t[j] = (float)j;
      return 0;
    }
    case kCount: {
      unsigned *counts = reinterpret_cast<unsigned *>(bufferArg(args, 0));
      __atomic_fetch_add(counts + dynamicArg(args, 1, 1), 1u, __ATOMIC_RELAXED);
      return 0;
    }
    case kHits: {
      unsigned *hits = reinterpret_cast<unsigned *>(bufferArg(args, 0));
      __atomic_fetch_add(hits + tile, 1u, __ATOMIC_RELAXED);
      return 0;
    }
    case kSpin: {
      uint64_t *stamps = reinterpret_cast<uint64_t *>(bufferArg(args, 0));
      uint64_t ns = (uint64_t)dynamicArg(args, 1, 1);
      uint64_t start = nowNs(), now = start;
      while (now - start < ns) {
        std::this_thread::yield();
        now = nowNs();
      }
      stamps[tile] = now;
      return 0;
    }
    case kFault:
      return 77; // a CPU thread cannot fault safely; report a task error
    default:
      return 1000 + (int)kind;
    }
  };
}

std::string manifestPath() { return GPUOS_TEST_IMAGE_MANIFEST; }

std::string cubinPath() { return GPUOS_TEST_IMAGE_CUBIN; }

bool openTestRuntime(const std::string &backend, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out, std::string &skip,
                     std::string &error) {
  Status st;
  std::vector<char> cubin;
  if (backend == "sim") {
    st = Runtime::openWithBackend(makeSimBackend(3, simKernels()), options, out);
    cubin = {'s', 'i', 'm'};
  } else {
    if (cubinPath().empty()) {
      skip = "the CUDA parts of the runtime were not built (no nvcc)";
      return false;
    }
    st = Runtime::open(0, options, out);
    if (st.code() == ErrorCode::NoGpu) {
      skip = st.message();
      return false;
    }
    if (st.ok())
      st = readFile(cubinPath(), cubin);
  }
  std::vector<char> json;
  if (st.ok())
    st = readFile(manifestPath(), json);
  if (st.ok())
    st = out->loadImage(std::move(cubin), std::string(json.begin(), json.end()));
  if (!st.ok()) {
    error = st.toString();
    return false;
  }
  return true;
}

} // namespace gpuos::runtime::testimage
