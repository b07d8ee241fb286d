//===- HostTensor.h - a dense host buffer for the interpreter ---*- C++ -*-===//
//
// A contiguous row-major tensor on the host: the values the interpreter
// reads and produces, and what tests compare device results against. Float
// elements are held as doubles already rounded to the element type;
// integer elements as int64_t already wrapped to theirs, so i64 stays
// exact (a double cannot hold every i64).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_INTERPRETER_HOSTTENSOR_H
#define GPUOS_INTERPRETER_HOSTTENSOR_H

#include "gpuos/Interpreter/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace gpuos::interp {

/// The most elements one host tensor may hold. Values are held as 8-byte
/// doubles or int64s, so this is 8 GiB; the interpreter refuses larger
/// shapes with an error rather than failing to allocate.
constexpr int64_t kMaxHostElements = int64_t(1) << 30;

/// The element count of `shape`, or nullopt when it exceeds
/// kMaxHostElements (or overflows). Dimensions must be >= 0.
std::optional<int64_t> hostElementCount(llvm::ArrayRef<int64_t> shape);

class HostTensor {
public:
  HostTensor() = default;
  /// A zero-filled tensor. Every dimension must be >= 0.
  HostTensor(llvm::ArrayRef<int64_t> shape, DType dtype);

  /// Builds from values, converting each to `dtype` as gpuos.cast would
  /// (floats round, floats to integers truncate and saturate).
  static HostTensor fromDoubles(llvm::ArrayRef<int64_t> shape, DType dtype,
                                llvm::ArrayRef<double> values);
  /// Builds from integers, wrapping (integer dtypes) or rounding (floats).
  static HostTensor fromInts(llvm::ArrayRef<int64_t> shape, DType dtype,
                             llvm::ArrayRef<int64_t> values);

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getDimSize(int64_t axis) const { return shape[axis]; }
  int64_t getNumElements() const { return numElements; }
  DType getDType() const { return dtype; }
  bool isFloat() const { return interp::isFloat(dtype); }
  /// Row-major strides of the shape.
  llvm::SmallVector<int64_t> getStrides() const;

  /// Element `flat` (row-major) as a double; exact for floats, rounded for
  /// integers beyond 2^53.
  double getDouble(int64_t flat) const {
    return isFloat() ? floats[flat] : static_cast<double>(ints[flat]);
  }
  /// Element `flat` as an integer; floats convert as a cast to i64 would.
  int64_t getInt(int64_t flat) const {
    return isFloat() ? floatToInt(floats[flat], DType::I64) : ints[flat];
  }
  /// Stores `value` converted to the element type (see fromDoubles).
  void setDouble(int64_t flat, double value);
  /// Stores `value` converted to the element type (see fromInts).
  void setInt(int64_t flat, int64_t value);
  /// Element at a multi-index.
  double at(llvm::ArrayRef<int64_t> index) const;
  int64_t flatIndex(llvm::ArrayRef<int64_t> index) const;

  /// Raw storage: floats for float dtypes, ints for integer ones.
  llvm::ArrayRef<double> getFloatData() const { return floats; }
  llvm::ArrayRef<int64_t> getIntData() const { return ints; }
  /// Writable storage for kernels that copy already-rounded elements;
  /// writers must keep every value representable in the dtype.
  llvm::MutableArrayRef<double> getMutableFloatData() { return floats; }
  llvm::MutableArrayRef<int64_t> getMutableIntData() { return ints; }

  /// "4x8xf32".
  std::string getTypeString() const;
  /// Prints the type and the first `limit` elements.
  void print(llvm::raw_ostream &os, int64_t limit = 16) const;

private:
  llvm::SmallVector<int64_t> shape;
  DType dtype = DType::F32;
  int64_t numElements = 0;
  std::vector<double> floats;
  std::vector<int64_t> ints;
};

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// A tensor of values drawn from `rng` in row-major order. Floats are
/// lo + (hi - lo) * u with u = (rng() >> 11) * 2^-53, uniform in [lo, hi),
/// then rounded to `dtype`; integers are lo + rng() % (hi - lo), in
/// [lo, hi), then wrapped (i1 draws from {0, 1} whatever the range). The
/// formulas are spelled out so another harness can reproduce the inputs
/// from a std::mt19937_64 stream.
HostTensor makeRandom(llvm::ArrayRef<int64_t> shape, DType dtype,
                      std::mt19937_64 &rng, double lo, double hi);
/// As above with a fresh generator seeded with `seed`.
HostTensor makeRandom(llvm::ArrayRef<int64_t> shape, DType dtype, uint64_t seed,
                      double lo, double hi);
/// Makes `tensor` a value its layout can hold: where `strides` (in
/// elements, static) map several elements to one address (a stride of 0,
/// a broadcast view), each takes the value of the first of them in
/// row-major order. Random inputs of such types need it: memory holds one
/// value per address, so distinct draws there are a tensor no device
/// buffer can hold. A layout without overlap is left as it is.
void makeConsistentWithLayout(HostTensor &tensor, llvm::ArrayRef<int64_t> strides);

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

struct CompareOptions {
  double atol = 1e-5;
  double rtol = 1e-5;
  /// NaN matches NaN; otherwise any NaN is a mismatch.
  bool nanEqual = true;
  /// Element types must agree; off, values compare as doubles (say an f16
  /// device result against an f64 reference).
  bool checkDType = true;
};

struct CompareResult {
  /// True when shapes and dtypes agree and every element satisfies
  /// |actual - expected| <= atol + rtol * |expected| (numpy.allclose).
  bool ok = false;
  double maxAbsError = 0;
  /// Largest |actual - expected| / |expected| over elements with a non-zero
  /// expected value.
  double maxRelError = 0;
  int64_t numMismatches = 0;
  /// Row-major index of the first mismatch, -1 when there is none.
  int64_t firstMismatch = -1;
  /// Empty when ok; otherwise why, with the first mismatching values.
  std::string message;
};

/// Compares `actual` against the reference `expected`. Infinities match only
/// an equal infinity. A shape difference, or a dtype one under checkDType,
/// is a mismatch reported in `message`.
CompareResult compareTensors(const HostTensor &actual,
                             const HostTensor &expected,
                             const CompareOptions &options = {});

} // namespace gpuos::interp

#endif // GPUOS_INTERPRETER_HOSTTENSOR_H
