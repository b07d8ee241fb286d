//===- ScalarMath.h - one element of each gpuos micro-op --------*- C++ -*-===//
//
// The scalar semantics of the micro-ops, emitted with arith and llvm ops for
// the NVPTX backend. Values travel in a *compute type*: f32 for f16, bf16
// and f32 (f16/bf16 round only when stored or cast, see docs/codegen.md),
// f64 for f64, the integer's own width for integers, i1 for i1. Storage
// types are what buffers hold: the element type, except i1 in one byte.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_SCALARMATH_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_SCALARMATH_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace gpuos::codegen {

mlir::Type computeType(mlir::Type elementType);
mlir::Type storageType(mlir::Type elementType);
/// Bytes of one stored element.
unsigned storageBytes(mlir::Type elementType);

/// A loaded storage value in compute type, and back for a store (rounding
/// f32 to f16/bf16 to nearest even, i1 to a 0/1 byte).
mlir::Value storageToCompute(mlir::ImplicitLocOpBuilder &b, mlir::Value stored,
                             mlir::Type elementType);
mlir::Value computeToStorage(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                             mlir::Type elementType);

/// A constant of `elementType` (a float or integer attribute) in compute type.
mlir::Value scalarConstant(mlir::ImplicitLocOpBuilder &b, mlir::Attribute value,
                           mlir::Type elementType);
mlir::Value floatConstant(mlir::ImplicitLocOpBuilder &b, mlir::Type type,
                          double value);
mlir::Value intConstant(mlir::ImplicitLocOpBuilder &b, mlir::Type type,
                        int64_t value);

/// One element of an elementwise micro-op (unary, binary, cmp, select,
/// cast) on operands in compute type. `elementType` is the operands' element
/// type (select: of the branches). Returns null for an op that is not
/// elementwise.
mlir::Value emitElementwise(mlir::ImplicitLocOpBuilder &b, mlir::Operation *op,
                            mlir::ArrayRef<mlir::Value> operands,
                            mlir::Type elementType);

/// `value` (compute type) rounded to `elementType`'s precision and held in
/// compute type again: computed f16/bf16 values are unrounded f32 until
/// stored, so casts and argmax round them first. Others are returned as is.
mlir::Value roundToElement(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                           mlir::Type elementType);

/// Conversion between element types as gpuos.cast defines it.
mlir::Value emitCast(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                     mlir::Type from, mlir::Type to);

/// Calls libdevice's __nv_<name>f (f32) or __nv_<name> (f64), declaring it
/// in the enclosing gpu.module on first use.
mlir::Value callLibdevice(mlir::ImplicitLocOpBuilder &b, llvm::StringRef name,
                          mlir::ValueRange args);

/// Reduction combiners on compute values. max/min propagate NaN for floats.
mlir::Value reductionIdentity(mlir::ImplicitLocOpBuilder &b, ReductionKind kind,
                              mlir::Type elementType);
mlir::Value reductionCombine(mlir::ImplicitLocOpBuilder &b, ReductionKind kind,
                             mlir::Value acc, mlir::Value value,
                             mlir::Type elementType);

/// Argmax step: true when (value, index) replaces (best, bestIndex): a
/// larger value, or the first NaN (NaN counts as the largest); ties keep the
/// smaller index.
mlir::Value emitArgmaxTakes(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                            mlir::Value index, mlir::Value best,
                            mlir::Value bestIndex);

/// Float helpers on compute values.
mlir::Value emitExp(mlir::ImplicitLocOpBuilder &b, mlir::Value x);
/// 1 / sqrt(x), correctly rounded sqrt and division (not rsqrt.approx).
mlir::Value emitRsqrt(mlir::ImplicitLocOpBuilder &b, mlir::Value x);
/// The norms' scale rsqrt(mean + eps): in f32 PTX rsqrt.approx.f32 (one MUFU
/// op, relative error at most 2^-22.9, subnormals kept), as PyTorch's own
/// norms use rsqrtf; other types emitRsqrt.
mlir::Value emitNormScale(mlir::ImplicitLocOpBuilder &b, mlir::Value x);

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_SCALARMATH_H
