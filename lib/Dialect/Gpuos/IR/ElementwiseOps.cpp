//===- ElementwiseOps.cpp - cast, cmp, select, constant -------------------===//
//
// Unary and binary arithmetic ops infer through inferElementwise directly
// from their ODS definitions; the ops here have extra operands or results.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace gpuos;

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  Type dtype = adaptor.getDtype();
  if (!isSupportedElementType(dtype))
    return emitOptionalError(loc, "'", getOperationName(),
                             "' cannot cast to ", dtype,
                             "; gpuos tensors hold f32, f16, bf16, f64, i64, "
                             "i32, i8 or i1");
  return inferElementwise(loc, getOperationName(), adaptor.getOperands(),
                          DTypeClass::Any, dtype, results);
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  // A cast to the operand's own element type only makes a view contiguous;
  // that is a no-op when it already is.
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  return inferElementwise(loc, getOperationName(), adaptor.getOperands(),
                          DTypeClass::Numeric, IntegerType::get(context, 1),
                          results);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferElementwise(loc, getOperationName(), adaptor.getOperands(),
                          DTypeClass::Any, /*resultElementType=*/{}, results);
}

LogicalResult CustomOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "'", getOperationName(), "' @",
                             adaptor.getCallee(), " needs at least one input");
  // The callee becomes a PTX symbol linked by name: a C identifier, and
  // none of the names the generated code defines or LLVM reserves.
  StringRef callee = adaptor.getCallee();
  bool identifier =
      !callee.empty() && (llvm::isAlpha(callee[0]) || callee[0] == '_') &&
      llvm::all_of(callee, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (!identifier)
    return emitOptionalError(loc, "'", getOperationName(), "' @\"", callee,
                             "\": the callee must be a C identifier (the "
                             "name of an extern \"C\" __device__ function)");
  for (StringRef reserved : {"gpuos_", "__gpuos_", "llvm_", "__nv_"})
    if (callee.starts_with(reserved))
      return emitOptionalError(loc, "'", getOperationName(), "' @", callee,
                               ": names starting with '", reserved,
                               "' are reserved for generated and library code");
  // i1 and i8 would pass through the device ABI as promoted integers whose
  // width NVRTC and the NVPTX backend might not agree on: leave them out.
  auto callable = [](Type type) {
    return isSupportedElementType(type) && !type.isInteger(1) &&
           !type.isInteger(8);
  };
  Type dtype = adaptor.getDtype();
  if (!callable(dtype))
    return emitOptionalError(loc, "'", getOperationName(), "' @",
                             adaptor.getCallee(), " cannot return ", dtype,
                             "; custom ops take and return f32, f16, bf16, "
                             "f64, i32 or i64");
  for (auto [index, input] : llvm::enumerate(adaptor.getInputs()))
    if (auto type = dyn_cast<StridedTensorType>(input.getType());
        type && !callable(type.getElementType()))
      return emitOptionalError(loc, "'", getOperationName(), "' @",
                               adaptor.getCallee(), " input #", index, " has ",
                               type.getElementType(),
                               "; custom ops take and return f32, f16, bf16, "
                               "f64, i32 or i64");
  return inferElementwise(loc, getOperationName(), adaptor.getInputs(),
                          DTypeClass::Any, dtype, results);
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  auto shaped = dyn_cast<ShapedType>(adaptor.getValue().getType());
  if (!shaped || !shaped.hasStaticShape())
    return emitOptionalError(loc, "'", getOperationName(),
                             "' needs a statically shaped value");
  if (!isSupportedElementType(shaped.getElementType()))
    return emitOptionalError(loc, "'", getOperationName(),
                             "' has unsupported element type ",
                             shaped.getElementType());
  results.push_back(
      StridedTensorType::get(shaped.getShape(), shaped.getElementType()));
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }
