//===- GpuosOps.cpp - generated op definitions ----------------------------===//
//
// Instantiates the ODS-generated op classes. Each family's hand-written
// logic lives in its own file: ElementwiseOps, ViewOps, ReductionOps,
// StructureOps.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "AsmDirectives.h"

using namespace mlir;
using namespace gpuos;

#define GET_OP_CLASSES
#include "gpuos/Dialect/Gpuos/GpuosOps.cpp.inc"
