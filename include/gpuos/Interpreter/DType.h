//===- DType.h - element types and rounding of the interpreter --*- C++ -*-===//
//
// The element types gpuos tensors hold, and the conversions that give every
// interpreter result the precision of its type: floats round to nearest
// even, integers wrap, i1 is 0 or 1. Free of MLIR types so runtime-side
// code can use it; dtypeFromType/toType bridge to the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_INTERPRETER_DTYPE_H
#define GPUOS_INTERPRETER_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace gpuos::interp {

enum class DType : uint8_t { F32, F16, BF16, F64, I64, I32, I8, I1 };

/// "f32", "bf16", "i1" ...: the MLIR spelling.
llvm::StringRef dtypeName(DType type);
/// The DType of an MLIR element type, or nullopt for one gpuos lacks.
std::optional<DType> dtypeFromType(mlir::Type type);
mlir::Type toType(DType type, mlir::MLIRContext *context);

inline bool isFloat(DType type) {
  return type == DType::F32 || type == DType::F16 || type == DType::BF16 ||
         type == DType::F64;
}
unsigned bitWidth(DType type);

/// Rounds `value` to the nearest `type` value (ties to even) and returns it
/// as a double. Overflow gives +-inf, NaN stays NaN. `type` must be a float.
double roundToFloat(double value, DType type);
/// Rounds to f16 / bf16 with ties to even.
double roundToF16(double value);
double roundToBF16(double value);

/// Wraps `value` to the two's-complement range of integer `type`; i1 is
/// `value != 0`.
int64_t wrapToInt(int64_t value, DType type);

/// Float to integer: truncates toward zero and saturates at the type's
/// range; NaN gives 0 (the behaviour of PTX cvt.rzi.sat). i1 tests != 0,
/// so NaN gives 1.
int64_t floatToInt(double value, DType type);
/// Integer to float `type`, rounded to nearest even in one step.
double intToFloat(int64_t value, DType type);

} // namespace gpuos::interp

#endif // GPUOS_INTERPRETER_DTYPE_H
