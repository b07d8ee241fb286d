//===- TestImage.h - the runtime's test image, on GPU and simulator -*- C++ -*-===//

#ifndef GPUOS_RUNTIME_TEST_TESTIMAGE_H
#define GPUOS_RUNTIME_TEST_TESTIMAGE_H

#include "gpuos/runtime/Runtime.h"

#include <memory>
#include <string>

namespace gpuos::runtime::testimage {

/// Kind indices of test_image.json (and the gpuos_dispatch switch).
enum TestKind : uint32_t {
  kIota4k, kScale4k, kAdd4k, kTiny, kCount, kHits, kSpin, kFault, kMissing,
  kStream, kStream4, kCompute, // in both images, last (9, 10 and 11)
  kMissingTiles, // v1 only: like kMissing, with a tile per element of n
  kInject // only in image v2 (test_image_v2.json, index 8)
};

std::string manifestPath();
/// Empty when the CUDA parts were not built.
std::string cubinPath();

/// Image v2: the same kinds reordered, "missing" gone, "inject" added.
std::string manifestPathV2();
std::string cubinPathV2();

/// gpuos-sim-device-host: the simulator below in a device host process.
std::string simDeviceHostPath();

/// The test kinds for the CPU simulator (SimKernels.cpp), v1 and v2 order;
/// kFault throws SimFault (the simulator's illegal address).
SimKernel simKernels();
SimKernel simKernelsV2();
/// A simulator with both images: cubin "sim" (v1) and "sim-v2".
std::unique_ptr<Backend> makeTestSimBackend(uint32_t workers);
/// The cubin bytes (the simulator's key) and manifest of image v1 or v2.
Status readImage(const std::string &backend, bool v2, std::vector<char> &cubin,
                 std::string &manifest);
/// A simulator of `workers` workers with image v1 loaded (for tests that
/// need another worker count than openTestRuntime's three).
Status openSimWithImage(uint32_t workers, const RuntimeOptions &options,
                        std::unique_ptr<Runtime> &out);

/// Opens a runtime on "sim" (always) or "gpu" and loads the test image;
/// "simhost" and "gpuhost" are the same in a device host process
/// (DeviceHost.h; RuntimeOptions::isolateDevice for the GPU).
/// Returns false with `skip` set when the backend is unavailable.
bool openTestRuntime(const std::string &backend, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out, std::string &skip,
                     std::string &error);

} // namespace gpuos::runtime::testimage

#endif // GPUOS_RUNTIME_TEST_TESTIMAGE_H
