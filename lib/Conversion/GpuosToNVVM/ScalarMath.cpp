//===- ScalarMath.cpp - one element of each gpuos micro-op ----------------===//
//
// Semantics follow the CPU interpreter (docs/interpreter.md): integer
// division by zero gives 0 and MIN / -1 wraps, float max/min propagate NaN,
// float-to-int casts truncate and saturate with NaN giving 0, anything to i1
// tests != 0. Transcendentals call libdevice (linked from the CUDA toolkit
// by the NVVM target serializer); sqrt and division stay correctly rounded,
// except the divisions of sigmoid and silu (div.full) and the norms' scale
// (rsqrt.approx), docs/codegen.md "Numerics".
//
//===----------------------------------------------------------------------===//

#include "ScalarMath.h"
#include "gpuos/Dialect/Gpuos/IR/Shapes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

static bool isHalfLike(Type type) { return type.isF16() || type.isBF16(); }

Type codegen::computeType(Type elementType) {
  if (isHalfLike(elementType))
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Type codegen::storageType(Type elementType) {
  if (elementType.isInteger(1))
    return IntegerType::get(elementType.getContext(), 8);
  return elementType;
}

unsigned codegen::storageBytes(Type elementType) {
  return elementStorageBytes(elementType);
}

Value codegen::storageToCompute(ImplicitLocOpBuilder &b, Value stored,
                                Type elementType) {
  if (isHalfLike(elementType))
    return arith::ExtFOp::create(b, b.getF32Type(), stored);
  if (elementType.isInteger(1))
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, stored,
                                 intConstant(b, b.getI8Type(), 0));
  return stored;
}

Value codegen::roundToElement(ImplicitLocOpBuilder &b, Value value,
                              Type elementType) {
  if (!isHalfLike(elementType))
    return value;
  return storageToCompute(b, computeToStorage(b, value, elementType), elementType);
}

Value codegen::computeToStorage(ImplicitLocOpBuilder &b, Value value,
                                Type elementType) {
  if (isHalfLike(elementType))
    return arith::TruncFOp::create(b, elementType, value);
  if (elementType.isInteger(1))
    return arith::ExtUIOp::create(b, b.getI8Type(), value);
  return value;
}

Value codegen::floatConstant(ImplicitLocOpBuilder &b, Type type, double value) {
  return arith::ConstantOp::create(b, b.getFloatAttr(type, value));
}

Value codegen::intConstant(ImplicitLocOpBuilder &b, Type type, int64_t value) {
  return arith::ConstantOp::create(b, b.getIntegerAttr(type, value));
}

Value codegen::scalarConstant(ImplicitLocOpBuilder &b, Attribute value,
                              Type elementType) {
  Type type = computeType(elementType);
  if (auto floatAttr = dyn_cast<FloatAttr>(value)) {
    // f16/bf16 values are exact in f32; f64 keeps its own APFloat.
    if (type.isF64())
      return arith::ConstantOp::create(b, b.getFloatAttr(type, floatAttr.getValue()));
    return floatConstant(b, type, floatAttr.getValueAsDouble());
  }
  auto intAttr = cast<IntegerAttr>(value);
  return arith::ConstantOp::create(
      b, b.getIntegerAttr(type, intAttr.getValue().sextOrTrunc(
                                    type.getIntOrFloatBitWidth())));
}

Value codegen::callLibdevice(ImplicitLocOpBuilder &b, StringRef name,
                             ValueRange args) {
  Type type = args.front().getType();
  std::string symbol = ("__nv_" + name + (type.isF32() ? "f" : "")).str();
  auto module = b.getInsertionBlock()
                    ->getParentOp()
                    ->getParentOfType<gpu::GPUModuleOp>();
  auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> params(args.size(), type);
    callee = LLVM::LLVMFuncOp::create(b, symbol,
                                      LLVM::LLVMFunctionType::get(type, params));
  }
  return LLVM::CallOp::create(b, callee, args).getResult();
}

Value codegen::emitExp(ImplicitLocOpBuilder &b, Value x) {
  return callLibdevice(b, "exp", x);
}

Value codegen::emitRsqrt(ImplicitLocOpBuilder &b, Value x) {
  Value root = LLVM::SqrtOp::create(b, x);
  return arith::DivFOp::create(b, floatConstant(b, x.getType(), 1.0), root);
}

/// sqrt.rn and div.rn are each a subroutine with a slow-path branch; in a
/// row chain they sit on every link's critical path, behind the block
/// reduction and before the scale of the next link's values.
Value codegen::emitNormScale(ImplicitLocOpBuilder &b, Value x) {
  if (!x.getType().isF32())
    return emitRsqrt(b, x);
  return LLVM::CallIntrinsicOp::create(b, x.getType(),
                                       b.getStringAttr("llvm.nvvm.rsqrt.approx.f"),
                                       ValueRange{x})
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// 1 / (1 + exp(-x)) and x / (1 + exp(-x)): exp(-x) = inf for very negative
/// x gives the exact limits 0 and -0.
static Value onePlusExpNeg(ImplicitLocOpBuilder &b, Value x) {
  Value one = floatConstant(b, x.getType(), 1.0);
  return arith::AddFOp::create(b, one, emitExp(b, arith::NegFOp::create(b, x)));
}

/// The division of sigmoid and silu. In f32, PTX div.full.f32: full range
/// (subnormals, inf and NaN as IEEE division gives them), at most 2 ulp,
/// the same order as expf's own 2 ulp before it. The correctly rounded
/// div.rn.f32 is a subroutine with a slow path; with one per element it
/// made the bench's 8-op bandwidth chain, which has a sigmoid, run 247 us
/// instead of 177 as a plain kernel (H200; docs/codegen.md). f64 keeps
/// div.rn: the user's own `/` is correctly rounded in every type.
static Value divideAfterExp(ImplicitLocOpBuilder &b, Value num, Value den) {
  if (!num.getType().isF32())
    return arith::DivFOp::create(b, num, den);
  return LLVM::CallIntrinsicOp::create(b, num.getType(),
                                       b.getStringAttr("llvm.nvvm.div.full"),
                                       ValueRange{num, den})
      .getResult(0);
}

static Value emitUnaryFloat(ImplicitLocOpBuilder &b, Operation *op, Value x) {
  Type type = x.getType();
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](NegOp) { return arith::NegFOp::create(b, x); })
      .Case([&](AbsOp) { return LLVM::FAbsOp::create(b, x); })
      .Case([&](ReluOp) {
        // maximum keeps NaN, as the interpreter does.
        return arith::MaximumFOp::create(b, x, floatConstant(b, type, 0.0));
      })
      .Case([&](ExpOp) { return emitExp(b, x); })
      .Case([&](LogOp) { return callLibdevice(b, "log", x); })
      .Case([&](SqrtOp) { return LLVM::SqrtOp::create(b, x); })
      .Case([&](RsqrtOp) { return emitRsqrt(b, x); })
      .Case([&](TanhOp) { return callLibdevice(b, "tanh", x); })
      .Case([&](ErfOp) { return callLibdevice(b, "erf", x); })
      .Case([&](SigmoidOp) {
        return divideAfterExp(b, floatConstant(b, type, 1.0),
                              onePlusExpNeg(b, x));
      })
      .Case([&](SiluOp) { return divideAfterExp(b, x, onePlusExpNeg(b, x)); })
      .Case([&](GeluOp) {
        // x * (1 + erf(x / sqrt 2)) / 2, the interpreter's erf form.
        Value scaled =
            arith::MulFOp::create(b, x, floatConstant(b, type, M_SQRT1_2));
        Value onePlusErf = arith::AddFOp::create(
            b, floatConstant(b, type, 1.0), callLibdevice(b, "erf", scaled));
        Value half = arith::MulFOp::create(b, x, floatConstant(b, type, 0.5));
        return arith::MulFOp::create(b, half, onePlusErf);
      })
      .Default([](Operation *) { return Value(); });
}

static Value emitUnaryInt(ImplicitLocOpBuilder &b, Operation *op, Value x) {
  Value zero = intConstant(b, x.getType(), 0);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](NegOp) { return arith::SubIOp::create(b, zero, x); })
      .Case([&](AbsOp) {
        // Wraps: |MIN| is MIN, as two's complement negation gives.
        Value negative =
            arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, zero);
        return arith::SelectOp::create(b, negative,
                                       arith::SubIOp::create(b, zero, x), x);
      })
      .Case([&](ReluOp) { return arith::MaxSIOp::create(b, x, zero); })
      .Default([](Operation *) { return Value(); });
}

/// Truncating division with the interpreter's total semantics: x / 0 is 0
/// and MIN / -1 is MIN (LLVM's sdiv would be undefined for both).
static Value emitIntDiv(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  Type type = lhs.getType();
  Value zero = intConstant(b, type, 0), one = intConstant(b, type, 1),
        minusOne = intConstant(b, type, -1);
  Value isZero = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rhs, zero);
  Value isMinusOne =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rhs, minusOne);
  Value unsafe = arith::OrIOp::create(b, isZero, isMinusOne);
  Value divisor = arith::SelectOp::create(b, unsafe, one, rhs);
  Value quotient = arith::DivSIOp::create(b, lhs, divisor);
  quotient = arith::SelectOp::create(b, isMinusOne,
                                     arith::SubIOp::create(b, zero, lhs), quotient);
  return arith::SelectOp::create(b, isZero, zero, quotient);
}

static Value emitBinary(ImplicitLocOpBuilder &b, Operation *op, Value lhs,
                        Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) -> Value {
        return isFloat ? Value(arith::AddFOp::create(b, lhs, rhs))
                       : Value(arith::AddIOp::create(b, lhs, rhs));
      })
      .Case([&](SubOp) -> Value {
        return isFloat ? Value(arith::SubFOp::create(b, lhs, rhs))
                       : Value(arith::SubIOp::create(b, lhs, rhs));
      })
      .Case([&](MulOp) -> Value {
        return isFloat ? Value(arith::MulFOp::create(b, lhs, rhs))
                       : Value(arith::MulIOp::create(b, lhs, rhs));
      })
      .Case([&](DivOp) -> Value {
        return isFloat ? Value(arith::DivFOp::create(b, lhs, rhs))
                       : emitIntDiv(b, lhs, rhs);
      })
      .Case([&](MaxOp) -> Value {
        return isFloat ? Value(arith::MaximumFOp::create(b, lhs, rhs))
                       : Value(arith::MaxSIOp::create(b, lhs, rhs));
      })
      .Case([&](MinOp) -> Value {
        return isFloat ? Value(arith::MinimumFOp::create(b, lhs, rhs))
                       : Value(arith::MinSIOp::create(b, lhs, rhs));
      })
      .Case([&](PowOp) { return callLibdevice(b, "pow", {lhs, rhs}); })
      .Default([](Operation *) { return Value(); });
}

static Value emitCompare(ImplicitLocOpBuilder &b, ComparePredicate predicate,
                         Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType())) {
    // Ordered predicates are false on NaN; `ne` is unordered, so true.
    arith::CmpFPredicate pred = arith::CmpFPredicate::OEQ;
    switch (predicate) {
    case ComparePredicate::eq: pred = arith::CmpFPredicate::OEQ; break;
    case ComparePredicate::ne: pred = arith::CmpFPredicate::UNE; break;
    case ComparePredicate::lt: pred = arith::CmpFPredicate::OLT; break;
    case ComparePredicate::le: pred = arith::CmpFPredicate::OLE; break;
    case ComparePredicate::gt: pred = arith::CmpFPredicate::OGT; break;
    case ComparePredicate::ge: pred = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(b, pred, lhs, rhs);
  }
  arith::CmpIPredicate pred = arith::CmpIPredicate::eq;
  switch (predicate) {
  case ComparePredicate::eq: pred = arith::CmpIPredicate::eq; break;
  case ComparePredicate::ne: pred = arith::CmpIPredicate::ne; break;
  case ComparePredicate::lt: pred = arith::CmpIPredicate::slt; break;
  case ComparePredicate::le: pred = arith::CmpIPredicate::sle; break;
  case ComparePredicate::gt: pred = arith::CmpIPredicate::sgt; break;
  case ComparePredicate::ge: pred = arith::CmpIPredicate::sge; break;
  }
  return arith::CmpIOp::create(b, pred, lhs, rhs);
}

/// A call of the user's device function (gpuos.custom): declared here as
/// an external function of compute types, defined by the NVRTC-compiled
/// custom source that nvJitLink links into the image.
static Value emitCustomCall(ImplicitLocOpBuilder &b, CustomOp custom,
                            ArrayRef<Value> operands) {
  auto module = b.getInsertionBlock()
                    ->getParentOp()
                    ->getParentOfType<gpu::GPUModuleOp>();
  StringRef symbol = custom.getCallee();
  Type result = computeType(custom.getDtype());
  SmallVector<Type> params;
  for (Value operand : operands)
    params.push_back(operand.getType());
  auto type = LLVM::LLVMFunctionType::get(result, params);
  auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    callee = LLVM::LLVMFuncOp::create(b, symbol, type);
  } else if (callee.getFunctionType() != type) {
    custom.emitOpError() << "calls @" << symbol << " with the signature "
                         << type << ", but another gpuos.custom of this image "
                         << "calls it as " << callee.getFunctionType();
    return Value();
  }
  return LLVM::CallOp::create(b, callee, operands).getResult();
}

Value codegen::emitElementwise(ImplicitLocOpBuilder &b, Operation *op,
                               ArrayRef<Value> operands, Type elementType) {
  if (auto custom = dyn_cast<CustomOp>(op))
    return emitCustomCall(b, custom, operands);
  if (auto cmp = dyn_cast<CmpOp>(op))
    // The values the graph holds: a computed f16/bf16 value, unrounded in
    // f32, rounded to its precision first (two values that round to one f16
    // are equal, as in the interpreter and in eager PyTorch). Loaded values
    // are exact already; the backend folds their trunc of an ext.
    return emitCompare(b, cmp.getPredicate(),
                       roundToElement(b, operands[0], elementType),
                       roundToElement(b, operands[1], elementType));
  if (isa<SelectOp>(op))
    return arith::SelectOp::create(b, operands[0], operands[1], operands[2]);
  if (auto cast = dyn_cast<CastOp>(op))
    return emitCast(b, operands[0], elementType, cast.getDtype());
  if (operands.size() == 2)
    return emitBinary(b, op, operands[0], operands[1]);
  if (operands.size() == 1)
    return isa<FloatType>(operands[0].getType())
               ? emitUnaryFloat(b, op, operands[0])
               : emitUnaryInt(b, op, operands[0]);
  return Value();
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

/// Float to integer: truncate toward zero, saturate, NaN to 0
/// (llvm.fptosi.sat, PTX cvt.rzi.sat).
static Value floatToInt(ImplicitLocOpBuilder &b, Value value, Type to) {
  std::string name = ("llvm.fptosi.sat.i" + Twine(to.getIntOrFloatBitWidth()) +
                      (value.getType().isF64() ? ".f64" : ".f32"))
                         .str();
  return LLVM::CallIntrinsicOp::create(b, to, b.getStringAttr(name),
                                       ValueRange{value})
      .getResult(0);
}

Value codegen::emitCast(ImplicitLocOpBuilder &b, Value value, Type from,
                        Type to) {
  if (from == to)
    return value;
  Type toCompute = computeType(to);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  // A computed f16/bf16 value is held unrounded in f32 until it is stored
  // or cast: the cast reads it rounded to its own precision first (widening
  // it as it was gave f32 results no f16/bf16 value has, and a float-to-int
  // cast of 2.99927 in f32, 3 in f16, gave 2).
  value = roundToElement(b, value, from);
  if (fromFloat && toFloat) {
    Type src = value.getType();
    if (isHalfLike(to)) {
      // Round to the target precision, then widen losslessly.
      Value narrow = arith::TruncFOp::create(b, to, value);
      return arith::ExtFOp::create(b, toCompute, narrow);
    }
    if (src == toCompute)
      return value; // an f16/bf16 value, rounded, is an exact f32
    if (toCompute.isF64())
      return arith::ExtFOp::create(b, toCompute, value);
    return arith::TruncFOp::create(b, toCompute, value);
  }
  if (fromFloat) {
    if (to.isInteger(1)) // != 0, NaN included
      return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, value,
                                   floatConstant(b, value.getType(), 0.0));
    return floatToInt(b, value, to);
  }
  if (toFloat) {
    // Round once, straight to the target precision, then widen.
    Value converted =
        from.isInteger(1) ? Value(arith::UIToFPOp::create(b, to, value))
                          : Value(arith::SIToFPOp::create(b, to, value));
    return converted.getType() == toCompute
               ? converted
               : Value(arith::ExtFOp::create(b, toCompute, converted));
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth(),
           toWidth = to.getIntOrFloatBitWidth();
  if (toWidth == 1)
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, value,
                                 intConstant(b, from, 0));
  if (fromWidth == 1)
    return arith::ExtUIOp::create(b, to, value);
  if (fromWidth < toWidth)
    return arith::ExtSIOp::create(b, to, value);
  return arith::TruncIOp::create(b, to, value); // wraps
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Value codegen::reductionIdentity(ImplicitLocOpBuilder &b, ReductionKind kind,
                                 Type elementType) {
  Type type = computeType(elementType);
  bool isFloat = isa<FloatType>(type);
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case ReductionKind::sum:
  case ReductionKind::mean:
    return isFloat ? floatConstant(b, type, 0.0) : intConstant(b, type, 0);
  case ReductionKind::max:
    return isFloat ? floatConstant(b, type, -INFINITY)
                   : arith::ConstantOp::create(
                         b, b.getIntegerAttr(type, APInt::getSignedMinValue(width)));
  case ReductionKind::min:
    return isFloat ? floatConstant(b, type, INFINITY)
                   : arith::ConstantOp::create(
                         b, b.getIntegerAttr(type, APInt::getSignedMaxValue(width)));
  }
  llvm_unreachable("unknown ReductionKind");
}

Value codegen::reductionCombine(ImplicitLocOpBuilder &b, ReductionKind kind,
                                Value acc, Value value, Type) {
  bool isFloat = isa<FloatType>(acc.getType());
  switch (kind) {
  case ReductionKind::sum:
  case ReductionKind::mean:
    return isFloat ? Value(arith::AddFOp::create(b, acc, value))
                   : Value(arith::AddIOp::create(b, acc, value));
  case ReductionKind::max:
    return isFloat ? Value(arith::MaximumFOp::create(b, acc, value))
                   : Value(arith::MaxSIOp::create(b, acc, value));
  case ReductionKind::min:
    return isFloat ? Value(arith::MinimumFOp::create(b, acc, value))
                   : Value(arith::MinSIOp::create(b, acc, value));
  }
  llvm_unreachable("unknown ReductionKind");
}

Value codegen::emitArgmaxTakes(ImplicitLocOpBuilder &b, Value value, Value index,
                         Value best, Value bestIndex) {
  Value tieBreak =
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, index, bestIndex);
  if (!isa<FloatType>(value.getType())) {
    Value greater =
        arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, value, best);
    Value equal = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, value, best);
    return arith::OrIOp::create(b, greater,
                                arith::AndIOp::create(b, equal, tieBreak));
  }
  Value valueNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, value, value);
  Value bestNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, best, best);
  Value greater = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, value, best);
  Value equal = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, value, best);
  Value bothNan = arith::AndIOp::create(b, valueNan, bestNan);
  // (x > best) || (x == best && earlier) || (NaN over non-NaN) ||
  // (both NaN && earlier)
  Value takes = arith::OrIOp::create(
      b, greater, arith::AndIOp::create(b, equal, tieBreak));
  Value nanWins = arith::AndIOp::create(
      b, valueNan,
      arith::XOrIOp::create(b, bestNan, intConstant(b, b.getI1Type(), 1)));
  takes = arith::OrIOp::create(b, takes, nanWins);
  return arith::OrIOp::create(b, takes,
                              arith::AndIOp::create(b, bothNan, tieBreak));
}

