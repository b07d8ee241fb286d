//===- gpuos-info.cpp - what GPU gpuos sees -------------------------------===//
//
// Prints the driver version and the visible devices. Exits 0 with one
// "no GPU: <why>" line on a machine without a driver or device, so scripts
// can branch on `gpuos-info --has-gpu`.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Driver.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  bool probeOnly = argc > 1 && std::strcmp(argv[1], "--has-gpu") == 0;
  if (argc > 1 && !probeOnly) {
    std::fprintf(stderr, "usage: gpuos-info [--has-gpu]\n"
                         "  --has-gpu  exit 0 when a GPU is usable, 1 if not\n");
    return 2;
  }
  using namespace gpuos::runtime;
  SystemInfo info = querySystem(loadDriver());
  if (probeOnly)
    return info.devices.empty() ? 1 : 0;
  if (info.devices.empty()) {
    std::printf("%s\n", info.error.c_str());
    return 0;
  }
  std::printf("CUDA driver %d.%d, %zu device(s)\n", info.driverVersion / 1000,
              (info.driverVersion % 1000) / 10, info.devices.size());
  for (const DeviceInfo &d : info.devices)
    std::printf("  [%d] %s, sm_%d%d, %d SMs, %.1f GiB\n", d.ordinal,
                d.name.c_str(), d.computeMajor, d.computeMinor,
                d.multiprocessors,
                static_cast<double>(d.totalMemoryBytes) / (1ull << 30));
  return 0;
}
