//===- Kernels.h - reference math of the gpuos micro-ops --------*- C++ -*-===//
//
// One function per op family on HostTensors with concrete shapes. Each
// result is rounded to its element type; a shape that is illegal at run
// time (a dynamic dim that does not broadcast, an out-of-range slice ...)
// is an llvm::Error, never a crash. The interpreter maps ops onto these;
// tests may call them directly.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_INTERPRETER_KERNELS_H
#define GPUOS_INTERPRETER_KERNELS_H

#include "gpuos/Interpreter/HostTensor.h"
#include "llvm/Support/Error.h"

namespace gpuos::interp {

/// How reductions, softmax, norms and matmul accumulate.
struct Accumulation {
  /// true: every intermediate is a double and only the result rounds.
  /// false: intermediates round to the op's element type after each step
  /// (matmul: to f32 for f16/bf16 operands, as the op promises).
  bool inF64 = true;
};

enum class UnaryFn {
  Neg,
  Abs,
  Relu,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Gelu,
  Silu,
  Erf
};
enum class BinaryFn { Add, Sub, Mul, Div, Max, Min, Pow };
enum class CompareFn { Eq, Ne, Lt, Le, Gt, Ge };
enum class ReduceFn { Sum, Mean, Max, Min };

/// Numpy broadcast of concrete shapes; an error names the clashing shapes.
llvm::Expected<llvm::SmallVector<int64_t>>
broadcastRuntimeShapes(llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes);
/// The same over the operands' shapes.
llvm::Expected<llvm::SmallVector<int64_t>>
broadcastRuntimeShapes(llvm::ArrayRef<const HostTensor *> operands);

//===--- Elementwise
//-------------------------------------------------------===//

/// Float math runs in double on the (already rounded) operands, then
/// rounds. Integer neg/abs/add/sub/mul wrap; integer division truncates
/// toward zero, x / 0 is 0 and MIN / -1 wraps to MIN. Float max/min
/// propagate NaN.
llvm::Expected<HostTensor> unary(UnaryFn fn, const HostTensor &input);
llvm::Expected<HostTensor> binary(BinaryFn fn, const HostTensor &lhs,
                                  const HostTensor &rhs);
/// An i1 tensor; NaN compares unequal to everything.
llvm::Expected<HostTensor> compare(CompareFn fn, const HostTensor &lhs,
                                   const HostTensor &rhs);
llvm::Expected<HostTensor> select(const HostTensor &cond, const HostTensor &lhs,
                                  const HostTensor &rhs);
/// Float to float rounds to nearest even; float to integer truncates toward
/// zero and saturates (NaN gives 0); integer to integer wraps; to i1 tests
/// != 0.
HostTensor castTo(const HostTensor &input, DType dtype);

//===--- Views and data movement
//-------------------------------------------===//

/// Broadcast to `shape` with numpy rules: operand dims align on the right
/// and each equals its target or is 1.
llvm::Expected<HostTensor> broadcastTo(const HostTensor &input,
                                       llvm::ArrayRef<int64_t> shape);
llvm::Expected<HostTensor> reshape(const HostTensor &input,
                                   llvm::ArrayRef<int64_t> shape);
llvm::Expected<HostTensor> transpose(const HostTensor &input,
                                     llvm::ArrayRef<int64_t> permutation);
llvm::Expected<HostTensor> slice(const HostTensor &input,
                                 llvm::ArrayRef<int64_t> starts,
                                 llvm::ArrayRef<int64_t> sizes,
                                 llvm::ArrayRef<int64_t> steps);
llvm::Expected<HostTensor> concat(llvm::ArrayRef<const HostTensor *> inputs,
                                  int64_t axis);

//===--- Reductions, normalizations, matmul
//--------------------------------===//

/// Accumulates each output over the reduced axes in row-major order. Sum of
/// nothing is 0, mean of nothing NaN; max/min over an empty axis is an
/// error. Float max/min propagate NaN; integer sums wrap.
llvm::Expected<HostTensor> reduce(ReduceFn fn, const HostTensor &input,
                                  llvm::ArrayRef<int64_t> axes, bool keepdim,
                                  Accumulation acc);
/// i64 index of the first maximum along `axis`; a NaN counts as larger
/// than any number, so the first NaN wins.
llvm::Expected<HostTensor> argmax(const HostTensor &input, int64_t axis,
                                  bool keepdim);
/// exp(x - max) / sum(exp(x - max)) along `axis`.
llvm::Expected<HostTensor> softmax(const HostTensor &input, int64_t axis,
                                   Accumulation acc);
/// Over the last dimension, with the biased variance; weight and bias may
/// be null.
llvm::Expected<HostTensor> layerNorm(const HostTensor &input,
                                     const HostTensor *weight,
                                     const HostTensor *bias, double epsilon,
                                     Accumulation acc);
llvm::Expected<HostTensor> rmsNorm(const HostTensor &input,
                                   const HostTensor *weight, double epsilon,
                                   Accumulation acc);
/// Batched matmul; batch dims broadcast with numpy rules. Each output sums
/// over k in increasing order. Products of f32 and narrower operands are
/// exact in double; without f64 accumulation the running sum rounds to the
/// accumulator type (f32, or f64 for f64 operands) after every step.
llvm::Expected<HostTensor> matmul(const HostTensor &lhs, const HostTensor &rhs,
                                  bool transposeLhs, bool transposeRhs,
                                  Accumulation acc);

} // namespace gpuos::interp

#endif // GPUOS_INTERPRETER_KERNELS_H
