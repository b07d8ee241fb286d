//===- HostTensor.cpp - a dense host buffer for the interpreter -----------===//

#include "gpuos/Interpreter/HostTensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include <cassert>
#include <cmath>
#include <vector>

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

/// True when no two elements of `shape` under `strides` share an address:
/// the dimensions sorted by stride each step past everything the smaller
/// ones reach.
static bool layoutHasNoOverlap(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  llvm::SmallVector<std::pair<int64_t, int64_t>> dims; // (stride, size)
  for (auto [size, stride] : llvm::zip(shape, strides))
    if (size > 1)
      dims.push_back({stride, size});
  llvm::sort(dims);
  int64_t reach = 1; // largest offset the smaller dimensions reach, plus 1
  for (auto [stride, size] : dims) {
    if (stride < reach)
      return false;
    reach += stride * (size - 1);
  }
  return true;
}

void gpuos::interp::makeConsistentWithLayout(HostTensor &tensor, ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> shape = tensor.getShape();
  // (A negative stride is also how a dynamic one reads: not handled.)
  if (tensor.getNumElements() == 0 || strides.size() != shape.size() ||
      llvm::any_of(strides, [](int64_t s) { return s < 0; }) ||
      layoutHasNoOverlap(shape, strides))
    return;
  int64_t span = 1;
  for (auto [size, stride] : llvm::zip(shape, strides))
    span += (size - 1) * stride;
  // The first element (row-major) at each address; -1: none yet.
  std::vector<int64_t> first(span, -1);
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < tensor.getNumElements(); ++flat) {
    int64_t address = 0;
    for (size_t axis = 0; axis < shape.size(); ++axis)
      address += index[axis] * strides[axis];
    if (first[address] < 0)
      first[address] = flat;
    else if (tensor.isFloat())
      tensor.setDouble(flat, tensor.getDouble(first[address]));
    else
      tensor.setInt(flat, tensor.getInt(first[address]));
    for (int64_t axis = int64_t(shape.size()) - 1; axis >= 0; --axis) {
      if (++index[axis] < shape[axis])
        break;
      index[axis] = 0;
    }
  }
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
