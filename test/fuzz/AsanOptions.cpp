//===- AsanOptions.cpp - ASan defaults of GPUOS_ENABLE_FUZZER builds ------===//
//
// With GPUOS_ENABLE_FUZZER=ON the gpuos libraries are built with ASan, and
// test/fuzz/CMakeLists.txt adds this file to every executable that links
// them (the fuzzer, the replay driver, gpuos-opt, the unit tests ...).
//
// LLVM's BumpPtrAllocator poisons its slabs with ASan's manual-poisoning API
// when the code including it is built with ASan. Only our objects are; the
// prebuilt MLIR archives are not, and the linker keeps one copy of each
// inline allocator function, so a slab poisoned by an instrumented copy gets
// handed out by an uninstrumented one: a false "use-after-poison" inside
// MLIRContext construction. Manual poisoning is all this turns off; heap,
// stack and global checks stay. ASAN_OPTIONS still overrides it.
//
//===----------------------------------------------------------------------===//

extern "C" __attribute__((used, visibility("default"))) const char *
__asan_default_options() {
  return "allow_user_poisoning=0";
}
