//===- DType.cpp - element types and rounding of the interpreter ----------===//

#include "gpuos/Interpreter/DType.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/ErrorHandling.h"
#include <cmath>
#include <limits>

using namespace gpuos::interp;

llvm::StringRef gpuos::interp::dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I8:
    return "i8";
  case DType::I1:
    return "i1";
  }
  llvm_unreachable("unknown DType");
}

std::optional<DType> gpuos::interp::dtypeFromType(mlir::Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF64())
    return DType::F64;
  if (type.isSignlessInteger(64))
    return DType::I64;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isSignlessInteger(1))
    return DType::I1;
  return std::nullopt;
}

mlir::Type gpuos::interp::toType(DType type, mlir::MLIRContext *context) {
  switch (type) {
  case DType::F32:
    return mlir::Float32Type::get(context);
  case DType::F16:
    return mlir::Float16Type::get(context);
  case DType::BF16:
    return mlir::BFloat16Type::get(context);
  case DType::F64:
    return mlir::Float64Type::get(context);
  default:
    return mlir::IntegerType::get(context, bitWidth(type));
  }
}

unsigned gpuos::interp::bitWidth(DType type) {
  switch (type) {
  case DType::F64:
  case DType::I64:
    return 64;
  case DType::F32:
  case DType::I32:
    return 32;
  case DType::F16:
  case DType::BF16:
    return 16;
  case DType::I8:
    return 8;
  case DType::I1:
    return 1;
  }
  llvm_unreachable("unknown DType");
}

/// Rounds `value` to `precision` significand bits with ties to even, with
/// subnormals below 2^minExponent and +-inf past `maxFinite`. Rounding from
/// double directly matters: going through float first rounds twice, which
/// can land a value just past a midpoint exactly on it.
static double roundToFormat(double value, int precision, int minExponent,
                            double maxFinite) {
  if (std::isnan(value) || std::isinf(value) || value == 0)
    return value;
  int exponent;
  std::frexp(value, &exponent); // |value| in [2^(exponent-1), 2^exponent)
  int quantum = std::max(exponent - 1, minExponent) - (precision - 1);
  // Scaling by a power of two is exact here; nearbyint rounds ties to even
  // in the default rounding mode.
  double rounded =
      std::ldexp(std::nearbyint(std::ldexp(value, -quantum)), quantum);
  if (std::fabs(rounded) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

double gpuos::interp::roundToF16(double value) {
  return roundToFormat(value, 11, -14, 65504.0);
}

double gpuos::interp::roundToBF16(double value) {
  return roundToFormat(value, 8, -126, 0x1.fep127);
}

double gpuos::interp::roundToFloat(double value, DType type) {
  switch (type) {
  case DType::F64:
    return value;
  case DType::F32:
    // Past the midpoint between FLT_MAX and 2^128 rounds to inf; a C++
    // conversion of a value out of float's range is undefined.
    if (std::fabs(value) >= 0x1.ffffffp127)
      return std::copysign(std::numeric_limits<double>::infinity(), value);
    return static_cast<float>(value);
  case DType::F16:
    return roundToF16(value);
  case DType::BF16:
    return roundToBF16(value);
  default:
    llvm_unreachable("roundToFloat needs a float type");
  }
}

int64_t gpuos::interp::wrapToInt(int64_t value, DType type) {
  switch (type) {
  case DType::I64:
    return value;
  case DType::I32:
    return static_cast<int32_t>(static_cast<uint32_t>(value));
  case DType::I8:
    return static_cast<int8_t>(static_cast<uint8_t>(value));
  case DType::I1:
    return value != 0;
  default:
    llvm_unreachable("wrapToInt needs an integer type");
  }
}

int64_t gpuos::interp::floatToInt(double value, DType type) {
  if (type == DType::I1)
    return value != 0.0;
  if (std::isnan(value))
    return 0;
  double truncated = std::trunc(value);
  // Bounds as doubles: -2^(w-1) is exact, 2^(w-1) is the first value past
  // the top, so the comparisons below are exact too.
  unsigned width = bitWidth(type);
  double lo = -std::ldexp(1.0, width - 1), hi = std::ldexp(1.0, width - 1);
  if (truncated <= lo)
    return width == 64 ? std::numeric_limits<int64_t>::min()
                       : static_cast<int64_t>(lo);
  if (truncated >= hi)
    return width == 64 ? std::numeric_limits<int64_t>::max()
                       : static_cast<int64_t>(hi) - 1;
  return static_cast<int64_t>(truncated);
}

double gpuos::interp::intToFloat(int64_t value, DType type) {
  // Up to 2^53 the double is exact and one rounding follows; beyond it,
  // APFloat rounds the integer once (a double would round it twice).
  constexpr int64_t exactInDouble = int64_t(1) << 53;
  if (type == DType::F64 || (value >= -exactInDouble && value <= exactInDouble))
    return roundToFloat(static_cast<double>(value), type);
  const llvm::fltSemantics &semantics =
      type == DType::F32   ? llvm::APFloat::IEEEsingle()
      : type == DType::F16 ? llvm::APFloat::IEEEhalf()
                           : llvm::APFloat::BFloat();
  llvm::APFloat result(semantics);
  result.convertFromAPInt(llvm::APInt(64, value, /*isSigned=*/true),
                          /*IsSigned=*/true,
                          llvm::APFloat::rmNearestTiesToEven);
  bool losesInfo;
  result.convert(llvm::APFloat::IEEEdouble(),
                 llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return result.convertToDouble();
}
