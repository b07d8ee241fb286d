//===- PTX.cpp - gpu.module to PTX through LLVM's NVPTX backend -----------===//

#include "gpuos/Target/PTX.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace mlir;
using namespace gpuos;

ArrayRef<StringRef> gpuos::supportedArchs() {
  static const StringRef archs[] = {"sm_80", "sm_89", "sm_90", "sm_100"};
  return archs;
}

bool gpuos::isSupportedArch(StringRef arch) {
  return llvm::is_contained(supportedArchs(), arch);
}

bool gpuos::hasBulkCopy(StringRef arch) {
  return arch != "sm_80" && arch != "sm_89";
}

/// One PTX ISA version for every arch: 8.6 is the first with sm_100, and
/// CUDA 13's nvJitLink and ptxas accept it. Pinning it keeps the PTX the
/// same whatever LLVM's default is.
static constexpr StringLiteral kPtxFeatures = "+ptx86";

static bool hasLibdevice(StringRef root) {
  SmallString<256> path(root);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::is_regular_file(path);
}

std::string gpuos::findCudaToolkit(StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(var); value && *value && hasLibdevice(value))
      return value;
  if (hasLibdevice("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

void gpuos::registerPTXEmission(DialectRegistry &registry) {
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

/// True when the module calls a libdevice function (__nv_*).
static bool usesLibdevice(gpu::GPUModuleOp module) {
  bool uses = false;
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal() && func.getName().starts_with("__nv_"))
      uses = true;
  });
  return uses;
}

FailureOr<PTXResult> gpuos::emitPTX(gpu::GPUModuleOp module,
                                    const PTXOptions &options) {
  MLIRContext *context = module.getContext();
  if (!isSupportedArch(options.arch))
    return module.emitError() << "unsupported architecture '" << options.arch
                              << "'";
  std::string cuda = findCudaToolkit(options.cudaPath);
  if (usesLibdevice(module) && !hasLibdevice(cuda))
    return module.emitError()
           << "the task functions call libdevice, but no CUDA toolkit with "
              "nvvm/libdevice/libdevice.10.bc was found (looked in "
           << (cuda.empty() ? std::string("$CUDA_HOME, $CUDA_PATH, "
                                          "/usr/local/cuda")
                            : cuda)
           << "); pass --cuda-path";

  auto target = NVVM::NVVMTargetAttr::get(context, options.optLevel,
                                          "nvptx64-nvidia-cuda", options.arch,
                                          kPtxFeatures);
  module.setTargetsAttr(ArrayAttr::get(context, {target}));

  PTXResult result;
  auto keepIR = [&](llvm::Module &llvmModule) {
    if (!options.wantLLVMIR)
      return;
    llvm::raw_string_ostream os(result.llvmIR);
    llvmModule.print(os, nullptr);
  };
  // The serializer links libdevice itself when it finds the toolkit.
  gpu::TargetOptions targetOptions(
      hasLibdevice(cuda) ? cuda : "", /*librariesToLink=*/{},
      /*cmdOptions=*/"", /*elfSection=*/"", gpu::CompilationTarget::Assembly,
      /*getSymbolTableCallback=*/{}, /*initialLlvmIRCallback=*/{},
      /*linkedLlvmIRCallback=*/{}, /*optimizedLlvmIRCallback=*/keepIR);
  auto iface = cast<gpu::TargetAttrInterface>(target);
  std::optional<SmallVector<char, 0>> object =
      iface.serializeToObject(module, targetOptions);
  if (!object)
    return module.emitError() << "PTX emission for " << options.arch
                              << " failed";
  result.ptx.assign(object->begin(), object->end());
  // The serializer may return a trailing NUL.
  while (!result.ptx.empty() && result.ptx.back() == '\0')
    result.ptx.pop_back();
  return result;
}
