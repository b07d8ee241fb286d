//===- Passes.h - gpuos conversion passes -----------------------*- C++ -*-===//

#ifndef GPUOS_CONVERSION_PASSES_H
#define GPUOS_CONVERSION_PASSES_H

#include "gpuos/Conversion/GpuosToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace gpuos {

#define GEN_PASS_DECL
#include "gpuos/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gpuos/Conversion/Passes.h.inc"

} // namespace gpuos

#endif // GPUOS_CONVERSION_PASSES_H
