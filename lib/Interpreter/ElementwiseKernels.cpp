//===- ElementwiseKernels.cpp - unary, binary, cmp, select, cast ----------===//

#include "FloatMinMax.h"
#include "Indexing.h"
#include "gpuos/Interpreter/Kernels.h"
#include <cmath>
#include <limits>

using namespace gpuos::interp;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;

namespace {
/// The broadcast shape of some operands and the strides that read each.
struct Broadcast {
  SmallVector<int64_t> shape;
  SmallVector<SmallVector<int64_t>> strides;
};
} // namespace

static Expected<Broadcast>
broadcastOperands(ArrayRef<const HostTensor *> operands) {
  Expected<SmallVector<int64_t>> shape = broadcastRuntimeShapes(operands);
  if (!shape)
    return shape.takeError();
  Broadcast result{*shape, {}};
  for (const HostTensor *operand : operands)
    result.strides.push_back(broadcastStrides(operand->getShape(), *shape));
  return result;
}

static bool isFloatOnly(UnaryFn fn) {
  return fn != UnaryFn::Neg && fn != UnaryFn::Abs && fn != UnaryFn::Relu;
}

static double unaryFloat(UnaryFn fn, double x) {
  switch (fn) {
  case UnaryFn::Neg:
    return -x;
  case UnaryFn::Abs:
    return std::fabs(x);
  case UnaryFn::Relu:
    return std::isnan(x) ? x : (x > 0 ? x : 0.0);
  case UnaryFn::Exp:
    return std::exp(x);
  case UnaryFn::Log:
    return std::log(x);
  case UnaryFn::Sqrt:
    return std::sqrt(x);
  case UnaryFn::Rsqrt:
    return 1.0 / std::sqrt(x);
  case UnaryFn::Tanh:
    return std::tanh(x);
  case UnaryFn::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case UnaryFn::Gelu:
    return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2));
  case UnaryFn::Silu:
    return x / (1.0 + std::exp(-x));
  case UnaryFn::Erf:
    return std::erf(x);
  }
  llvm_unreachable("unknown UnaryFn");
}

// Integer arithmetic runs on uint64_t, where overflow is defined, and the
// caller wraps the result to the element width.
static int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
static int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
static int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

static int64_t unaryInt(UnaryFn fn, int64_t x) {
  switch (fn) {
  case UnaryFn::Neg:
    return wrapSub(0, x);
  case UnaryFn::Abs:
    return x < 0 ? wrapSub(0, x) : x;
  case UnaryFn::Relu:
    return x > 0 ? x : 0;
  default:
    llvm_unreachable("float-only function on integers");
  }
}

static llvm::StringRef unaryName(UnaryFn fn) {
  static const char *names[] = {"neg",     "abs",  "relu",  "exp",
                                "log",     "sqrt", "rsqrt", "tanh",
                                "sigmoid", "gelu", "silu",  "erf"};
  return names[static_cast<int>(fn)];
}

Expected<HostTensor> gpuos::interp::unary(UnaryFn fn, const HostTensor &input) {
  DType dtype = input.getDType();
  if (!input.isFloat() && (isFloatOnly(fn) || dtype == DType::I1))
    return kernelError(unaryName(fn) + " does not apply to " +
                       dtypeName(dtype) + " elements");
  HostTensor result(input.getShape(), dtype);
  for (int64_t i = 0, e = input.getNumElements(); i < e; ++i) {
    if (input.isFloat())
      result.setDouble(i, unaryFloat(fn, input.getDouble(i)));
    else
      result.setInt(i, unaryInt(fn, input.getInt(i)));
  }
  return result;
}

static double binaryFloat(BinaryFn fn, double a, double b) {
  switch (fn) {
  case BinaryFn::Add:
    return a + b;
  case BinaryFn::Sub:
    return a - b;
  case BinaryFn::Mul:
    return a * b;
  case BinaryFn::Div:
    return a / b;
  case BinaryFn::Max:
    return floatMaximum(a, b);
  case BinaryFn::Min:
    return floatMinimum(a, b);
  case BinaryFn::Pow:
    return std::pow(a, b);
  }
  llvm_unreachable("unknown BinaryFn");
}

static int64_t binaryInt(BinaryFn fn, int64_t a, int64_t b) {
  switch (fn) {
  case BinaryFn::Add:
    return wrapAdd(a, b);
  case BinaryFn::Sub:
    return wrapSub(a, b);
  case BinaryFn::Mul:
    return wrapMul(a, b);
  case BinaryFn::Div:
    // Defined where C++ is not: x / 0 is 0, and MIN / -1 wraps to MIN
    // (narrower types get there through the wrap of +2^(w-1)).
    if (b == 0)
      return 0;
    if (b == -1)
      return wrapSub(0, a);
    return a / b;
  case BinaryFn::Max:
    return std::max(a, b);
  case BinaryFn::Min:
    return std::min(a, b);
  case BinaryFn::Pow:
    llvm_unreachable("pow on integers");
  }
  llvm_unreachable("unknown BinaryFn");
}

static llvm::Error checkSameDType(llvm::StringRef op, const HostTensor &lhs,
                                  const HostTensor &rhs) {
  if (lhs.getDType() == rhs.getDType())
    return llvm::Error::success();
  return kernelError(op + " operands have different element types (" +
                     dtypeName(lhs.getDType()) + " and " +
                     dtypeName(rhs.getDType()) + ")");
}

Expected<HostTensor> gpuos::interp::binary(BinaryFn fn, const HostTensor &lhs,
                                           const HostTensor &rhs) {
  if (llvm::Error error = checkSameDType("binary op", lhs, rhs))
    return std::move(error);
  DType dtype = lhs.getDType();
  if (dtype == DType::I1 || (fn == BinaryFn::Pow && !lhs.isFloat()))
    return kernelError(llvm::Twine("arithmetic does not apply to ") +
                       dtypeName(dtype) + " elements");
  Expected<Broadcast> bc = broadcastOperands({&lhs, &rhs});
  if (!bc)
    return bc.takeError();
  HostTensor result(bc->shape, dtype);
  OffsetWalker walker(bc->shape, bc->strides);
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i, walker.next()) {
    int64_t a = walker.offset(0), b = walker.offset(1);
    if (lhs.isFloat())
      result.setDouble(i, binaryFloat(fn, lhs.getDouble(a), rhs.getDouble(b)));
    else
      result.setInt(i, binaryInt(fn, lhs.getInt(a), rhs.getInt(b)));
  }
  return result;
}

template <typename T> static bool comparePair(CompareFn fn, T a, T b) {
  switch (fn) {
  case CompareFn::Eq:
    return a == b;
  case CompareFn::Ne:
    return a != b;
  case CompareFn::Lt:
    return a < b;
  case CompareFn::Le:
    return a <= b;
  case CompareFn::Gt:
    return a > b;
  case CompareFn::Ge:
    return a >= b;
  }
  llvm_unreachable("unknown CompareFn");
}

Expected<HostTensor> gpuos::interp::compare(CompareFn fn, const HostTensor &lhs,
                                            const HostTensor &rhs) {
  if (llvm::Error error = checkSameDType("cmp", lhs, rhs))
    return std::move(error);
  Expected<Broadcast> bc = broadcastOperands({&lhs, &rhs});
  if (!bc)
    return bc.takeError();
  HostTensor result(bc->shape, DType::I1);
  OffsetWalker walker(bc->shape, bc->strides);
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i, walker.next()) {
    int64_t a = walker.offset(0), b = walker.offset(1);
    bool value = lhs.isFloat()
                     ? comparePair(fn, lhs.getDouble(a), rhs.getDouble(b))
                     : comparePair(fn, lhs.getInt(a), rhs.getInt(b));
    result.setInt(i, value);
  }
  return result;
}

Expected<HostTensor> gpuos::interp::select(const HostTensor &cond,
                                           const HostTensor &lhs,
                                           const HostTensor &rhs) {
  if (cond.getDType() != DType::I1)
    return kernelError(llvm::Twine("select needs an i1 condition, got ") +
                       dtypeName(cond.getDType()));
  if (llvm::Error error = checkSameDType("select", lhs, rhs))
    return std::move(error);
  Expected<Broadcast> bc = broadcastOperands({&cond, &lhs, &rhs});
  if (!bc)
    return bc.takeError();
  HostTensor result(bc->shape, lhs.getDType());
  OffsetWalker walker(bc->shape, bc->strides);
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i, walker.next()) {
    bool takeLhs = cond.getInt(walker.offset(0)) != 0;
    const HostTensor &from = takeLhs ? lhs : rhs;
    int64_t at = walker.offset(takeLhs ? 1 : 2);
    if (from.isFloat())
      result.getMutableFloatData()[i] = from.getDouble(at);
    else
      result.getMutableIntData()[i] = from.getInt(at);
  }
  return result;
}

HostTensor gpuos::interp::castTo(const HostTensor &input, DType dtype) {
  HostTensor result(input.getShape(), dtype);
  // setDouble/setInt convert exactly as gpuos.cast specifies.
  for (int64_t i = 0, e = input.getNumElements(); i < e; ++i) {
    if (input.isFloat())
      result.setDouble(i, input.getDouble(i));
    else
      result.setInt(i, input.getInt(i));
  }
  return result;
}
