//===- gpuos-device-host.cpp - a GPU's context in a helper process --------===//
//
// Started by a runtime opened with RuntimeOptions::isolateDevice, never by
// hand: it holds the device's context and serves the runtime's backend
// requests (DeviceHost.h). When a task faults, the runtime ends this
// process and starts another, since the driver keeps such an error for the
// whole process.
//   gpuos-device-host --device N --fd S --parent PID
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/DeviceHost.h"

using namespace gpuos::runtime;

int main(int argc, char **argv) {
  return deviceHostMain(argc, argv, [](const std::vector<std::string> &args,
                                       std::unique_ptr<Backend> &out) {
    int device = 0;
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--device") {
        long v = parseWholeNumber(args[i + 1].c_str());
        if (v < 0 || v > 1 << 20)
          return Status::error(ErrorCode::InvalidArgument,
                               "gpuos-device-host: --device '" + args[i + 1] +
                                   "' is not a device ordinal");
        device = (int)v;
      }
    // The primary context: this process has no other user of the device.
    return openCudaBackend(device, /*ownContext=*/false, out);
  });
}
