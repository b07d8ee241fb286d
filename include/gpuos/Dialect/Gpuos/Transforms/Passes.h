//===- Passes.h - gpuos passes ----------------------------------*- C++ -*-===//

#ifndef GPUOS_DIALECT_GPUOS_TRANSFORMS_PASSES_H
#define GPUOS_DIALECT_GPUOS_TRANSFORMS_PASSES_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/Pass/Pass.h"

namespace gpuos {

#define GEN_PASS_DECL
#include "gpuos/Dialect/Gpuos/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gpuos/Dialect/Gpuos/Passes.h.inc"

} // namespace gpuos

#endif // GPUOS_DIALECT_GPUOS_TRANSFORMS_PASSES_H
