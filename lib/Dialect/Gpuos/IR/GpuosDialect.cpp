//===- GpuosDialect.cpp - gpuos dialect registration ----------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"

using namespace mlir;
using namespace gpuos;

#include "gpuos/Dialect/Gpuos/GpuosDialect.cpp.inc"

void GpuosDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "gpuos/Dialect/Gpuos/GpuosOps.cpp.inc"
      >();
}

Operation *GpuosDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  auto tensorType = dyn_cast<StridedTensorType>(type);
  if (!elements || !tensorType || !tensorType.isContiguous())
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
