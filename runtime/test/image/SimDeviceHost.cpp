//===- SimDeviceHost.cpp - the test simulator in a device host process ----===//
//
// gpuos-sim-device-host: what gpuos-device-host is for a GPU, for the
// simulator with the test image's kinds, so the process backend (a crash
// of the device host, a reset that starts a new one) is tested in CI.
//
//===----------------------------------------------------------------------===//

#include "TestImage.h"

#include "gpuos/runtime/DeviceHost.h"

using namespace gpuos::runtime;

int main(int argc, char **argv) {
  return deviceHostMain(argc, argv, [](const std::vector<std::string> &,
                                       std::unique_ptr<Backend> &out) {
    out = testimage::makeTestSimBackend(3);
    return Status::success();
  });
}
