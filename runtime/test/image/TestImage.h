//===- TestImage.h - the runtime's test image, on GPU and simulator -*- C++ -*-===//

#ifndef GPUOS_RUNTIME_TEST_TESTIMAGE_H
#define GPUOS_RUNTIME_TEST_TESTIMAGE_H

#include "gpuos/runtime/Runtime.h"

#include <memory>
#include <string>

namespace gpuos::runtime::testimage {

/// Kind indices of test_image.json (and the gpuos_dispatch switch).
enum TestKind : uint32_t {
  kIota4k, kScale4k, kAdd4k, kTiny, kCount, kHits, kSpin, kFault, kMissing
};

std::string manifestPath();
/// Empty when the CUDA parts were not built.
std::string cubinPath();

/// The test kinds for the CPU simulator (SimKernels.cpp).
SimKernel simKernels();

/// Opens a runtime on "sim" (always) or "gpu" and loads the test image.
/// Returns false with `skip` set when the backend is unavailable.
bool openTestRuntime(const std::string &backend, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out, std::string &skip,
                     std::string &error);

} // namespace gpuos::runtime::testimage

#endif // GPUOS_RUNTIME_TEST_TESTIMAGE_H
