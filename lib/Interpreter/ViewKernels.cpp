//===- ViewKernels.cpp - broadcast, reshape, transpose, slice, concat -----===//
//
// The dialect's views only restride their operand; the interpreter keeps
// every value contiguous, so a view materializes by reading the operand at
// the view's strides.
//
//===----------------------------------------------------------------------===//

#include "Indexing.h"
#include "gpuos/Interpreter/Kernels.h"

using namespace gpuos::interp;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;

Expected<SmallVector<int64_t>>
gpuos::interp::broadcastRuntimeShapes(ArrayRef<const HostTensor *> operands) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (const HostTensor *operand : operands)
    shapes.emplace_back(operand->getShape());
  return broadcastRuntimeShapes(shapes);
}

Expected<SmallVector<int64_t>>
gpuos::interp::broadcastRuntimeShapes(ArrayRef<SmallVector<int64_t>> shapes) {
  size_t rank = 0;
  for (const SmallVector<int64_t> &shape : shapes)
    rank = std::max(rank, shape.size());
  SmallVector<int64_t> result(rank, 1);
  for (const SmallVector<int64_t> &shape : shapes) {
    size_t lead = rank - shape.size();
    for (auto [i, dim] : llvm::enumerate(shape)) {
      int64_t &out = result[lead + i];
      if (dim == out || dim == 1)
        continue;
      if (out != 1) {
        std::string list;
        for (auto [n, s] : llvm::enumerate(shapes))
          list += (n ? ", " : "") + shapeString(s);
        return kernelError("operand shapes " + list +
                           " do not broadcast: size " + llvm::Twine(out) +
                           " vs " + llvm::Twine(dim) + " at result axis " +
                           llvm::Twine(lead + i));
      }
      out = dim;
    }
  }
  if (!hostElementCount(result))
    return kernelError("the broadcast shape " + shapeString(result) +
                       " has more elements than the interpreter holds (" +
                       llvm::Twine(kMaxHostElements) + ")");
  return result;
}

Expected<HostTensor> gpuos::interp::broadcastTo(const HostTensor &input,
                                                ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> have = input.getShape();
  bool ok = have.size() <= shape.size();
  for (size_t i = 0; ok && i < have.size(); ++i) {
    int64_t want = shape[shape.size() - have.size() + i];
    ok = want >= 0 && (have[i] == want || have[i] == 1);
  }
  if (!ok)
    return kernelError("cannot broadcast shape " + shapeString(have) + " to " +
                       shapeString(shape));
  return gather(input, shape, 0, broadcastStrides(have, shape));
}

Expected<HostTensor> gpuos::interp::reshape(const HostTensor &input,
                                            ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return kernelError("reshape target " + shapeString(shape) +
                         " has a negative dimension");
    count *= dim;
  }
  if (count != input.getNumElements())
    return kernelError("cannot reshape " + shapeString(input.getShape()) +
                       " (" + llvm::Twine(input.getNumElements()) +
                       " elements) to " + shapeString(shape) + " (" +
                       llvm::Twine(count) + " elements)");
  // Row-major data reads the same under the new shape.
  HostTensor result(shape, input.getDType());
  if (input.isFloat())
    llvm::copy(input.getFloatData(), result.getMutableFloatData().begin());
  else
    llvm::copy(input.getIntData(), result.getMutableIntData().begin());
  return result;
}

Expected<HostTensor> gpuos::interp::transpose(const HostTensor &input,
                                              ArrayRef<int64_t> permutation) {
  int64_t rank = input.getRank();
  SmallVector<bool> seen(rank, false);
  bool ok = static_cast<int64_t>(permutation.size()) == rank;
  for (int64_t axis : permutation) {
    ok = ok && axis >= 0 && axis < rank && !seen[axis];
    if (ok)
      seen[axis] = true;
  }
  if (!ok)
    return kernelError("invalid permutation for an operand of rank " +
                       llvm::Twine(rank));
  SmallVector<int64_t> inStrides = input.getStrides(), shape, strides;
  for (int64_t axis : permutation) {
    shape.push_back(input.getDimSize(axis));
    strides.push_back(inStrides[axis]);
  }
  return gather(input, shape, 0, strides);
}

Expected<HostTensor> gpuos::interp::slice(const HostTensor &input,
                                          ArrayRef<int64_t> starts,
                                          ArrayRef<int64_t> sizes,
                                          ArrayRef<int64_t> steps) {
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(steps.size()) != rank)
    return kernelError("slice needs one start, size and step per dimension");
  SmallVector<int64_t> inStrides = input.getStrides(), strides;
  int64_t base = 0;
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t last = starts[axis] + (sizes[axis] - 1) * steps[axis];
    if (starts[axis] < 0 || sizes[axis] < 0 || steps[axis] < 1 ||
        (sizes[axis] > 0 && last >= input.getDimSize(axis)))
      return kernelError("slice of dimension " + llvm::Twine(axis) +
                         " (start " + llvm::Twine(starts[axis]) + ", size " +
                         llvm::Twine(sizes[axis]) + ", step " +
                         llvm::Twine(steps[axis]) +
                         ") reads past its runtime size " +
                         llvm::Twine(input.getDimSize(axis)));
    base += starts[axis] * inStrides[axis];
    strides.push_back(inStrides[axis] * steps[axis]);
  }
  return gather(input, sizes, base, strides);
}

Expected<HostTensor> gpuos::interp::concat(ArrayRef<const HostTensor *> inputs,
                                           int64_t axis) {
  if (inputs.empty())
    return kernelError("concat needs at least one operand");
  const HostTensor &first = *inputs.front();
  if (axis < 0 || axis >= first.getRank())
    return kernelError("concat axis " + llvm::Twine(axis) +
                       " is out of range for rank " +
                       llvm::Twine(first.getRank()));
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (auto [n, input] : llvm::enumerate(inputs)) {
    bool ok = input->getDType() == first.getDType() &&
              input->getRank() == first.getRank();
    for (int64_t d = 0; ok && d < first.getRank(); ++d)
      ok = d == axis || input->getDimSize(d) == first.getDimSize(d);
    if (!ok)
      return kernelError(
          "concat operand " + llvm::Twine(n) + " of type " +
          input->getTypeString() + " does not match operand 0 of type " +
          first.getTypeString() + " outside axis " + llvm::Twine(axis));
    shape[axis] += input->getDimSize(axis);
  }
  HostTensor result(shape, first.getDType());
  // Each operand contributes, for every outer index, one contiguous chunk
  // of dim(axis) * inner elements.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < first.getRank(); ++d)
    inner *= shape[d];
  int64_t rowOut = shape[axis] * inner, column = 0;
  for (const HostTensor *input : inputs) {
    int64_t chunk = input->getDimSize(axis) * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < chunk; ++i) {
        int64_t from = o * chunk + i, to = o * rowOut + column + i;
        if (result.isFloat())
          result.getMutableFloatData()[to] = input->getFloatData()[from];
        else
          result.getMutableIntData()[to] = input->getIntData()[from];
      }
    column += chunk;
  }
  return result;
}
