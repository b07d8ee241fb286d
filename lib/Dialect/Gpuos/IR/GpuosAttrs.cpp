//===- GpuosAttrs.cpp - #gpuos.priority and enums -------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gpuos;

#include "gpuos/Dialect/Gpuos/GpuosEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "gpuos/Dialect/Gpuos/GpuosAttrs.cpp.inc"

void GpuosDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gpuos/Dialect/Gpuos/GpuosAttrs.cpp.inc"
      >();
}

LogicalResult
PriorityAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     PriorityClass level, std::optional<int64_t> deadlineUs) {
  if (!deadlineUs)
    return success();
  if (*deadlineUs <= 0)
    return emitError() << "deadline_us must be a positive number of "
                          "microseconds, got "
                       << *deadlineUs;
  if (level == PriorityClass::background)
    return emitError() << "background work cannot carry a deadline; use "
                          "normal or urgent priority";
  return success();
}
