//===- FloatMinMax.h - float max and min of the kernels ---------*- C++ -*-===//

#ifndef GPUOS_LIB_INTERPRETER_FLOATMINMAX_H
#define GPUOS_LIB_INTERPRETER_FLOATMINMAX_H

#include <algorithm>
#include <cmath>

namespace gpuos::interp {

/// IEEE 754-2019 maximum, as the lowering's arith.maximumf: NaN propagates
/// and -0 < +0. std::max alone returns its first operand for -0 and +0, so
/// max(-0, +0) and max(+0, -0) differed and canonicalize's reordering of a
/// commutative max changed results (1 / max went from -inf to +inf).
inline double floatMaximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return a + b;
  if (a == b) // equal: the same value, or zeros of either sign
    return std::signbit(a) ? b : a;
  return std::max(a, b);
}

/// IEEE 754-2019 minimum (arith.minimumf): NaN propagates, -0 < +0.
inline double floatMinimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return a + b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return std::min(a, b);
}

} // namespace gpuos::interp

#endif // GPUOS_LIB_INTERPRETER_FLOATMINMAX_H
