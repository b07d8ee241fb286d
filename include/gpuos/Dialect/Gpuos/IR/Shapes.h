//===- Shapes.h - shape, stride and dtype rules of gpuos --------*- C++ -*-===//
//
// The rules every op's type inference shares: numpy broadcasting with
// dynamic dims, row-major strides, and the element-type classes ops accept.
// Kept free of op classes so unit tests and the interpreter can use them.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DIALECT_GPUOS_IR_SHAPES_H
#define GPUOS_DIALECT_GPUOS_IR_SHAPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace gpuos {

/// ShapedType::kDynamic, spelled `?` in the assembly.
constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

/// Element types an op accepts.
enum class DTypeClass {
  Float,   // f64, f32, f16, bf16
  Numeric, // floats and integers but not i1: arithmetic is undefined on i1
  Any,     // every gpuos element type
};

/// True when `type` is one of the element types gpuos tensors hold.
bool isSupportedElementType(mlir::Type type);
/// True when `type` belongs to `cls`.
bool isInClass(mlir::Type type, DTypeClass cls);
/// "a floating-point", "a numeric" ...: for diagnostics.
llvm::StringRef describeClass(DTypeClass cls);
/// Bytes one element of `type` takes in memory (i1 is stored as a byte,
/// docs/codegen.md).
unsigned elementStorageBytes(mlir::Type type);

/// Row-major strides of `shape`; a stride is kDynamic where a dynamic dim
/// lies to its right.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Numpy broadcast of several shapes. Dims align on the right; equal dims
/// stay, 1 stretches, a dynamic dim against a static N gives N (the runtime
/// checks it), against 1 or `?` stays dynamic. Returns the index of the
/// first incompatible pair through `conflict` on failure.
struct BroadcastConflict {
  unsigned lhsOperand, rhsOperand;
  int64_t lhsDim, rhsDim; // sizes that clash
  unsigned resultAxis;    // axis of the broadcast result
};
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                BroadcastConflict *conflict = nullptr);

/// True when two dims may be equal at run time.
inline bool dimsCompatible(int64_t a, int64_t b) {
  return a == kDynamic || b == kDynamic || a == b;
}

/// "4x?x8": for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);
/// Strides as the type spells them: `[1, 8]`.
std::string formatStrides(llvm::ArrayRef<int64_t> strides);

/// Shared inference of elementwise ops: operands of one element type in
/// `cls` (the first operand of select is the i1 condition), broadcast
/// together; the result is contiguous with `resultElementType`, or the
/// operands' element type when it is null.
llvm::LogicalResult inferElementwise(std::optional<mlir::Location> loc,
                                     llvm::StringRef opName,
                                     mlir::ValueRange operands, DTypeClass cls,
                                     mlir::Type resultElementType,
                                     llvm::SmallVectorImpl<mlir::Type> &results);

} // namespace gpuos

#endif // GPUOS_DIALECT_GPUOS_IR_SHAPES_H
