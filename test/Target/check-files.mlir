// The GPU check's files are read as untrusted input: a manifest the
// runtime would refuse, a damaged check.txt, or a check.txt of another
// module is an error naming the file (and line, or task), never a read or
// write out of bounds. (gpuos-check-gen and gpuos-sim-check here; the GPU
// launcher and gpuos-runtime-check parse check.txt with the same code.)
// REQUIRES: nvjitlink, runtime-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: gpuos-jit %s --no-cache -o %t/img
// RUN: gpuos-check-gen %s --manifest=%t/img.manifest.json -o %t/ok
// RUN: gpuos-sim-check %s %t/ok/check.txt --block=32 | FileCheck %s --check-prefix=OK
// OK: PASS cf_scale
// OK: sim-check: 1 passed, 0 failed

// A manifest that is not one: the runtime parser's message.
// RUN: echo '[1, 2]' > %t/array.manifest.json
// RUN: not gpuos-check-gen %s --manifest=%t/array.manifest.json -o %t/x 2>&1 | FileCheck %s --check-prefix=MANIFEST
// MANIFEST: gpuos-check-gen: {{.*}}array.manifest.json: bad image: manifest: the document must be an object
// A manifest whose task kind is missing: named.
// RUN: sed 's/"cf_scale"/"cf_other"/' %t/img.manifest.json > %t/other.manifest.json
// RUN: not gpuos-check-gen %s --manifest=%t/other.manifest.json -o %t/x 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: the manifest has no task 'cf_scale'

// A span too small for the view's strides (the kernel would write past it).
// RUN: cp -r %t/ok %t/span && sed -i 's/^output f32 4 1024 /output f32 4 100 /' %t/span/check.txt
// RUN: not gpuos-sim-check %s %t/span/check.txt 2>&1 | FileCheck %s --check-prefix=SPAN
// SPAN: gpu-check: {{.*}}span{{/|\\}}check.txt:5: the view reaches element 1023, past its span 100: output f32
// An expected-values file cut short.
// RUN: cp -r %t/ok %t/short && truncate -s 100 %t/short/cf_scale.out0.expect.bin
// RUN: not gpuos-sim-check %s %t/short/check.txt 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: check.txt:5: cf_scale.out0.expect.bin holds 100 bytes, not 8192: output
// A negative rank, and an element size its dtype does not have.
// RUN: cp -r %t/ok %t/rank && sed -i 's/^\(input f32 4 [0-9]*\) 2 /\1 -3 /' %t/rank/check.txt
// RUN: not gpuos-sim-check %s %t/rank/check.txt 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: check.txt:4: bad buffer line: input f32 4 1024 -3
// RUN: cp -r %t/ok %t/bytes && sed -i 's/^input f32 4 /input f32 8 /' %t/bytes/check.txt
// RUN: not gpuos-sim-check %s %t/bytes/check.txt 2>&1 | FileCheck %s --check-prefix=BYTES
// BYTES: check.txt:4: f32 elements are 4 bytes, not 8: input f32 8
// A consistent check.txt that describes other buffers than the IR's task
// (i32 for f32), and one of another module.
// RUN: cp -r %t/ok %t/dtype && sed -i 's/^input f32 4 /input i32 4 /' %t/dtype/check.txt
// RUN: not gpuos-sim-check %s %t/dtype/check.txt 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: gpuos-sim-check: {{.*}}check.txt: task 'cf_scale': buffer 0 is not the IR's input f32 view
// RUN: not gpuos-sim-check %S/gpu-check/dtypes.mlir %t/ok/check.txt 2>&1 | FileCheck %s --check-prefix=MODULE
// MODULE: gpuos-sim-check: {{.*}}check.txt: task 'cf_scale': no task of this kind in {{.*}}dtypes.mlir

gpuos.graph @scale(%x : !gpuos.tensor<8x128xf32>) -> (o : !gpuos.tensor<8x128xf32>) {
  %r = gpuos.task "cf_scale" ins(%a = %x : !gpuos.tensor<8x128xf32>)
      tile [2, 128] -> (!gpuos.tensor<8x128xf32>) {
    %0 = gpuos.mul %a, %a : !gpuos.tensor<8x128xf32>, !gpuos.tensor<8x128xf32>
    gpuos.yield %0 : !gpuos.tensor<8x128xf32>
  }
  gpuos.yield %r : !gpuos.tensor<8x128xf32>
}
