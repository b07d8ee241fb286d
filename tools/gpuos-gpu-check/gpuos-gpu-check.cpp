//===- gpuos-gpu-check.cpp - run compiled tasks on a GPU and compare -------===//
//
//   gpuos-gpu-check DIR/check.txt [--quick]
//
// Runs on the GPU machine, which has the NVIDIA driver but no LLVM/MLIR:
// plain C++17, the driver API loaded with dlopen (no CUDA headers needed),
// so it builds with `c++ -std=c++17 -O2 gpuos-gpu-check.cpp -ldl` (CheckFile.h
// next to it).
//
// For every task in check.txt (written by gpuos-check-gen next to the
// image): uploads the inputs, poisons the outputs with 0xFF bytes, launches
// gpuos_launch_<kind> with num_tiles blocks, and compares each output with
// the interpreter's values (|a - e| <= atol + rtol |e|, NaN matches NaN,
// integers exactly). Bytes of an output allocation that no element covers
// must still hold the poison. Each task runs with the manifest's block
// size, with 32 and 1024 threads (the ABI: any multiple of 32 up to 1024),
// and once with every buffer one element off 16-byte alignment (the scalar
// fallback path). Prints one line per run and a summary; exit 1 on failure.
//
//===----------------------------------------------------------------------===//

#include "CheckFile.h"
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace gpuos::check;
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUdeviceptr = unsigned long long;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, void *, void **,
                             void **);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

Driver driver;
constexpr int kAttrMaxThreads = 0, kAttrLocalBytes = 3, kAttrRegisters = 4;

std::string describe(CUresult result) {
  const char *text = nullptr;
  if (driver.cuGetErrorString && driver.cuGetErrorString(result, &text) == 0 && text)
    return std::string(text) + " (" + std::to_string(result) + ")";
  return "CUresult " + std::to_string(result);
}

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    if (result_ != 0) {                                                        \
      std::fprintf(stderr, "gpuos-gpu-check: %s failed: %s\n", #call,          \
                   describe(result_).c_str());                                 \
      return false;                                                            \
    }                                                                          \
  } while (0)

template <typename Fn> bool resolve(void *library, const char *name, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  if (!slot)
    std::fprintf(stderr, "gpuos-gpu-check: libcuda lacks %s\n", name);
  return slot != nullptr;
}

bool loadDriver() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "gpuos-gpu-check: no GPU: cannot load libcuda.so.1: %s\n",
                 dlerror());
    return false;
  }
  return resolve(library, "cuInit", driver.cuInit) &&
         resolve(library, "cuDeviceGet", driver.cuDeviceGet) &&
         resolve(library, "cuDeviceGetName", driver.cuDeviceGetName) &&
         resolve(library, "cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain) &&
         resolve(library, "cuCtxSetCurrent", driver.cuCtxSetCurrent) &&
         resolve(library, "cuModuleLoadData", driver.cuModuleLoadData) &&
         resolve(library, "cuModuleGetFunction", driver.cuModuleGetFunction) &&
         resolve(library, "cuFuncGetAttribute", driver.cuFuncGetAttribute) &&
         resolve(library, "cuMemAlloc_v2", driver.cuMemAlloc) &&
         resolve(library, "cuMemFree_v2", driver.cuMemFree) &&
         resolve(library, "cuMemcpyHtoD_v2", driver.cuMemcpyHtoD) &&
         resolve(library, "cuMemcpyDtoH_v2", driver.cuMemcpyDtoH) &&
         resolve(library, "cuMemsetD8_v2", driver.cuMemsetD8) &&
         resolve(library, "cuLaunchKernel", driver.cuLaunchKernel) &&
         resolve(library, "cuCtxSynchronize", driver.cuCtxSynchronize) &&
         resolve(library, "cuGetErrorString", driver.cuGetErrorString);
}

/// One launch of `task` with `threads` per block; `misalign` shifts every
/// buffer by one element off its 16-byte aligned allocation.
bool run(CUfunction function, const Task &task, unsigned threads, bool misalign,
         Outcome &outcome, double &usPerLaunch) {
  std::vector<CUdeviceptr> allocations, addresses;
  std::vector<long long> offsets;
  bool ok = true;
  for (const Buffer &buffer : task.buffers) {
    long long offset = misalign ? buffer.elemBytes : 0;
    size_t bytes = size_t(buffer.span) * buffer.elemBytes + 16;
    CUdeviceptr base = 0;
    CHECK_CU(driver.cuMemAlloc(&base, bytes));
    allocations.push_back(base);
    CHECK_CU(driver.cuMemsetD8(base, 0xFF, bytes));
    if (buffer.input)
      CHECK_CU(driver.cuMemcpyHtoD(base + offset, buffer.data.data(), buffer.data.size()));
    addresses.push_back(base + offset);
    offsets.push_back(offset);
  }
  CUdeviceptr args = 0;
  CHECK_CU(driver.cuMemAlloc(&args, addresses.size() * 8 + 8));
  CHECK_CU(driver.cuMemcpyHtoD(args, addresses.data(), addresses.size() * 8));
  void *params[] = {&args};
  CHECK_CU(driver.cuLaunchKernel(function, task.tiles, 1, 1, threads, 1, 1,
                                 task.sharedBytes, nullptr, params, nullptr));
  CHECK_CU(driver.cuCtxSynchronize());
  for (size_t i = 0; i < task.buffers.size(); ++i) {
    const Buffer &buffer = task.buffers[i];
    if (buffer.input)
      continue;
    std::vector<char> device(size_t(buffer.span) * buffer.elemBytes + 16);
    CHECK_CU(driver.cuMemcpyDtoH(device.data(), allocations[i], device.size()));
    compare(buffer, device, offsets[i], outcome);
  }
  // Launch-to-completion time of the test kernel, averaged.
  const int repeats = 20;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r)
    CHECK_CU(driver.cuLaunchKernel(function, task.tiles, 1, 1, threads, 1, 1,
                                   task.sharedBytes, nullptr, params, nullptr));
  CHECK_CU(driver.cuCtxSynchronize());
  usPerLaunch = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - start).count() / repeats;
  for (CUdeviceptr allocation : allocations)
    driver.cuMemFree(allocation);
  driver.cuMemFree(args);
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpuos-gpu-check DIR/check.txt [--quick]\n");
    return 2;
  }
  bool quick = argc > 2 && std::string(argv[2]) == "--quick";
  std::string image;
  std::vector<Task> tasks;
  if (!parseCheck(argv[1], image, tasks))
    return 1;
  if (!loadDriver())
    return 1;
  auto setup = [&]() -> bool {
    CHECK_CU(driver.cuInit(0));
    CUdevice device;
    CHECK_CU(driver.cuDeviceGet(&device, 0));
    char name[128] = {0};
    if (driver.cuDeviceGetName(name, sizeof name, device) == 0)
      std::printf("device: %s, image %s\n", name, image.c_str());
    CUcontext context;
    CHECK_CU(driver.cuDevicePrimaryCtxRetain(&context, device));
    CHECK_CU(driver.cuCtxSetCurrent(context));
    return true;
  };
  if (!setup())
    return 1;
  std::vector<char> cubin;
  if (!readFile(image, cubin)) {
    std::fprintf(stderr, "gpuos-gpu-check: cannot read image %s\n", image.c_str());
    return 1;
  }
  CUmodule module;
  if (CUresult r = driver.cuModuleLoadData(&module, cubin.data())) {
    std::fprintf(stderr, "gpuos-gpu-check: cannot load %s: %s\n", image.c_str(),
                 describe(r).c_str());
    return 1;
  }
  int passed = 0, failed = 0;
  for (const Task &task : tasks) {
    CUfunction function;
    if (CUresult r = driver.cuModuleGetFunction(&function, module, task.launcher.c_str())) {
      std::printf("FAIL %s: no kernel %s: %s\n", task.kind.c_str(),
                  task.launcher.c_str(), describe(r).c_str());
      ++failed;
      continue;
    }
    int maxThreads = 1024, registers = 0, localBytes = 0;
    driver.cuFuncGetAttribute(&maxThreads, kAttrMaxThreads, function);
    driver.cuFuncGetAttribute(&registers, kAttrRegisters, function);
    driver.cuFuncGetAttribute(&localBytes, kAttrLocalBytes, function);
    struct Config { unsigned threads; bool misalign; };
    std::vector<Config> configs = {{task.blockSize, false}};
    if (!quick)
      configs.insert(configs.end(), {{32, false}, {1024, false}, {task.blockSize, true}});
    for (Config config : configs) {
      if (int(config.threads) > maxThreads) {
        std::printf("SKIP %-40s block=%-4u (kernel allows %d threads at %d registers)\n",
                    task.kind.c_str(), config.threads, maxThreads, registers);
        continue;
      }
      Outcome outcome;
      double us = 0;
      bool launched = run(function, task, config.threads, config.misalign, outcome, us);
      bool ok = launched && outcome.ok;
      std::printf("%s %-40s block=%-4u %-9s max_abs=%.3g max_rel=%.3g elems=%lld "
                  "regs=%d lmem=%d %.1f us/launch",
                  ok ? "PASS" : "FAIL", task.kind.c_str(), config.threads,
                  config.misalign ? "unaligned" : "aligned", outcome.maxAbs,
                  outcome.maxRel, outcome.elements, registers, localBytes, us);
      if (outcome.mismatches)
        std::printf(" mismatches=%lld first: %s", outcome.mismatches, outcome.first.c_str());
      if (outcome.poisonTouched)
        std::printf(" wrote %lld elements outside the view", outcome.poisonTouched);
      std::printf("\n");
      (ok ? passed : failed)++;
      if (!launched)
        return 1; // the context is unusable after a launch failure
    }
  }
  std::printf("gpu-check %s: %d passed, %d failed\n", image.c_str(), passed, failed);
  return failed ? 1 : 0;
}
