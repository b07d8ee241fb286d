//===- BackgroundL2.h - the --background-l2 option of the tools -*- C++ -*-===//
//
// gpuos-jit and gpuos-sim-check take the same --background-l2 option
// (LowerTasksOptions::backgroundEvictFirst): one definition of its values,
// so that the simulation lowers as the compiler does. Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TOOLS_BACKGROUNDL2_H
#define GPUOS_TOOLS_BACKGROUNDL2_H

#include "llvm/Support/CommandLine.h"

namespace gpuos::tools {

enum class BackgroundL2 { Normal, EvictFirst };

/// The option's values, for a tool's `cl::opt<BackgroundL2>`.
inline auto backgroundL2Values() {
  return llvm::cl::values(
      clEnumValN(BackgroundL2::Normal, "normal", "the default policy"),
      clEnumValN(BackgroundL2::EvictFirst, "evict-first",
                 "background tasks' global accesses evict first from L2, "
                 "leaving urgent graphs' data there"));
}

} // namespace gpuos::tools

#endif // GPUOS_TOOLS_BACKGROUNDL2_H
