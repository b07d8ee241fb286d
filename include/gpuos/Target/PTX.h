//===- PTX.h - gpu.module to PTX through LLVM's NVPTX backend ---*- C++ -*-===//
//
// In-process PTX emission: attaches #nvvm.target (chip from --arch) to the
// task module and runs MLIR's NVVM target serializer in assembly mode,
// which translates to LLVM IR, links libdevice from the CUDA toolkit,
// optimizes and emits PTX. No CUDA driver or GPU is involved.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_PTX_H
#define GPUOS_TARGET_PTX_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include <string>

namespace gpuos {

/// The architectures gpuos-jit accepts, and the default.
llvm::ArrayRef<llvm::StringRef> supportedArchs();
constexpr llvm::StringLiteral kDefaultArch = "sm_90";
bool isSupportedArch(llvm::StringRef arch);
/// Whether `arch` has the bulk copy engine's instructions
/// (cp.async.bulk.*: sm_90 and later).
bool hasBulkCopy(llvm::StringRef arch);

/// Where the CUDA toolkit is (for nvvm/libdevice/libdevice.10.bc): the
/// explicit path if given, else $CUDA_HOME, $CUDA_PATH, /usr/local/cuda.
std::string findCudaToolkit(llvm::StringRef explicitPath = {});

struct PTXOptions {
  std::string arch = kDefaultArch.str();
  /// LLVM optimization level, 0 to 3.
  int optLevel = 3;
  /// CUDA toolkit root; empty: findCudaToolkit().
  std::string cudaPath;
  /// Also return the LLVM IR that the NVPTX backend compiled.
  bool wantLLVMIR = false;
};

struct PTXResult {
  std::string ptx;
  std::string llvmIR; // when requested
};

/// Registers what serialization needs: the NVVM target attribute model and
/// the LLVM IR translations of the builtin, gpu, llvm and nvvm dialects.
void registerPTXEmission(mlir::DialectRegistry &registry);

/// Serializes `module` (llvm + nvvm dialects only) to PTX. Errors are
/// emitted as diagnostics on the module.
mlir::FailureOr<PTXResult> emitPTX(mlir::gpu::GPUModuleOp module,
                                   const PTXOptions &options);

} // namespace gpuos

#endif // GPUOS_TARGET_PTX_H
