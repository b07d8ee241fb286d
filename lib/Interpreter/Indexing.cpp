//===- Indexing.cpp - index walks shared by the kernels -------------------===//

#include "Indexing.h"

using namespace gpuos::interp;
using llvm::ArrayRef;
using llvm::SmallVector;

std::string gpuos::interp::shapeString(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (auto [i, dim] : llvm::enumerate(shape))
    text += (i ? "x" : "") + std::to_string(dim);
  return text;
}

llvm::Error gpuos::interp::kernelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

SmallVector<int64_t>
gpuos::interp::broadcastStrides(ArrayRef<int64_t> inShape,
                                ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> strides(outShape.size(), 0);
  size_t lead = outShape.size() - inShape.size();
  int64_t running = 1;
  for (int64_t axis = static_cast<int64_t>(inShape.size()) - 1; axis >= 0;
       --axis) {
    // A size-1 dim reads its one element whatever the index.
    if (inShape[axis] != 1)
      strides[lead + axis] = running;
    running *= inShape[axis];
  }
  return strides;
}

HostTensor gpuos::interp::gather(const HostTensor &input,
                                 ArrayRef<int64_t> shape, int64_t base,
                                 ArrayRef<int64_t> strides) {
  HostTensor result(shape, input.getDType());
  SmallVector<SmallVector<int64_t>> sets = {SmallVector<int64_t>(strides)};
  OffsetWalker walker(shape, sets);
  int64_t count = result.getNumElements();
  // Same dtype on both sides: copy the stored values unchanged.
  if (input.isFloat()) {
    ArrayRef<double> in = input.getFloatData();
    llvm::MutableArrayRef<double> out = result.getMutableFloatData();
    for (int64_t i = 0; i < count; ++i, walker.next())
      out[i] = in[base + walker.offset(0)];
  } else {
    ArrayRef<int64_t> in = input.getIntData();
    llvm::MutableArrayRef<int64_t> out = result.getMutableIntData();
    for (int64_t i = 0; i < count; ++i, walker.next())
      out[i] = in[base + walker.offset(0)];
  }
  return result;
}
