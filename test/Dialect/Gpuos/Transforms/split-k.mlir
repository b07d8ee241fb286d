// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-split-k))' | FileCheck %s
// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-split-k{max-tiles=0}))' | FileCheck %s --check-prefix=OFF
// RUN: gpuos-opt %s --split-input-file --pass-pipeline='builtin.module(gpuos.graph(gpuos-split-k{max-tiles=264}))' | FileCheck %s --check-prefix=WIDE
// The whole pipeline computes the same values (up to the reassociated sum
// of the slices), checked by the interpreter before and after.
// RUN: rm -rf %t && mkdir -p %t/before %t/after
// RUN: gpuos-interp %S/Inputs/split-k-decode.mlir --seed=3 --outputs-dir=%t/before > /dev/null
// RUN: gpuos-opt %S/Inputs/split-k-decode.mlir --gpuos-pipeline | gpuos-interp --seed=3 --outputs-dir=%t/after | FileCheck %s --check-prefix=INTERP
// RUN: %python %S/../../../Inputs/allclose.py %t/before %t/after | FileCheck %s --check-prefix=SAME
// The comparison fails on different values and on a NaN where a number
// is expected (an output replaced by another, then NaNs).
// RUN: rm -rf %t/bad && cp -r %t/after %t/bad && cp %t/after/n.bin %t/bad/h.bin
// RUN: not %python %S/../../../Inputs/allclose.py %t/before %t/bad | FileCheck %s --check-prefix=BAD
// RUN: %python -c "open('%t/bad/h.bin','wb').write(open('%t/after/h.bin','rb').read()[:8] + bytes.fromhex('000000000000f87f') * 511)"
// RUN: not %python %S/../../../Inputs/allclose.py %t/before %t/bad | FileCheck %s --check-prefix=BAD
// BAD: h.bin: differs by
// SAME: h.bin: ok
// SAME-NEXT: n.bin: ok
// SAME-NEXT: y3.bin: ok
// INTERP: graph @split_k seed 3

// A decode projection: N = 1024 gives 64 column tiles of 16; two K slices
// of 1408 give 128, within one tile per SM (132); four would not.
// CHECK-LABEL: gpuos.graph @down
// CHECK: %[[XS:.+]] = gpuos.reshape %x to [2, 1, 1408] : !gpuos.tensor<1x2816xf32>
// CHECK: %[[WS:.+]] = gpuos.reshape %w to [2, 1408, 1024] : !gpuos.tensor<2816x1024xf32>
// CHECK: %[[P:.+]] = gpuos.matmul %[[XS]], %[[WS]] : !gpuos.tensor<2x1x1408xf32>, !gpuos.tensor<2x1408x1024xf32>
// CHECK: %[[S0:.+]] = gpuos.slice %[[P]] starts [0, 0, 0] sizes [1, 1, 1024] steps [1, 1, 1]
// CHECK: %[[Q0:.+]] = gpuos.reshape %[[S0]] to [1, 1024]
// CHECK: %[[S1:.+]] = gpuos.slice %[[P]] starts [1, 0, 0]
// CHECK: %[[Q1:.+]] = gpuos.reshape %[[S1]] to [1, 1024]
// CHECK: %[[Y:.+]] = gpuos.add %[[Q0]], %[[Q1]]
// CHECK: gpuos.yield %[[Y]]
// With room for 256 tiles: four slices, summed by a tree of adds.
// WIDE-LABEL: gpuos.graph @down
// WIDE: gpuos.matmul {{.+}} : !gpuos.tensor<4x1x704xf32>, !gpuos.tensor<4x704x1024xf32>
// WIDE-COUNT-4: gpuos.slice
// WIDE: %[[A:.+]] = gpuos.add
// WIDE: %[[B:.+]] = gpuos.add
// WIDE: %[[Y:.+]] = gpuos.add %[[A]], %[[B]]
// WIDE: gpuos.yield %[[Y]]
// OFF-LABEL: gpuos.graph @down
// OFF-NOT: gpuos.reshape
// OFF: gpuos.matmul %x, %w
gpuos.graph @down(%x : !gpuos.tensor<1x2816xf32>, %w : !gpuos.tensor<2816x1024xf32>) -> (y : !gpuos.tensor<1x1024xf32>) {
  %y = gpuos.matmul %x, %w : !gpuos.tensor<1x2816xf32>, !gpuos.tensor<2816x1024xf32>
  gpuos.yield %y : !gpuos.tensor<1x1024xf32>
}

// -----

// q, k and v read one lhs and run side by side: 3 x 64 tiles could not
// double within 132.
// CHECK-LABEL: gpuos.graph @qkv
// CHECK-NOT: gpuos.reshape
// CHECK-COUNT-3: gpuos.matmul %x, %w
gpuos.graph @qkv(%x : !gpuos.tensor<1x1024xf32>, %wq : !gpuos.tensor<1024x1024xf32>,
                 %wk : !gpuos.tensor<1024x1024xf32>, %wv : !gpuos.tensor<1024x1024xf32>)
    -> (q : !gpuos.tensor<1x1024xf32>, k : !gpuos.tensor<1x1024xf32>, v : !gpuos.tensor<1x1024xf32>) {
  %q = gpuos.matmul %x, %wq : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %k = gpuos.matmul %x, %wk : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %v = gpuos.matmul %x, %wv : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  gpuos.yield %q, %k, %v : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>
}

// -----

// K = 512 allows 2 slices of at least 256 rows; M = 3 views the lhs as
// [3, 2, 256] transposed.
// CHECK-LABEL: gpuos.graph @rows
// CHECK: %[[R:.+]] = gpuos.reshape %x to [3, 2, 256] : !gpuos.tensor<3x512xf32>
// CHECK: %[[T:.+]] = gpuos.transpose %[[R]] [1, 0, 2] : !gpuos.tensor<3x2x256xf32>
// CHECK: %[[W:.+]] = gpuos.reshape %w to [2, 256, 1024]
// CHECK: gpuos.matmul %[[T]], %[[W]] : !gpuos.tensor<2x3x256xf32, strides = [256, 512, 1]>, !gpuos.tensor<2x256x1024xf32>
// CHECK-COUNT-1: gpuos.add
// CHECK-NOT: gpuos.add
gpuos.graph @rows(%x : !gpuos.tensor<3x512xf32>, %w : !gpuos.tensor<512x1024xf32>) -> (y : !gpuos.tensor<3x1024xf32>) {
  %y = gpuos.matmul %x, %w : !gpuos.tensor<3x512xf32>, !gpuos.tensor<512x1024xf32>
  gpuos.yield %y : !gpuos.tensor<3x1024xf32>
}

// -----

// Left alone: K = 256 (one slice of 256), a weight shared by micro-batches,
// f16 operands, a transposed weight, and M = 32 (not small).
// CHECK-LABEL: gpuos.graph @kept
// CHECK-NOT: gpuos.reshape
// CHECK-NOT: gpuos.slice
// CHECK: gpuos.yield
gpuos.graph @kept(%a : !gpuos.tensor<1x256xf32>, %wa : !gpuos.tensor<256x1024xf32>,
                  %b0 : !gpuos.tensor<1x2048xf32>, %b1 : !gpuos.tensor<1x2048xf32>,
                  %wb : !gpuos.tensor<2048x1024xf32>,
                  %c : !gpuos.tensor<1x2048xf16>, %wc : !gpuos.tensor<2048x1024xf16>,
                  %d : !gpuos.tensor<1x2048xf32>, %wd : !gpuos.tensor<1024x2048xf32>,
                  %e : !gpuos.tensor<32x2048xf32>, %we : !gpuos.tensor<2048x1024xf32>)
    -> (ya : !gpuos.tensor<1x1024xf32>, yb0 : !gpuos.tensor<1x1024xf32>, yb1 : !gpuos.tensor<1x1024xf32>,
        yc : !gpuos.tensor<1x1024xf16>, yd : !gpuos.tensor<1x1024xf32>, ye : !gpuos.tensor<32x1024xf32>) {
  %ya = gpuos.matmul %a, %wa : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x1024xf32>
  %yb0 = gpuos.matmul %b0, %wb : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<2048x1024xf32>
  %yb1 = gpuos.matmul %b1, %wb : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<2048x1024xf32>
  %yc = gpuos.matmul %c, %wc : !gpuos.tensor<1x2048xf16>, !gpuos.tensor<2048x1024xf16>
  %yd = gpuos.matmul %d, %wd transpose_rhs : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<1024x2048xf32>
  %ye = gpuos.matmul %e, %we : !gpuos.tensor<32x2048xf32>, !gpuos.tensor<2048x1024xf32>
  gpuos.yield %ya, %yb0, %yb1, %yc, %yd, %ye : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf16>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<32x1024xf32>
}

// -----

// A matmul reading another's product: both split (the decision comes
// before either rewrite, which erases the first product).
// CHECK-LABEL: gpuos.graph @chained
// CHECK-COUNT-2: gpuos.matmul {{.+}} : !gpuos.tensor<2x1x512xf32>, !gpuos.tensor<2x512x1024xf32>
gpuos.graph @chained(%x : !gpuos.tensor<1x1024xf32>, %w1 : !gpuos.tensor<1024x1024xf32>, %w2 : !gpuos.tensor<1024x1024xf32>) -> (y : !gpuos.tensor<1x1024xf32>) {
  %h = gpuos.matmul %x, %w1 : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y = gpuos.matmul %h, %w2 : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  gpuos.yield %y : !gpuos.tensor<1x1024xf32>
}
