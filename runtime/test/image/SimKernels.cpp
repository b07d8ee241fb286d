//===- SimKernels.cpp - the test image's task kinds for the simulator -----===//
//
// The CPU twins of TestTasks.cu, for SimBackend. A tile runs on one thread
// (a simulated block of one thread). Keep in step with TestTasks.cu.
//
//===----------------------------------------------------------------------===//

#include "TestImage.h"

#include "gpuos/runtime/Backend.h"
#include "gpuos/runtime/DeviceHost.h"

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

/// One tile of a test kind, by its v1 index (TestKind); kInject is v2's.
int runKind(uint32_t kind, const unsigned char *args, uint32_t tile) {
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
    case kStream:
    case kStream4: {
      const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
      float *y = reinterpret_cast<float *>(bufferArg(args, 1));
      uint64_t n = (uint64_t)dynamicArg(args, 2, 0);
      for (uint64_t i = (uint64_t)tile * 4096; i < n && i < (uint64_t)(tile + 1) * 4096; ++i)
        y[i] = 3.0f * x[i] + 1.0f;
      return 0;
    }
    case kCompute: {
      const float *x = reinterpret_cast<const float *>(bufferArg(args, 0));
      float *y = reinterpret_cast<float *>(bufferArg(args, 1));
      uint64_t n = (uint64_t)dynamicArg(args, 2, 0);
      for (uint64_t i = (uint64_t)tile * kTile; i < n && i < (uint64_t)(tile + 1) * kTile; ++i) {
        float v = x[i];
        for (unsigned k = 0; k < 64; ++k)
          v = v * 0.5f + 1.0f; // exact: the same bits as the GPU's FMA
        y[i] = v;
      }
      return 0;
    }
    case kFault:
      throw SimFault{}; // the simulator's illegal address: the kernel dies
    case kInject: {
      unsigned *counts = reinterpret_cast<unsigned *>(bufferArg(args, 0));
      __atomic_fetch_add(counts + dynamicArg(args, 1, 1), 7u, __ATOMIC_RELAXED);
      return 0;
    }
    default:
      return 1000 + (int)kind;
    }
}

} // namespace

SimKernel simKernels() { return runKind; }

SimKernel simKernelsV2() {
  // The v2 dispatch order (test_image_v2.json, TestTasks.cu).
  static const uint32_t order[] = {kCount, kHits,   kSpin,  kTiny,  kIota4k,
                                   kScale4k, kAdd4k, kFault, kInject,
                                   kStream, kStream4, kCompute};
  return [](uint32_t kind, const unsigned char *args, uint32_t tile) -> int {
    if (kind >= sizeof(order) / sizeof(order[0]))
      return 2000 + (int)kind;
    return runKind(order[kind], args, tile);
  };
}

std::string manifestPath() { return GPUOS_TEST_IMAGE_MANIFEST; }

std::string cubinPath() { return GPUOS_TEST_IMAGE_CUBIN; }

std::string simDeviceHostPath() { return GPUOS_SIM_DEVICE_HOST; }

std::string manifestPathV2() { return GPUOS_TEST_IMAGE_V2_MANIFEST; }

std::string cubinPathV2() { return GPUOS_TEST_IMAGE_V2_CUBIN; }

static bool simulated(const std::string &backend) {
  return backend.rfind("sim", 0) == 0;
}

Status readImage(const std::string &backend, bool v2, std::vector<char> &cubin,
                 std::string &manifest) {
  if (simulated(backend)) {
    std::string key = v2 ? "sim-v2" : "sim";
    cubin.assign(key.begin(), key.end());
  } else {
    GPUOS_RETURN_IF_ERROR(readFile(v2 ? cubinPathV2() : cubinPath(), cubin));
  }
  std::vector<char> json;
  GPUOS_RETURN_IF_ERROR(readFile(v2 ? manifestPathV2() : manifestPath(), json));
  manifest.assign(json.begin(), json.end());
  return Status::success();
}

std::unique_ptr<Backend> makeTestSimBackend(uint32_t workers) {
  return makeSimBackend(workers, std::map<std::string, SimKernel>{
                                     {"sim", simKernels()}, {"sim-v2", simKernelsV2()}});
}

Status openSimWithImage(uint32_t workers, const RuntimeOptions &options,
                        std::unique_ptr<Runtime> &out) {
  GPUOS_RETURN_IF_ERROR(Runtime::openWithBackend(makeTestSimBackend(workers), options, out));
  std::vector<char> cubin;
  std::string json;
  GPUOS_RETURN_IF_ERROR(readImage("sim", false, cubin, json));
  return out->loadImage(std::move(cubin), json);
}

bool openTestRuntime(const std::string &backend, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out, std::string &skip,
                     std::string &error) {
  Status st;
  std::vector<char> cubin;
  if (backend == "sim") {
    st = Runtime::openWithBackend(makeTestSimBackend(3), options, out);
    cubin = {'s', 'i', 'm'};
  } else if (backend == "simhost") {
    // The simulator in a device host process (gpuos-sim-device-host).
    std::unique_ptr<Backend> hosted;
    st = openProcessBackend({simDeviceHostPath()}, hosted);
    if (st.ok())
      st = Runtime::openWithBackend(std::move(hosted), options, out);
    cubin = {'s', 'i', 'm'};
  } else {
    RuntimeOptions gpuOptions = options;
    gpuOptions.isolateDevice = backend == "gpuhost";
    if (cubinPath().empty()) {
      skip = "the CUDA parts of the runtime were not built (no nvcc)";
      return false;
    }
    st = Runtime::open(0, gpuOptions, out);
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
