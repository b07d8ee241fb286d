//===- RandomGraph.h - seeded random gpuos graphs ---------------*- C++ -*-===//
//
// Builds a valid random gpuos.graph from a seed, for differential testing of
// the passes against the interpreter (gpuos-difftest). Graphs mix every op
// family: elementwise unary and binary ops with numpy broadcasting, casts,
// cmp + select, views (transpose, slice, broadcast, reshape of contiguous
// values), reductions with and without keepdim, argmax, softmax,
// layer_norm and rms_norm, matmuls (batched, transposed, micro-batches
// through one weight), concat and constants; plus the softmax, norm and
// micro-batch patterns the fusion passes look for. Mostly f32, some f16,
// bf16, f64 and i32. Shapes are small and static. log, sqrt, rsqrt and the
// base of pow only see positive values (abs, then + 0.5), pow's exponent is
// squashed by tanh. Every op result reaches an output. The same seed and
// options give the same graph.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TESTING_RANDOMGRAPH_H
#define GPUOS_TESTING_RANDOMGRAPH_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include <cstdint>

namespace gpuos::testing {

struct RandomGraphOptions {
  /// Number of generation steps; each adds one op or a small pattern.
  unsigned minSteps = 4;
  unsigned maxSteps = 32;
  /// Largest dimension and largest element count of any value.
  int64_t maxDim = 64;
  int64_t maxElements = 2048;
  /// Highest rank of generated inputs.
  unsigned maxRank = 4;
  /// Share of f16, bf16, f64 and i32 inputs, in percent, each.
  unsigned percentF16 = 6, percentBF16 = 6, percentF64 = 5, percentI32 = 8;
};

/// Appends graph `@name` built from `seed` to the end of `module`'s body and
/// returns it. The graph verifies.
GraphOp buildRandomGraph(mlir::ModuleOp module, uint64_t seed,
                         llvm::StringRef name,
                         const RandomGraphOptions &options = {});

} // namespace gpuos::testing

#endif // GPUOS_TESTING_RANDOMGRAPH_H
