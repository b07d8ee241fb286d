// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-partition))' | FileCheck %s

// Every compute op becomes a task; the transpose feeding the matmul is
// cloned into its task, so the task reads %w itself and no view is left in
// the graph body.
// CHECK-LABEL: gpuos.graph @matmul_view
// CHECK-NEXT: %[[T:.+]] = gpuos.task "matmul_view_t0_matmul" ins(%[[X:.+]] = %x : !gpuos.tensor<16x64xf32>, %[[W:.+]] = %w : !gpuos.tensor<32x64xf32>) tile [16, 16] -> (!gpuos.tensor<16x32xf32>) {
// CHECK-NEXT: %[[V:.+]] = gpuos.transpose %[[W]] [1, 0]
// CHECK-NEXT: %[[M:.+]] = gpuos.matmul %[[X]], %[[V]]
// CHECK-NEXT: gpuos.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: gpuos.yield %[[T]]
gpuos.graph @matmul_view(%x : !gpuos.tensor<16x64xf32>, %w : !gpuos.tensor<32x64xf32>) -> (y : !gpuos.tensor<16x32xf32>) {
  %t = gpuos.transpose %w [1, 0] : !gpuos.tensor<32x64xf32>
  %y = gpuos.matmul %x, %t : !gpuos.tensor<16x64xf32>, !gpuos.tensor<64x32xf32, strides = [1, 64]>
  gpuos.yield %y : !gpuos.tensor<16x32xf32>
}

// A view read by two tasks is cloned into both. Views and constants the
// graph yields directly become tasks of their own; the view's task result
// keeps the view's strides.
// CHECK-LABEL: gpuos.graph @yielded_views
// CHECK-NEXT: %[[C:.+]] = gpuos.task "yielded_views_t2_transpose" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>) tile [8, 4] -> (!gpuos.tensor<8x4xf32, strides = [1, 8]>)
// CHECK-NEXT: %[[V:.+]] = gpuos.transpose %[[X]] [1, 0]
// CHECK-NEXT: gpuos.yield %[[V]] : !gpuos.tensor<8x4xf32, strides = [1, 8]>
// CHECK: %[[A:.+]] = gpuos.task "yielded_views_t0_exp" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>) tile [8, 4] -> (!gpuos.tensor<8x4xf32>)
// CHECK-NEXT: gpuos.transpose %[[X]] [1, 0]
// CHECK-NEXT: gpuos.exp
// CHECK: %[[B:.+]] = gpuos.task "yielded_views_t1_neg" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>) tile [8, 4] -> (!gpuos.tensor<8x4xf32>)
// CHECK-NEXT: gpuos.transpose %[[X]] [1, 0]
// CHECK-NEXT: gpuos.neg
// CHECK: %[[D:.+]] = gpuos.task "yielded_views_t3_constant" ins() tile [2] -> (!gpuos.tensor<2xi32>)
// CHECK-NEXT: %[[K:.+]] = gpuos.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT: gpuos.yield %[[K]]
// CHECK-NEXT: }
// CHECK-NEXT: gpuos.yield %[[A]], %[[B]], %[[C]], %[[D]]
gpuos.graph @yielded_views(%x : !gpuos.tensor<4x8xf32>)
    -> (a : !gpuos.tensor<8x4xf32>, b : !gpuos.tensor<8x4xf32>, t : !gpuos.tensor<8x4xf32, strides = [1, 8]>, k : !gpuos.tensor<2xi32>) {
  %t = gpuos.transpose %x [1, 0] : !gpuos.tensor<4x8xf32>
  %a = gpuos.exp %t : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  %b = gpuos.neg %t : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  %k = gpuos.constant dense<[1, 2]> : tensor<2xi32>
  gpuos.yield %a, %b, %t, %k : !gpuos.tensor<8x4xf32>, !gpuos.tensor<8x4xf32>, !gpuos.tensor<8x4xf32, strides = [1, 8]>, !gpuos.tensor<2xi32>
}

// An existing task that reads a view and a constant takes them in and keeps
// its kind, tile, priority and attributes; the view it read is gone.
// CHECK-LABEL: gpuos.graph @existing_task
// CHECK-NEXT: %[[T:.+]] = gpuos.task "mine" ins(%[[X:.+]] = %x : !gpuos.tensor<2x8xf32>) tile [8] priority #gpuos.priority<background> -> (!gpuos.tensor<8xf32>) attributes {note = "kept"} {
// CHECK-NEXT: %[[S:.+]] = gpuos.slice %[[X]] starts [1, 0] sizes [1, 8] steps [1, 1]
// CHECK-NEXT: %[[R:.+]] = gpuos.reshape %[[S]] to [8]
// CHECK-NEXT: %[[C:.+]] = gpuos.constant dense<2.000000e+00>
// CHECK-NEXT: %[[M:.+]] = gpuos.mul %[[R]], %[[C]]
// CHECK-NEXT: gpuos.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: gpuos.yield %[[T]]
gpuos.graph @existing_task(%x : !gpuos.tensor<2x8xf32>) -> (y : !gpuos.tensor<8xf32>) {
  %s = gpuos.slice %x starts [1, 0] sizes [1, 8] steps [1, 1] : !gpuos.tensor<2x8xf32>
  %r = gpuos.reshape %s to [8] : !gpuos.tensor<1x8xf32>
  %two = gpuos.constant dense<2.0> : tensor<f32>
  %y = gpuos.task "mine" ins(%a = %r : !gpuos.tensor<8xf32>, %b = %two : !gpuos.tensor<f32>) tile [8]
      priority #gpuos.priority<background> -> (!gpuos.tensor<8xf32>) attributes {note = "kept"} {
    %m = gpuos.mul %a, %b : !gpuos.tensor<8xf32>, !gpuos.tensor<f32>
    gpuos.yield %m : !gpuos.tensor<8xf32>
  }
  gpuos.yield %y : !gpuos.tensor<8xf32>
}

// The tile rule (docs/passes.md). These tensors are small, so the spread
// term decides: ceil(elements / 264) per tile, but at least 256 elements.
// Elementwise 32x1024: 256 elements, [1, 256] (128 tiles). Softmax over
// axis 0: that axis whole (64), leaving 256 / 64 = 4 columns. A sum over 512
// elements per result: 65536 / 512 = 128 results allowed, all 16 fit.
// Matmul: 64 x 64 output blocks. Concat: like elementwise. A rank-0 result:
// the empty tile. A dynamic dimension takes what the budget leaves
// (8192 / 8 = 1024; no spread term without a static size); a dynamic axis
// that must stay whole gets a tile size no run-time size exceeds, and uses
// up the budget.
// CHECK-LABEL: gpuos.graph @tiles
// CHECK: gpuos.task "tiles_t0_exp" {{.+}} tile [1, 256] -> (!gpuos.tensor<32x1024xf32>)
// CHECK: gpuos.task "tiles_t1_softmax" {{.+}} tile [64, 4] -> (!gpuos.tensor<64x8xf32>)
// CHECK: gpuos.task "tiles_t2_reduce" {{.+}} tile [16] -> (!gpuos.tensor<16xf32>)
// CHECK: gpuos.task "tiles_t3_matmul" {{.+}} tile [64, 64] -> (!gpuos.tensor<128x256xf32>)
// CHECK: gpuos.task "tiles_t7_concat" {{.+}} tile [1, 256] -> (!gpuos.tensor<2x2048xf32>)
// CHECK: gpuos.task "tiles_t4_reduce" {{.+}} tile [] -> (!gpuos.tensor<f32>)
// CHECK: gpuos.task "tiles_t5_neg" {{.+}} tile [1024, 8] -> (!gpuos.tensor<?x8xf32>)
// CHECK: gpuos.task "tiles_t6_rms_norm" {{.+}} tile [1, 2147483647] -> (!gpuos.tensor<2x?xf32>)
gpuos.graph @tiles(%a : !gpuos.tensor<32x1024xf32>, %b : !gpuos.tensor<64x8xf32>, %c : !gpuos.tensor<16x512xf32>,
                   %d : !gpuos.tensor<128x64xf32>, %e : !gpuos.tensor<64x256xf32>, %f : !gpuos.tensor<2x1024xf32>,
                   %g : !gpuos.tensor<?x8xf32>, %h : !gpuos.tensor<2x?xf32>)
    -> (ya : !gpuos.tensor<32x1024xf32>, yb : !gpuos.tensor<64x8xf32>, yc : !gpuos.tensor<16xf32>,
        yd : !gpuos.tensor<128x256xf32>, yf : !gpuos.tensor<2x2048xf32>, ys : !gpuos.tensor<f32>,
        yg : !gpuos.tensor<?x8xf32>, yh : !gpuos.tensor<2x?xf32>) {
  %ya = gpuos.exp %a : !gpuos.tensor<32x1024xf32>
  %yb = gpuos.softmax %b axis 0 : !gpuos.tensor<64x8xf32>
  %yc = gpuos.reduce sum %c axes [1] : !gpuos.tensor<16x512xf32>
  %yd = gpuos.matmul %d, %e : !gpuos.tensor<128x64xf32>, !gpuos.tensor<64x256xf32>
  %yf = gpuos.concat %f, %f axis 1 : !gpuos.tensor<2x1024xf32>, !gpuos.tensor<2x1024xf32>
  %ys = gpuos.reduce max %b axes [0, 1] : !gpuos.tensor<64x8xf32>
  %yg = gpuos.neg %g : !gpuos.tensor<?x8xf32>
  %yh = gpuos.rms_norm %h eps 1.0e-06 : !gpuos.tensor<2x?xf32>
  gpuos.yield %ya, %yb, %yc, %yd, %yf, %ys, %yg, %yh
      : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<64x8xf32>, !gpuos.tensor<16xf32>,
        !gpuos.tensor<128x256xf32>, !gpuos.tensor<2x2048xf32>, !gpuos.tensor<f32>,
        !gpuos.tensor<?x8xf32>, !gpuos.tensor<2x?xf32>
}

// Transposed reads: an operand contiguous along the outer axis (a
// transpose view) takes up to a 32-byte sector of that axis per tile (8
// f32, 16 f16), doubling while at least 132 tiles (one per SM) are left and
// the tile stays within the short-tile budget (8192 elements here).
// 512x1024 f32: [1, 1024] (512 tiles) -> [2, 1024] (256; 128 would be too
// few). 4096x512 f16: [8, 512] -> [16, 512], the sector. 2048x8192 f32:
// [1, 8192] is the budget already. A stride-2 column slice has no
// contiguous axis, a broadcast row is read along the innermost axis and a
// broadcast column (strides [1, 0]) reads one element a row: all keep the
// rule's tile.
// CHECK-LABEL: gpuos.graph @transposed_reads
// CHECK: gpuos.task "transposed_reads_t0_exp" {{.+}} tile [2, 1024] -> (!gpuos.tensor<512x1024xf32>)
// CHECK: gpuos.task "transposed_reads_t1_exp" {{.+}} tile [16, 512] -> (!gpuos.tensor<4096x512xf16>)
// CHECK: gpuos.task "transposed_reads_t2_exp" {{.+}} tile [1, 8192] -> (!gpuos.tensor<2048x8192xf32>)
// CHECK: gpuos.task "transposed_reads_t3_exp" {{.+}} tile [1, 1024] -> (!gpuos.tensor<512x1024xf32>)
// CHECK: gpuos.task "transposed_reads_t4_mul" {{.+}} tile [1, 1024] -> (!gpuos.tensor<512x1024xf32>)
// CHECK: gpuos.task "transposed_reads_t5_add" {{.+}} tile [1, 1024] -> (!gpuos.tensor<512x1024xf32>)
gpuos.graph @transposed_reads(%x : !gpuos.tensor<1024x512xf32>, %h : !gpuos.tensor<512x4096xf16>,
                              %w : !gpuos.tensor<8192x2048xf32>, %z : !gpuos.tensor<512x2048xf32>,
                              %row : !gpuos.tensor<1024xf32>, %col : !gpuos.tensor<512x1xf32>)
    -> (a : !gpuos.tensor<512x1024xf32>, e : !gpuos.tensor<4096x512xf16>, b : !gpuos.tensor<2048x8192xf32>,
        c : !gpuos.tensor<512x1024xf32>, d : !gpuos.tensor<512x1024xf32>, f : !gpuos.tensor<512x1024xf32>) {
  %t = gpuos.transpose %x [1, 0] : !gpuos.tensor<1024x512xf32>
  %a = gpuos.exp %t : !gpuos.tensor<512x1024xf32, strides = [1, 512]>
  %th = gpuos.transpose %h [1, 0] : !gpuos.tensor<512x4096xf16>
  %e = gpuos.exp %th : !gpuos.tensor<4096x512xf16, strides = [1, 4096]>
  %tw = gpuos.transpose %w [1, 0] : !gpuos.tensor<8192x2048xf32>
  %b = gpuos.exp %tw : !gpuos.tensor<2048x8192xf32, strides = [1, 2048]>
  %s = gpuos.slice %z starts [0, 0] sizes [512, 1024] steps [1, 2] : !gpuos.tensor<512x2048xf32>
  %c = gpuos.exp %s : !gpuos.tensor<512x1024xf32, strides = [2048, 2]>
  %r = gpuos.broadcast %row to [512, 1024] : !gpuos.tensor<1024xf32>
  %d = gpuos.mul %r, %c : !gpuos.tensor<512x1024xf32, strides = [0, 1]>, !gpuos.tensor<512x1024xf32>
  %cb = gpuos.broadcast %col to [512, 1024] : !gpuos.tensor<512x1xf32>
  %f = gpuos.add %d, %cb : !gpuos.tensor<512x1024xf32>, !gpuos.tensor<512x1024xf32, strides = [1, 0]>
  gpuos.yield %a, %e, %b, %c, %d, %f : !gpuos.tensor<512x1024xf32>, !gpuos.tensor<4096x512xf16>,
      !gpuos.tensor<2048x8192xf32>, !gpuos.tensor<512x1024xf32>, !gpuos.tensor<512x1024xf32>,
      !gpuos.tensor<512x1024xf32>
}

// Large tensors: the work budget decides. One op over 1024x4096: 8192
// elements ([2, 4096], 512 tiles, each ~64 KB of traffic). A sum over 4096
// elements per result: 65536 / 4096 = 16 results per tile. (Fused chains,
// whose op count shrinks the tile: pipeline.mlir.)
// CHECK-LABEL: gpuos.graph @tile_budget
// CHECK: gpuos.task "tile_budget_t0_exp" {{.+}} tile [2, 4096] -> (!gpuos.tensor<1024x4096xf32>)
// CHECK: gpuos.task "tile_budget_t1_reduce" {{.+}} tile [16] -> (!gpuos.tensor<256xf32>)
gpuos.graph @tile_budget(%a : !gpuos.tensor<1024x4096xf32>, %c : !gpuos.tensor<256x4096xf32>)
    -> (ya : !gpuos.tensor<1024x4096xf32>, yc : !gpuos.tensor<256xf32>) {
  %ya = gpuos.exp %a : !gpuos.tensor<1024x4096xf32>
  %yc = gpuos.reduce sum %c axes [1] : !gpuos.tensor<256x4096xf32>
  gpuos.yield %ya, %yc : !gpuos.tensor<1024x4096xf32>, !gpuos.tensor<256xf32>
}

// A body of tasks only is left as it is.
// CHECK-LABEL: gpuos.graph @already_tasks
// CHECK-NEXT: gpuos.task "given" ins(%{{.+}} = %x : !gpuos.tensor<4xf32>) tile [2]
gpuos.graph @already_tasks(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "given" ins(%a = %x : !gpuos.tensor<4xf32>) tile [2] -> (!gpuos.tensor<4xf32>) {
    %e = gpuos.exp %a : !gpuos.tensor<4xf32>
    gpuos.yield %e : !gpuos.tensor<4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// A long K halves the rows of a matmul tile until it holds at most 262144
// multiply-adds (16 x 64 x 256), keeping a block's worth of outputs (1024).
// CHECK-LABEL: gpuos.graph @matmul_long_k
// CHECK: gpuos.task "matmul_long_k_t0_matmul" {{.*}} tile [16, 64]
// CHECK-LABEL: gpuos.graph @matmul_longer_k
// CHECK: gpuos.task "matmul_longer_k_t0_matmul" {{.*}} tile [16, 64]
gpuos.graph @matmul_long_k(%x : !gpuos.tensor<512x256xf32>, %w : !gpuos.tensor<256x256xf32>) -> (y : !gpuos.tensor<512x256xf32>) {
  %y = gpuos.matmul %x, %w : !gpuos.tensor<512x256xf32>, !gpuos.tensor<256x256xf32>
  gpuos.yield %y : !gpuos.tensor<512x256xf32>
}
gpuos.graph @matmul_longer_k(%x : !gpuos.tensor<64x1024xf32>, %w : !gpuos.tensor<1024x128xf32>) -> (y : !gpuos.tensor<64x128xf32>) {
  %y = gpuos.matmul %x, %w : !gpuos.tensor<64x1024xf32>, !gpuos.tensor<1024x128xf32>
  gpuos.yield %y : !gpuos.tensor<64x128xf32>
}

// A concat of two inputs is an index map: tasks that read it clone it (a
// decode step's KV cache append becomes part of the attention matmul, not
// a task copying the cache). Of three inputs, it stays a task of its own:
// every consumer would read all three per element.
// CHECK-LABEL: gpuos.graph @kv_append
// CHECK-NEXT: %[[S:.+]] = gpuos.task "kv_append_t0_matmul" ins(%[[Q:.+]] = %q : {{.+}}, %[[C:.+]] = %cache : {{.+}}, %[[K:.+]] = %k : {{.+}})
// CHECK-NEXT: %[[KEYS:.+]] = gpuos.concat %[[C]], %[[K]] axis 1
// CHECK-NEXT: gpuos.matmul %[[Q]], %[[KEYS]] transpose_rhs
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield %[[S]]
gpuos.graph @kv_append(%q : !gpuos.tensor<4x1x64xf32>, %cache : !gpuos.tensor<4x32x64xf32>, %k : !gpuos.tensor<4x1x64xf32>)
    -> (s : !gpuos.tensor<4x1x33xf32>) {
  %keys = gpuos.concat %cache, %k axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
  %s = gpuos.matmul %q, %keys transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x33x64xf32>
  gpuos.yield %s : !gpuos.tensor<4x1x33xf32>
}

// CHECK-LABEL: gpuos.graph @three_way
// CHECK: %[[J:.+]] = gpuos.task "three_way_t0_concat"
// CHECK: gpuos.task "three_way_t1_exp" ins(%{{.+}} = %[[J]]
gpuos.graph @three_way(%a : !gpuos.tensor<2x8xf32>, %b : !gpuos.tensor<2x8xf32>, %c : !gpuos.tensor<2x8xf32>)
    -> (y : !gpuos.tensor<2x24xf32>) {
  %j = gpuos.concat %a, %b, %c axis 1 : !gpuos.tensor<2x8xf32>, !gpuos.tensor<2x8xf32>, !gpuos.tensor<2x8xf32>
  %y = gpuos.exp %j : !gpuos.tensor<2x24xf32>
  gpuos.yield %y : !gpuos.tensor<2x24xf32>
}

// Small-M matmuls reading one lhs run side by side: gate and up (2 x 176
// tiles of 16 columns) pass one tile per worker block (2 x 132), so their
// tiles widen to 32 columns (2 x 88); q, k and v (3 x 64) and a lone
// 4096-column projection (256) keep 16.
// CHECK-LABEL: gpuos.graph @sibling_tiles
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %h : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wg : !gpuos.tensor<1024x2816xf32>) tile [1, 32]
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %h : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wu : !gpuos.tensor<1024x2816xf32>) tile [1, 32]
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %x : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wq : !gpuos.tensor<1024x1024xf32>) tile [1, 16]
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %x : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wk : !gpuos.tensor<1024x1024xf32>) tile [1, 16]
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %x : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wv : !gpuos.tensor<1024x1024xf32>) tile [1, 16]
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %e : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wo : !gpuos.tensor<1024x4096xf32>) tile [1, 16]
// A router of 8 columns beside gate and up keeps tiles of its own width.
// CHECK-DAG: gpuos.task "sibling_tiles_t{{[0-9]+}}_matmul" ins(%{{.+}} = %h : !gpuos.tensor<1x1024xf32>, %{{.+}} = %wr : !gpuos.tensor<1024x8xf32>) tile [1, 8]
gpuos.graph @sibling_tiles(%h : !gpuos.tensor<1x1024xf32>, %wg : !gpuos.tensor<1024x2816xf32>, %wu : !gpuos.tensor<1024x2816xf32>,
                           %x : !gpuos.tensor<1x1024xf32>, %wq : !gpuos.tensor<1024x1024xf32>, %wk : !gpuos.tensor<1024x1024xf32>, %wv : !gpuos.tensor<1024x1024xf32>,
                           %e : !gpuos.tensor<1x1024xf32>, %wo : !gpuos.tensor<1024x4096xf32>, %wr : !gpuos.tensor<1024x8xf32>)
    -> (rt : !gpuos.tensor<1x8xf32>, g : !gpuos.tensor<1x2816xf32>, u : !gpuos.tensor<1x2816xf32>, q : !gpuos.tensor<1x1024xf32>, k : !gpuos.tensor<1x1024xf32>, v : !gpuos.tensor<1x1024xf32>, o : !gpuos.tensor<1x4096xf32>) {
  %rt = gpuos.matmul %h, %wr : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x8xf32>
  %g = gpuos.matmul %h, %wg : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x2816xf32>
  %u = gpuos.matmul %h, %wu : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x2816xf32>
  %q = gpuos.matmul %x, %wq : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %k = gpuos.matmul %x, %wk : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %v = gpuos.matmul %x, %wv : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %o = gpuos.matmul %e, %wo : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1024x4096xf32>
  gpuos.yield %rt, %g, %u, %q, %k, %v, %o : !gpuos.tensor<1x8xf32>, !gpuos.tensor<1x2816xf32>, !gpuos.tensor<1x2816xf32>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x4096xf32>
}

// A yielded view of another yielded view reads the graph input through
// views its own task clones, not the other view's task output (no
// dependent hop between the two).
// CHECK-LABEL: gpuos.graph @view_of_yielded_view
// CHECK: gpuos.task "view_of_yielded_view_t0_transpose" ins(%{{.+}} = %x :
// CHECK: gpuos.task "view_of_yielded_view_t1_transpose_slice" ins(%{{.+}} = %x :
gpuos.graph @view_of_yielded_view(%x : !gpuos.tensor<4x8xf32>)
    -> (a : !gpuos.tensor<8x4xf32, strides = [1, 8]>, b : !gpuos.tensor<2x4xf32, strides = [1, 8]>) {
  %t = gpuos.transpose %x [1, 0] : !gpuos.tensor<4x8xf32>
  %s = gpuos.slice %t starts [0, 0] sizes [2, 4] steps [1, 1] : !gpuos.tensor<8x4xf32, strides = [1, 8]>
  gpuos.yield %t, %s : !gpuos.tensor<8x4xf32, strides = [1, 8]>, !gpuos.tensor<2x4xf32, strides = [1, 8]>
}
