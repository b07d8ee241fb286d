// The manifest's ops name the locations of the input compiled now, also on
// a cache hit: the content hash leaves locations out, so the same graph
// moved down two lines, or the same bytes under another name, hits the
// image compiled before and gets its own locations (Manifest.cpp,
// rebuildManifest; the launcher's source key includes the input's name).
//
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t.cache %t.d && mkdir -p %t.d
// RUN: cp %s %t.d/first.mlir
// RUN: gpuos-jit %t.d/first.mlir -o %t.first --cache-dir=%t.cache
// RUN: FileCheck %s --input-file=%t.first.manifest.json -DFILE=first.mlir -D#SHIFT=0
// RUN: (echo "// two"; echo "// lines"; cat %s) > %t.d/moved.mlir
// RUN: gpuos-jit %t.d/moved.mlir -o %t.moved --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: FileCheck %s --input-file=%t.moved.manifest.json -DFILE=moved.mlir -D#SHIFT=2
// RUN: cp %s %t.d/copy.mlir
// RUN: gpuos-jit %t.d/copy.mlir -o %t.copy --cache-dir=%t.cache
// RUN: FileCheck %s --input-file=%t.copy.manifest.json -DFILE=copy.mlir -D#SHIFT=0
// Served again by the launcher without the core: still this file's own.
// RUN: gpuos-jit %t.d/copy.mlir -o %t.copy2 --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: FileCheck %s --input-file=%t.copy2.manifest.json -DFILE=copy.mlir -D#SHIFT=0
// RUN: gpuos-jit %t.d/moved.mlir -o %t.moved2 --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: FileCheck %s --input-file=%t.moved2.manifest.json -DFILE=moved.mlir -D#SHIFT=2
// Everything but the locations is the image compiled first.
// RUN: cmp %t.first.cubin %t.moved.cubin
// RUN: sed 's/"loc": .*//' %t.first.manifest.json > %t.first.noloc
// RUN: sed 's/"loc": .*//' %t.moved.manifest.json > %t.moved.noloc
// RUN: cmp %t.first.noloc %t.moved.noloc

// HIT: cache: hit
// FAST: cache: hit {{[0-9a-f]+}} (source key,
// CHECK: "name": "gpuos.exp",
// The exp below, SHIFT lines further down in the moved copy.
// CHECK-NEXT: "loc": "{{.*}}[[FILE]]:[[#@LINE+SHIFT+3]]:10"
gpuos.graph @g(%x : !gpuos.tensor<4x64xf32>) -> (y : !gpuos.tensor<4x64xf32>) {
  %y = gpuos.task "t" ins(%a = %x : !gpuos.tensor<4x64xf32>) tile [1, 64] -> (!gpuos.tensor<4x64xf32>) {
    %0 = gpuos.exp %a : !gpuos.tensor<4x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x64xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x64xf32>
}
