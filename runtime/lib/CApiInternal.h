//===- CApiInternal.h - C handles around C++ runtimes (for tests) -*- C++ -*-===//

#ifndef GPUOS_RUNTIME_CAPIINTERNAL_H
#define GPUOS_RUNTIME_CAPIINTERNAL_H

#include "gpuos/runtime/Runtime.h"
#include "gpuos/runtime/gpuos_runtime.h"

#include <memory>

namespace gpuos::runtime {
/// A C handle that owns `rt` (e.g. one opened on the CPU simulator).
gpuos_runtime *wrapRuntime(std::unique_ptr<Runtime> rt);
} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_CAPIINTERNAL_H
