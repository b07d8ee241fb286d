//===- ReductionKernels.cpp - reduce, argmax, softmax, norms --------------===//

#include "FloatMinMax.h"
#include "Indexing.h"
#include "gpuos/Interpreter/Kernels.h"
#include <cmath>
#include <limits>

using namespace gpuos::interp;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;

static llvm::Error checkAxis(llvm::StringRef op, int64_t axis, int64_t rank) {
  if (axis >= 0 && axis < rank)
    return llvm::Error::success();
  return kernelError(op + " axis " + llvm::Twine(axis) +
                     " is out of range for rank " + llvm::Twine(rank));
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t axis = static_cast<int64_t>(shape.size()) - 2; axis >= 0; --axis)
    strides[axis] = strides[axis + 1] * shape[axis + 1];
  return strides;
}

/// A lane is the run of elements along one axis at fixed other indices:
/// element j of lane (o, i) sits at (o * len + j) * inner + i.
struct Lanes {
  int64_t outer = 1, len, inner = 1;
  Lanes(ArrayRef<int64_t> shape, int64_t axis) : len(shape[axis]) {
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
      inner *= shape[d];
  }
  int64_t count() const { return outer * inner; }
  int64_t base(int64_t lane) const {
    return (lane / inner) * len * inner + lane % inner;
  }
};

Expected<HostTensor> gpuos::interp::reduce(ReduceFn fn, const HostTensor &input,
                                           ArrayRef<int64_t> axes, bool keepdim,
                                           Accumulation acc) {
  int64_t rank = input.getRank();
  DType dtype = input.getDType();
  if (dtype == DType::I1 || (fn == ReduceFn::Mean && !input.isFloat()))
    return kernelError(llvm::Twine("reduce does not apply to ") +
                       dtypeName(dtype) + " elements");
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (llvm::Error error = checkAxis("reduce", axis, rank))
      return std::move(error);
    if (reduced[axis])
      return kernelError("reduce lists axis " + llvm::Twine(axis) + " twice");
    reduced[axis] = true;
  }
  SmallVector<int64_t> keptShape, outShape;
  int64_t reducedCount = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input.getDimSize(d);
    keptShape.push_back(reduced[d] ? 1 : dim);
    if (!reduced[d] || keepdim)
      outShape.push_back(reduced[d] ? 1 : dim);
    if (reduced[d])
      reducedCount *= dim;
  }
  HostTensor result(outShape, dtype);
  int64_t outCount = result.getNumElements();
  if (outCount == 0)
    return result;
  if (reducedCount == 0 && (fn == ReduceFn::Max || fn == ReduceFn::Min))
    return kernelError("reduce max/min over an empty axis has no value");

  // Every input element adds into the output at its kept indices; each
  // output therefore sees its inputs in row-major order of the reduced axes.
  SmallVector<int64_t> toOut = rowMajor(keptShape);
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      toOut[d] = 0;
  SmallVector<SmallVector<int64_t>> sets = {toOut};
  OffsetWalker walker(input.getShape(), sets);
  int64_t inCount = input.getNumElements();

  if (!input.isFloat()) {
    int64_t init = fn == ReduceFn::Max   ? std::numeric_limits<int64_t>::min()
                   : fn == ReduceFn::Min ? std::numeric_limits<int64_t>::max()
                                         : 0;
    std::vector<int64_t> accs(outCount, init);
    for (int64_t i = 0; i < inCount; ++i, walker.next()) {
      int64_t &a = accs[walker.offset(0)];
      int64_t x = input.getInt(i);
      if (fn == ReduceFn::Sum) // wraps; the store below wraps to the width
        a = static_cast<int64_t>(static_cast<uint64_t>(a) +
                                 static_cast<uint64_t>(x));
      else
        a = fn == ReduceFn::Max ? std::max(a, x) : std::min(a, x);
    }
    for (int64_t o = 0; o < outCount; ++o)
      result.setInt(o, accs[o]);
    return result;
  }

  AccRounder round{acc.inF64, dtype};
  double init = fn == ReduceFn::Max   ? -std::numeric_limits<double>::infinity()
                : fn == ReduceFn::Min ? std::numeric_limits<double>::infinity()
                                      : 0.0;
  std::vector<double> accs(outCount, init);
  for (int64_t i = 0; i < inCount; ++i, walker.next()) {
    double &a = accs[walker.offset(0)];
    double x = input.getDouble(i);
    if (fn == ReduceFn::Sum || fn == ReduceFn::Mean)
      a = round(a + x);
    else
      a = fn == ReduceFn::Max ? floatMaximum(a, x) : floatMinimum(a, x);
  }
  for (int64_t o = 0; o < outCount; ++o)
    result.setDouble(o, fn == ReduceFn::Mean
                            ? accs[o] / static_cast<double>(reducedCount)
                            : accs[o]);
  return result;
}

Expected<HostTensor> gpuos::interp::argmax(const HostTensor &input,
                                           int64_t axis, bool keepdim) {
  if (llvm::Error error = checkAxis("argmax", axis, input.getRank()))
    return std::move(error);
  SmallVector<int64_t> outShape;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (d != axis || keepdim)
      outShape.push_back(d == axis ? 1 : input.getDimSize(d));
  HostTensor result(outShape, DType::I64);
  Lanes lanes(input.getShape(), axis);
  if (result.getNumElements() == 0)
    return result;
  if (lanes.len == 0)
    return kernelError("argmax over an empty axis has no value");
  for (int64_t lane = 0; lane < lanes.count(); ++lane) {
    int64_t base = lanes.base(lane), best = 0;
    for (int64_t j = 1; j < lanes.len; ++j) {
      int64_t at = base + j * lanes.inner, bestAt = base + best * lanes.inner;
      if (input.isFloat()) {
        double v = input.getDouble(at), b = input.getDouble(bestAt);
        if (!std::isnan(b) && (std::isnan(v) || v > b))
          best = j;
      } else if (input.getInt(at) > input.getInt(bestAt)) {
        best = j;
      }
    }
    result.setInt(lane, best);
  }
  return result;
}

Expected<HostTensor> gpuos::interp::softmax(const HostTensor &input,
                                            int64_t axis, Accumulation acc) {
  if (!input.isFloat())
    return kernelError(llvm::Twine("softmax needs float elements, got ") +
                       dtypeName(input.getDType()));
  if (llvm::Error error = checkAxis("softmax", axis, input.getRank()))
    return std::move(error);
  HostTensor result(input.getShape(), input.getDType());
  if (result.getNumElements() == 0)
    return result;
  AccRounder round{acc.inF64, input.getDType()};
  Lanes lanes(input.getShape(), axis);
  std::vector<double> exps(lanes.len);
  for (int64_t lane = 0; lane < lanes.count(); ++lane) {
    int64_t base = lanes.base(lane);
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < lanes.len; ++j)
      max = floatMaximum(max, input.getDouble(base + j * lanes.inner));
    double sum = 0;
    for (int64_t j = 0; j < lanes.len; ++j) {
      exps[j] =
          round(std::exp(round(input.getDouble(base + j * lanes.inner) - max)));
      sum = round(sum + exps[j]);
    }
    for (int64_t j = 0; j < lanes.len; ++j)
      result.setDouble(base + j * lanes.inner, exps[j] / sum);
  }
  return result;
}

/// Checks of the norms: float data of rank >= 1, parameters of the last
/// dim's shape and the same element type.
static llvm::Error
checkNorm(llvm::StringRef op, const HostTensor &input,
          ArrayRef<std::pair<const HostTensor *, const char *>> params) {
  if (!input.isFloat() || input.getRank() == 0)
    return kernelError(op + " needs a float operand of rank >= 1, got " +
                       input.getTypeString());
  int64_t features = input.getShape().back();
  for (auto [param, name] : params)
    if (param && (param->getRank() != 1 || param->getDimSize(0) != features ||
                  param->getDType() != input.getDType()))
      return kernelError(
          op + " " + name + " has type " + param->getTypeString() +
          " but needs " + llvm::Twine(features) + "x" +
          dtypeName(input.getDType()) + " (the operand's last dimension)");
  return llvm::Error::success();
}

Expected<HostTensor> gpuos::interp::layerNorm(const HostTensor &input,
                                              const HostTensor *weight,
                                              const HostTensor *bias,
                                              double epsilon,
                                              Accumulation acc) {
  if (llvm::Error error =
          checkNorm("layer_norm", input, {{weight, "weight"}, {bias, "bias"}}))
    return std::move(error);
  HostTensor result(input.getShape(), input.getDType());
  int64_t n = input.getShape().back();
  if (result.getNumElements() == 0)
    return result;
  AccRounder round{acc.inF64, input.getDType()};
  for (int64_t row = 0, rows = input.getNumElements() / n; row < rows; ++row) {
    int64_t base = row * n;
    double sum = 0;
    for (int64_t j = 0; j < n; ++j)
      sum = round(sum + input.getDouble(base + j));
    double mean = round(sum / n);
    double squares = 0;
    for (int64_t j = 0; j < n; ++j) {
      double d = round(input.getDouble(base + j) - mean);
      squares = round(squares + round(d * d));
    }
    double var = round(squares / n);
    double denom = round(std::sqrt(round(var + epsilon)));
    for (int64_t j = 0; j < n; ++j) {
      double y = round(round(input.getDouble(base + j) - mean) / denom);
      if (weight)
        y = round(y * weight->getDouble(j));
      if (bias)
        y = round(y + bias->getDouble(j));
      result.setDouble(base + j, y);
    }
  }
  return result;
}

Expected<HostTensor> gpuos::interp::rmsNorm(const HostTensor &input,
                                            const HostTensor *weight,
                                            double epsilon, Accumulation acc) {
  if (llvm::Error error = checkNorm("rms_norm", input, {{weight, "weight"}}))
    return std::move(error);
  HostTensor result(input.getShape(), input.getDType());
  int64_t n = input.getShape().back();
  if (result.getNumElements() == 0)
    return result;
  AccRounder round{acc.inF64, input.getDType()};
  for (int64_t row = 0, rows = input.getNumElements() / n; row < rows; ++row) {
    int64_t base = row * n;
    double squares = 0;
    for (int64_t j = 0; j < n; ++j) {
      double x = input.getDouble(base + j);
      squares = round(squares + round(x * x));
    }
    double denom = round(std::sqrt(round(round(squares / n) + epsilon)));
    for (int64_t j = 0; j < n; ++j) {
      double y = round(input.getDouble(base + j) / denom);
      if (weight)
        y = round(y * weight->getDouble(j));
      result.setDouble(base + j, y);
    }
  }
  return result;
}
