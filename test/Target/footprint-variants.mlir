// bench/suite/footprint.sh prepare: the sharing urgent graph with each
// footprint background (bench/suite/footprint/) compiles to an image, and
// each spec the GPU run binds matches its manifest (suite-driver validate;
// a spec of the wrong size fails it).
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: env BUILD_DIR=%gpuos_obj_root FOOTPRINT_DIR=%t bash %S/../../bench/suite/footprint.sh prepare | FileCheck %s
// RUN: test -s %t/.bench-small/images/sharing.cubin && test -s %t/.bench-code/images/sharing.cubin

// CHECK: small: background_bulk: 4 tasks, 912 tiles
// CHECK: small: urgent_step: 4 tasks, 34 tiles
// CHECK: code: background_bulk: 1 tasks, 4096 tiles
// CHECK: code: urgent_step: 4 tasks, 34 tiles
// CHECK: prepared .bench-small .bench-code
