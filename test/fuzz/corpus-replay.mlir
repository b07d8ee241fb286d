// RUN: gpuos-fuzz-replay %S/corpus 2>&1 | FileCheck %s

// Replays the fuzz seed corpus and the crash regressions (crash-*) through
// the fuzz target of ParseVerifyFuzzer.cpp: each input parses to diagnostics
// or to a module that verifies, round-trips and sorts. Any finding aborts.
// See docs/fuzzing.md.

// CHECK-NOT: gpuos-fuzz:
// CHECK: gpuos-fuzz-replay: replayed {{[1-9][0-9]*}} input(s), no findings
