# -*- Python -*- lit configuration of the gpuos test suite.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "GPUOS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gpuos_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "corpus"]

# FileCheck captures stay local to each CHECK-LABEL section.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# `not` at the start of a RUN line is found on PATH, not substituted.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.gpuos_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["gpuos-opt", "gpuos-interp", "gpuos-fuzz-replay"], tool_dirs)
