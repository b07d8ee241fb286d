//===- BlockFold.cpp - folding a value across a warp and a block ----------===//

#include "BlockFold.h"
#include "ScalarMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace gpuos::codegen;

Value gpuos::codegen::shuffleXor(ImplicitLocOpBuilder &b, Value value, int offset) {
  Type i32 = b.getI32Type();
  Type type = value.getType();
  auto shfl = [&](Value v) -> Value {
    return NVVM::ShflOp::create(b, v.getType(), intConstant(b, i32, -1), v,
                                intConstant(b, i32, offset),
                                intConstant(b, i32, 31), NVVM::ShflKind::bfly,
                                UnitAttr());
  };
  if (type.isF32() || type.isInteger(32))
    return shfl(value);
  unsigned width = type.getIntOrFloatBitWidth();
  if (width < 32) { // i8, i16: widen, shuffle, narrow
    Value wide = arith::ExtSIOp::create(b, i32, value);
    return arith::TruncIOp::create(b, type, shfl(wide));
  }
  // 64 bits: two 32-bit halves.
  Type i64 = b.getI64Type();
  Value bits = type.isF64() ? Value(arith::BitcastOp::create(b, i64, value)) : value;
  Value lo = arith::TruncIOp::create(b, i32, bits);
  Value hi = arith::TruncIOp::create(
      b, i32, arith::ShRUIOp::create(b, bits, intConstant(b, i64, 32)));
  Value loOut = arith::ExtUIOp::create(b, i64, shfl(lo));
  Value hiOut = arith::ExtUIOp::create(b, i64, shfl(hi));
  Value joined = arith::OrIOp::create(
      b, arith::ShLIOp::create(b, hiOut, intConstant(b, i64, 32)), loOut);
  return type.isF64() ? Value(arith::BitcastOp::create(b, type, joined)) : joined;
}

Value gpuos::codegen::foldWarp(ImplicitLocOpBuilder &b, Value value, FoldFn fold,
                               int width) {
  for (int offset = width / 2; offset >= 1; offset /= 2)
    value = fold(value, shuffleXor(b, value, offset));
  return value;
}

Value gpuos::codegen::foldStoredTotals(ImplicitLocOpBuilder &b, Type type, FoldFn fold,
                                       Value identity, Value numWarps,
                                       llvm::function_ref<Value(Value)> slot,
                                       unsigned alignment) {
  Type i32 = b.getI32Type();
  auto loop = scf::ForOp::create(b, intConstant(b, i32, 0), numWarps, intConstant(b, i32, 1),
                                 ValueRange{identity});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value stored = LLVM::LoadOp::create(b, type, slot(loop.getInductionVar()), alignment);
  scf::YieldOp::create(b, fold(loop.getRegionIterArgs()[0], stored));
  return loop.getResult(0);
}
