# -*- Python -*- lit configuration of the gpuos test suite.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "GPUOS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gpuos_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "corpus", "Inputs"]

# FileCheck captures stay local to each CHECK-LABEL section.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# `not` at the start of a RUN line is found on PATH, not substituted.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.gpuos_tools_dir, config.llvm_tools_dir]
# Scripts that take the build directory (BUILD_DIR=...).
config.substitutions.append(("%gpuos_obj_root", config.gpuos_obj_root))
llvm_config.add_tool_substitutions(["gpuos-opt", "gpuos-interp", "gpuos-fuzz-replay"], tool_dirs)
# Differential testing of the pass pipeline (test/Difftest).
llvm_config.add_tool_substitutions(["gpuos-difftest"], tool_dirs)
# Code generation (test/Conversion, test/Target): gpuos-jit, and the GPU
# check's vector generator and CPU simulation (tools/gpuos-gpu-check).
llvm_config.add_tool_substitutions(["gpuos-jit", "gpuos-jit-core", "gpuos-check-gen", "gpuos-sim-check"], tool_dirs)
# --emit=image needs nvJitLink (CUDA 13), opened at run time by gpuos-jit.
for d in [os.environ.get("CUDA_HOME", "") + "/lib64", "/usr/local/cuda/lib64"]:
    if os.path.exists(os.path.join(d, "libnvJitLink.so.13")):
        config.available_features.add("nvjitlink")
        config.substitutions.append(("%nvjitlink_lib", os.path.join(d, "libnvJitLink.so.13")))
        break
# gpuos.custom sources are compiled with NVRTC (CUDA 13), opened at run time.
if any(os.path.exists(os.path.join(d, "libnvrtc.so.13")) for d in
       [os.environ.get("CUDA_HOME", "") + "/lib64", "/usr/local/cuda/lib64"]):
    config.available_features.add("nvrtc")
# PTX of tasks that call exp, tanh, erf ... needs CUDA's libdevice.
if any(os.path.exists(os.path.join(d, "nvvm/libdevice/libdevice.10.bc")) for d in
       [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"] if d):
    config.available_features.add("libdevice")
