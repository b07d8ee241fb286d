//===- HostTensor.cpp - a dense host buffer for the interpreter -----------===//

#include "gpuos/Interpreter/HostTensor.h"
#include "llvm/Support/Format.h"
#include <cassert>
#include <cmath>

using namespace gpuos::interp;
using llvm::ArrayRef;

std::optional<int64_t>
gpuos::interp::hostElementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    assert(dim >= 0 && "hostElementCount needs non-negative dimensions");
    if (dim == 0)
      return 0;
    if (count > kMaxHostElements / dim)
      count = kMaxHostElements + 1; // keep scanning: a later 0 empties it
    else
      count *= dim;
  }
  if (count > kMaxHostElements)
    return std::nullopt;
  return count;
}

HostTensor::HostTensor(ArrayRef<int64_t> shape, DType dtype)
    : shape(shape), dtype(dtype), numElements(1) {
  for (int64_t dim : shape) {
    assert(dim >= 0 && "HostTensor needs static, non-negative dimensions");
    numElements *= dim;
  }
  if (isFloat())
    floats.assign(numElements, 0.0);
  else
    ints.assign(numElements, 0);
}

HostTensor HostTensor::fromDoubles(ArrayRef<int64_t> shape, DType dtype,
                                   ArrayRef<double> values) {
  HostTensor tensor(shape, dtype);
  assert(static_cast<int64_t>(values.size()) == tensor.numElements &&
         "value count differs from the shape's element count");
  for (auto [i, value] : llvm::enumerate(values))
    tensor.setDouble(i, value);
  return tensor;
}

HostTensor HostTensor::fromInts(ArrayRef<int64_t> shape, DType dtype,
                                ArrayRef<int64_t> values) {
  HostTensor tensor(shape, dtype);
  assert(static_cast<int64_t>(values.size()) == tensor.numElements &&
         "value count differs from the shape's element count");
  for (auto [i, value] : llvm::enumerate(values))
    tensor.setInt(i, value);
  return tensor;
}

llvm::SmallVector<int64_t> HostTensor::getStrides() const {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t axis = getRank() - 2; axis >= 0; --axis)
    strides[axis] = strides[axis + 1] * shape[axis + 1];
  return strides;
}

void HostTensor::setDouble(int64_t flat, double value) {
  if (isFloat())
    floats[flat] = roundToFloat(value, dtype);
  else
    ints[flat] = floatToInt(value, dtype);
}

void HostTensor::setInt(int64_t flat, int64_t value) {
  if (isFloat())
    floats[flat] = intToFloat(value, dtype);
  else
    ints[flat] = wrapToInt(value, dtype);
}

int64_t HostTensor::flatIndex(ArrayRef<int64_t> index) const {
  assert(index.size() == shape.size() && "index rank differs");
  int64_t flat = 0;
  for (auto [i, dim] : llvm::zip(index, shape))
    flat = flat * dim + i;
  return flat;
}

double HostTensor::at(ArrayRef<int64_t> index) const {
  return getDouble(flatIndex(index));
}

std::string HostTensor::getTypeString() const {
  std::string text;
  for (int64_t dim : shape)
    text += std::to_string(dim) + "x";
  return text + dtypeName(dtype).str();
}

void HostTensor::print(llvm::raw_ostream &os, int64_t limit) const {
  os << getTypeString() << " [";
  int64_t count = std::min(limit, numElements);
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      os << ", ";
    if (isFloat())
      os << llvm::format("%.6g", floats[i]);
    else
      os << ints[i];
  }
  if (count < numElements)
    os << ", ...";
  os << "]";
}

HostTensor gpuos::interp::makeRandom(ArrayRef<int64_t> shape, DType dtype,
                                     std::mt19937_64 &rng, double lo,
                                     double hi) {
  HostTensor tensor(shape, dtype);
  int64_t count = tensor.getNumElements();
  if (isFloat(dtype)) {
    for (int64_t i = 0; i < count; ++i) {
      double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      tensor.setDouble(i, lo + (hi - lo) * unit);
    }
    return tensor;
  }
  int64_t ilo = dtype == DType::I1 ? 0 : static_cast<int64_t>(std::ceil(lo));
  int64_t ihi = dtype == DType::I1 ? 2 : static_cast<int64_t>(std::ceil(hi));
  uint64_t span = ihi > ilo ? static_cast<uint64_t>(ihi - ilo) : 1;
  for (int64_t i = 0; i < count; ++i)
    tensor.setInt(i, ilo + static_cast<int64_t>(rng() % span));
  return tensor;
}

HostTensor gpuos::interp::makeRandom(ArrayRef<int64_t> shape, DType dtype,
                                     uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  return makeRandom(shape, dtype, rng, lo, hi);
}

CompareResult gpuos::interp::compareTensors(const HostTensor &actual,
                                            const HostTensor &expected,
                                            const CompareOptions &options) {
  CompareResult result;
  llvm::raw_string_ostream os(result.message);
  if (actual.getShape() != expected.getShape() ||
      (options.checkDType && actual.getDType() != expected.getDType())) {
    os << "type mismatch: actual " << actual.getTypeString() << ", expected "
       << expected.getTypeString();
    result.numMismatches = std::max(actual.getNumElements(), int64_t(1));
    return result;
  }
  for (int64_t i = 0, e = actual.getNumElements(); i < e; ++i) {
    double a = actual.getDouble(i), x = expected.getDouble(i);
    bool match;
    if (std::isnan(a) || std::isnan(x)) {
      match = options.nanEqual && std::isnan(a) && std::isnan(x);
    } else if (std::isinf(a) || std::isinf(x)) {
      match = a == x;
    } else {
      double abs = std::fabs(a - x);
      result.maxAbsError = std::max(result.maxAbsError, abs);
      if (x != 0)
        result.maxRelError = std::max(result.maxRelError, abs / std::fabs(x));
      match = abs <= options.atol + options.rtol * std::fabs(x);
    }
    if (match)
      continue;
    if (result.numMismatches++ == 0)
      result.firstMismatch = i;
  }
  result.ok = result.numMismatches == 0;
  if (!result.ok) {
    int64_t i = result.firstMismatch;
    os << result.numMismatches << " of " << actual.getNumElements()
       << " elements differ (atol " << options.atol << ", rtol " << options.rtol
       << "); first at flat index " << i << ": actual "
       << llvm::format("%.9g", actual.getDouble(i)) << ", expected "
       << llvm::format("%.9g", expected.getDouble(i)) << "; max abs error "
       << llvm::format("%.3g", result.maxAbsError) << ", max rel error "
       << llvm::format("%.3g", result.maxRelError);
  }
  return result;
}
