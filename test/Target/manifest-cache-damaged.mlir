// A cached image whose manifest cannot be rebuilt for the input compiled
// now (here: a field missing) is compiled again, not served with the
// locations of the file compiled first (Compiler.cpp, compileModule). The
// op is 3 lines below its check, 5 in moved.mlir.
//
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t.cache %t.d && mkdir -p %t.d
// RUN: cp %s %t.d/first.mlir
// RUN: gpuos-jit %t.d/first.mlir -o %t.first --cache-dir=%t.cache
// RUN: for f in %t.cache/*.manifest.json; do sed -i '/"strategy"/d' "$f"; done
// RUN: (echo "// two"; echo "// lines"; cat %s) > %t.d/moved.mlir
// RUN: gpuos-jit %t.d/moved.mlir -o %t.moved --cache-dir=%t.cache
// RUN: FileCheck %s --input-file=%t.moved.manifest.json
// RUN: grep -q strategy %t.moved.manifest.json
// RUN: cmp %t.first.cubin %t.moved.cubin

// CHECK: "name": "gpuos.exp",
// CHECK-NEXT: "loc": "{{.*}}moved.mlir:[[# @LINE + 5]]:10"
gpuos.graph @g(%x : !gpuos.tensor<4x64xf32>) -> (y : !gpuos.tensor<4x64xf32>) {
  %y = gpuos.task "t" ins(%a = %x : !gpuos.tensor<4x64xf32>) tile [1, 64] -> (!gpuos.tensor<4x64xf32>) {
    %0 = gpuos.exp %a : !gpuos.tensor<4x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x64xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x64xf32>
}
