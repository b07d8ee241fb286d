//===- Indexing.h - index walks shared by the kernels -----------*- C++ -*-===//

#ifndef GPUOS_LIB_INTERPRETER_INDEXING_H
#define GPUOS_LIB_INTERPRETER_INDEXING_H

#include "gpuos/Interpreter/HostTensor.h"
#include "llvm/Support/Error.h"
#include <string>

namespace gpuos::interp {

/// "4x8" ("scalar" for rank 0), for runtime error messages.
std::string shapeString(llvm::ArrayRef<int64_t> shape);

/// An llvm::Error carrying `message`.
llvm::Error kernelError(const llvm::Twine &message);

/// Strides that read a row-major tensor of `inShape` at the indices of
/// `outShape` under numpy broadcasting: right-aligned, 0 on stretched and
/// missing leading dims. `inShape` must broadcast to `outShape`.
llvm::SmallVector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> inShape,
                                            llvm::ArrayRef<int64_t> outShape);

/// Walks the indices of `shape` in row-major order while keeping, for each
/// stride set, the offset sum(index[d] * strides[d]) up to date.
class OffsetWalker {
public:
  OffsetWalker(llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<llvm::SmallVector<int64_t>> strideSets)
      : shape(shape), strides(strideSets), index(shape.size(), 0),
        offsets(strideSets.size(), 0) {}

  int64_t offset(unsigned set) const { return offsets[set]; }

  /// Steps to the next index; the last step wraps to all zeros.
  void next() {
    for (int64_t axis = static_cast<int64_t>(shape.size()) - 1; axis >= 0;
         --axis) {
      for (unsigned s = 0; s < offsets.size(); ++s)
        offsets[s] += strides[s][axis];
      if (++index[axis] < shape[axis])
        return;
      for (unsigned s = 0; s < offsets.size(); ++s)
        offsets[s] -= strides[s][axis] * shape[axis];
      index[axis] = 0;
    }
  }

private:
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<llvm::SmallVector<int64_t>> strides;
  llvm::SmallVector<int64_t> index;
  llvm::SmallVector<int64_t> offsets;
};

/// Rounds intermediates of a reduction: to `type` when accumulating in the
/// element type, not at all when accumulating in f64.
struct AccRounder {
  bool exact;
  DType type;
  double operator()(double value) const {
    return exact ? value : roundToFloat(value, type);
  }
};

/// A tensor of `shape` whose element at index i is input's element at
/// base + sum(i[d] * strides[d]): how every view materializes.
HostTensor gather(const HostTensor &input, llvm::ArrayRef<int64_t> shape,
                  int64_t base, llvm::ArrayRef<int64_t> strides);

} // namespace gpuos::interp

#endif // GPUOS_LIB_INTERPRETER_INDEXING_H
