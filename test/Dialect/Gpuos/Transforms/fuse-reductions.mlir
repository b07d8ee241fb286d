// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-reductions))' | FileCheck %s
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise,gpuos-fuse-reductions))' | FileCheck %s --check-prefix=BOTH

// The scaling before a softmax is its prologue and the per-column gain
// after it the epilogue: one task, tiles of whole rows.
// CHECK-LABEL: gpuos.graph @softmax_prologue_epilogue
// CHECK: %[[T:.+]] = gpuos.task "softmax_prologue_epilogue_t0_mul_softmax" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[S:.+]] = %s : !gpuos.tensor<f32>, %[[G:.+]] = %g : !gpuos.tensor<8xf32>) tile [4, 8] -> (!gpuos.tensor<4x8xf32>) {
// CHECK-NEXT: %[[M:.+]] = gpuos.mul %[[X]], %[[S]]
// CHECK-NEXT: %[[P:.+]] = gpuos.softmax %[[M]] axis 1
// CHECK-NEXT: %[[Y:.+]] = gpuos.mul %[[P]], %[[G]]
// CHECK-NEXT: gpuos.yield %[[Y]]
// CHECK: gpuos.yield %[[T]]
gpuos.graph @softmax_prologue_epilogue(%x : !gpuos.tensor<4x8xf32>, %s : !gpuos.tensor<f32>, %g : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %m = gpuos.mul %x, %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
  %p = gpuos.softmax %m axis 1 : !gpuos.tensor<4x8xf32>
  %y = gpuos.mul %p, %g : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}

// A prologue chain (abs, then mul) before a mean with keepdim, and the rsqrt
// over the 4x1 result after it. The reduction result is a graph output too,
// so the task yields both. The 64 elements each result element reads count
// against the tile budget: 4096 / 64 leaves room for all 4 rows.
// CHECK-LABEL: gpuos.graph @reduce_keepdim
// CHECK: %[[T:.+]]:2 = gpuos.task "reduce_keepdim_t0_abs_mul_reduce_rsqrt" ins(%[[X:.+]] = %x : !gpuos.tensor<4x64xf32>) tile [4, 1] -> (!gpuos.tensor<4x1xf32>, !gpuos.tensor<4x1xf32>) {
// CHECK-NEXT: %[[A:.+]] = gpuos.abs %[[X]]
// CHECK-NEXT: %[[B:.+]] = gpuos.mul %[[A]], %[[A]]
// CHECK-NEXT: %[[S:.+]] = gpuos.reduce mean %[[B]] axes [1] keepdim
// CHECK-NEXT: %[[R:.+]] = gpuos.rsqrt %[[S]]
// CHECK-NEXT: gpuos.yield %[[S]], %[[R]]
// CHECK: gpuos.yield %[[T]]#0, %[[T]]#1
gpuos.graph @reduce_keepdim(%x : !gpuos.tensor<4x64xf32>) -> (s : !gpuos.tensor<4x1xf32>, r : !gpuos.tensor<4x1xf32>) {
  %a = gpuos.abs %x : !gpuos.tensor<4x64xf32>
  %b = gpuos.mul %a, %a : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
  %s = gpuos.reduce mean %b axes [1] keepdim : !gpuos.tensor<4x64xf32>
  %r = gpuos.rsqrt %s : !gpuos.tensor<4x1xf32>
  gpuos.yield %s, %r : !gpuos.tensor<4x1xf32>, !gpuos.tensor<4x1xf32>
}

// argmax with a prologue, and an integer cast epilogue.
// CHECK-LABEL: gpuos.graph @argmax_cast
// CHECK: gpuos.task "argmax_cast_t0_neg_argmax_cast" ins(%{{.+}} = %x : !gpuos.tensor<4x8xf32>) tile [4] -> (!gpuos.tensor<4xi32>)
// CHECK-NEXT: gpuos.neg
// CHECK-NEXT: gpuos.argmax
// CHECK-NEXT: gpuos.cast
gpuos.graph @argmax_cast(%x : !gpuos.tensor<4x8xf32>) -> (i : !gpuos.tensor<4xi32>) {
  %n = gpuos.neg %x : !gpuos.tensor<4x8xf32>
  %a = gpuos.argmax %n axis 1 : !gpuos.tensor<4x8xf32>
  %i = gpuos.cast %a : !gpuos.tensor<4xi64> to i32
  gpuos.yield %i : !gpuos.tensor<4xi32>
}

// A layer_norm epilogue chain, which also reads the norm's input.
// CHECK-LABEL: gpuos.graph @layer_norm_epilogue
// CHECK: gpuos.task "layer_norm_epilogue_t0_layer_norm_gelu_add" ins(%[[X:.+]] = %x : !gpuos.tensor<2x16xf32>, %[[W:.+]] = %w : !gpuos.tensor<16xf32>, %[[B:.+]] = %b : !gpuos.tensor<16xf32>) tile [2, 16]
// CHECK-NEXT: %[[N:.+]] = gpuos.layer_norm %[[X]] weight(%[[W]] : !gpuos.tensor<16xf32>) bias(%[[B]] : !gpuos.tensor<16xf32>)
// CHECK-NEXT: %[[G:.+]] = gpuos.gelu %[[N]]
// CHECK-NEXT: gpuos.add %[[G]], %[[X]]
gpuos.graph @layer_norm_epilogue(%x : !gpuos.tensor<2x16xf32>, %w : !gpuos.tensor<16xf32>, %b : !gpuos.tensor<16xf32>) -> (y : !gpuos.tensor<2x16xf32>) {
  %n = gpuos.layer_norm %x weight(%w : !gpuos.tensor<16xf32>) bias(%b : !gpuos.tensor<16xf32>) eps 1.0e-05 : !gpuos.tensor<2x16xf32>
  %g = gpuos.gelu %n : !gpuos.tensor<2x16xf32>
  %y = gpuos.add %g, %x : !gpuos.tensor<2x16xf32>, !gpuos.tensor<2x16xf32>
  gpuos.yield %y : !gpuos.tensor<2x16xf32>
}

// The residual %h is a graph output as well as the norm's input: a row op's
// tile covers the residual's elements once, so the task computes it and
// writes it out as a second result (residual add + norm in one task).
// CHECK-LABEL: gpuos.graph @prologue_escapes
// CHECK: %[[T:.+]]:2 = gpuos.task "prologue_escapes_t0_add_rms_norm" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[W:.+]] = %w : !gpuos.tensor<8xf32>) tile [4, 8]
// CHECK-NEXT: %[[H:.+]] = gpuos.add %[[X]], %[[X]]
// CHECK-NEXT: %[[N:.+]] = gpuos.rms_norm %[[H]] weight(%[[W]]
// CHECK-NEXT: gpuos.yield %[[H]], %[[N]]
// CHECK: gpuos.yield %[[T]]#0, %[[T]]#1
gpuos.graph @prologue_escapes(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<8xf32>) -> (h : !gpuos.tensor<4x8xf32>, n : !gpuos.tensor<4x8xf32>) {
  %h = gpuos.add %x, %x : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %n = gpuos.rms_norm %h weight(%w : !gpuos.tensor<8xf32>) eps 1.0e-06 : !gpuos.tensor<4x8xf32>
  gpuos.yield %h, %n : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// A residual add that reads a matmul's product directly and is read
// elsewhere too stays out (gpuos-fuse-matmul-epilogues makes it the
// matmul's epilogue, computed by all of its tiles); reading the product
// through a view (the slices gpuos-split-k sums) it joins and is written out.
// CHECK-LABEL: gpuos.graph @prologue_reads_product
// CHECK: %[[P:.+]] = gpuos.matmul %x, %w
// CHECK-NEXT: %[[H:.+]] = gpuos.add %[[P]], %r
// CHECK-NEXT: gpuos.rms_norm %[[H]]
// CHECK-LABEL: gpuos.graph @prologue_reads_slice
// CHECK: %[[P:.+]] = gpuos.matmul %x, %w
// CHECK: %{{.+}}:2 = gpuos.task "prologue_reads_slice_t0_add_rms_norm" ins(%{{.+}} = %[[P]] : !gpuos.tensor<2x1x64xf32>, %{{.+}} = %r : !gpuos.tensor<1x64xf32>,
gpuos.graph @prologue_reads_product(%x : !gpuos.tensor<1x32xf32>, %w : !gpuos.tensor<32x64xf32>, %r : !gpuos.tensor<1x64xf32>, %g : !gpuos.tensor<64xf32>) -> (h : !gpuos.tensor<1x64xf32>, n : !gpuos.tensor<1x64xf32>) {
  %p = gpuos.matmul %x, %w : !gpuos.tensor<1x32xf32>, !gpuos.tensor<32x64xf32>
  %h = gpuos.add %p, %r : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  %n = gpuos.rms_norm %h weight(%g : !gpuos.tensor<64xf32>) eps 1.0e-06 : !gpuos.tensor<1x64xf32>
  gpuos.yield %h, %n : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}
gpuos.graph @prologue_reads_slice(%x : !gpuos.tensor<2x1x16xf32>, %w : !gpuos.tensor<2x16x64xf32>, %r : !gpuos.tensor<1x64xf32>, %g : !gpuos.tensor<64xf32>) -> (h : !gpuos.tensor<1x64xf32>, n : !gpuos.tensor<1x64xf32>) {
  %p = gpuos.matmul %x, %w : !gpuos.tensor<2x1x16xf32>, !gpuos.tensor<2x16x64xf32>
  %s = gpuos.slice %p starts [1, 0, 0] sizes [1, 1, 64] steps [1, 1, 1] : !gpuos.tensor<2x1x64xf32>
  %q = gpuos.reshape %s to [1, 64] : !gpuos.tensor<1x1x64xf32>
  %h = gpuos.add %q, %r : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  %n = gpuos.rms_norm %h weight(%g : !gpuos.tensor<64xf32>) eps 1.0e-06 : !gpuos.tensor<1x64xf32>
  gpuos.yield %h, %n : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}

// Must not fuse: a reduce's tile is its result's elements (4x1), not the
// 4x8 input's, so a prologue that is also read elsewhere cannot be
// written out by the reduce's task.
// CHECK-LABEL: gpuos.graph @reduce_prologue_escapes
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @reduce_prologue_escapes(%x : !gpuos.tensor<4x8xf32>) -> (h : !gpuos.tensor<4x8xf32>, s : !gpuos.tensor<4x1xf32>) {
  %h = gpuos.add %x, %x : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %s = gpuos.reduce sum %h axes [1] keepdim : !gpuos.tensor<4x8xf32>
  gpuos.yield %h, %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
}

// %h may not join the norm's task although the norm reads it: %h also
// reaches the task through the reduce outside it (a cycle). The add that
// reads both joins as the prologue.
// CHECK-LABEL: gpuos.graph @prologue_cycle
// CHECK: %[[H:.+]] = gpuos.add %x, %x
// CHECK: %[[S:.+]] = gpuos.reduce sum %[[H]]
// CHECK: gpuos.task "prologue_cycle_t0_add_rms_norm" ins(%{{.+}} = %[[H]] : !gpuos.tensor<4x8xf32>, %{{.+}} = %[[S]] : !gpuos.tensor<4x1xf32>,
gpuos.graph @prologue_cycle(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<8xf32>) -> (n : !gpuos.tensor<4x8xf32>) {
  %h = gpuos.add %x, %x : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %s = gpuos.reduce sum %h axes [1] keepdim : !gpuos.tensor<4x8xf32>
  %c = gpuos.add %h, %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
  %n = gpuos.rms_norm %c weight(%w : !gpuos.tensor<8xf32>) eps 1.0e-06 : !gpuos.tensor<4x8xf32>
  gpuos.yield %n : !gpuos.tensor<4x8xf32>
}

// Must not fuse: the consumer computes over 4x8, not over the reduction's
// 4x1 result.
// CHECK-LABEL: gpuos.graph @epilogue_other_space
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @epilogue_other_space(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<4x8xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  %r = gpuos.reduce max %x axes [1] keepdim : !gpuos.tensor<4x8xf32>
  %z = gpuos.sub %y, %r : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
  gpuos.yield %z : !gpuos.tensor<4x8xf32>
}

// %z reads %s first, but %z also depends on %s through %w, another
// reduction: joining %s's task would close a cycle, so %z becomes %w's
// epilogue instead, and %u stays %s's.
// CHECK-LABEL: gpuos.graph @epilogue_cycle
// CHECK: %[[T0:.+]]:2 = gpuos.task "epilogue_cycle_t0_reduce_exp" ins(%{{.+}} = %x : !gpuos.tensor<4x8xf32>)
// CHECK-NEXT: %[[S:.+]] = gpuos.reduce sum
// CHECK-NEXT: %[[U:.+]] = gpuos.exp %[[S]]
// CHECK-NEXT: gpuos.yield %[[S]], %[[U]]
// CHECK: %[[T1:.+]] = gpuos.task "epilogue_cycle_t1_reduce_add" ins(%[[UA:.+]] = %[[T0]]#1 : !gpuos.tensor<4xf32>, %[[SA:.+]] = %[[T0]]#0 : !gpuos.tensor<4xf32>)
// CHECK-NEXT: %[[V:.+]] = gpuos.reshape %[[UA]] to [4, 1]
// CHECK-NEXT: %[[W:.+]] = gpuos.reduce min %[[V]] axes [1]
// CHECK-NEXT: %[[Z:.+]] = gpuos.add %[[SA]], %[[W]]
// CHECK-NEXT: gpuos.yield %[[Z]]
// CHECK: gpuos.yield %[[T1]]
gpuos.graph @epilogue_cycle(%x : !gpuos.tensor<4x8xf32>) -> (z : !gpuos.tensor<4xf32>) {
  %s = gpuos.reduce sum %x axes [1] : !gpuos.tensor<4x8xf32>
  %u = gpuos.exp %s : !gpuos.tensor<4xf32>
  %v = gpuos.reshape %u to [4, 1] : !gpuos.tensor<4xf32>
  %w = gpuos.reduce min %v axes [1] : !gpuos.tensor<4x1xf32>
  %z = gpuos.add %s, %w : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %z : !gpuos.tensor<4xf32>
}

// After gpuos-fuse-elementwise the prologue is a task of two ops; it joins
// the softmax whole. The elementwise task reading the softmax's result is
// its epilogue, although part of it (exp, neg of %y) does not read it.
// BOTH-LABEL: gpuos.graph @prologue_task
// BOTH: %[[T:.+]]:2 = gpuos.task "prologue_task_t2_sub_tanh_softmax_exp_neg_add" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[Y:.+]] = %y : !gpuos.tensor<4x8xf32>) tile [4, 8]
// BOTH-NEXT: %[[A:.+]] = gpuos.sub %[[X]], %[[Y]]
// BOTH-NEXT: %[[B:.+]] = gpuos.tanh %[[A]]
// BOTH-NEXT: %[[P:.+]] = gpuos.softmax %[[B]] axis 0
// BOTH-NEXT: %[[C:.+]] = gpuos.exp %[[Y]]
// BOTH-NEXT: %[[D:.+]] = gpuos.neg %[[C]]
// BOTH-NEXT: %[[Q:.+]] = gpuos.add %[[D]], %[[P]]
// BOTH-NEXT: gpuos.yield %[[P]], %[[Q]]
// BOTH-NOT: gpuos.task
// BOTH: gpuos.yield %[[T]]#0, %[[T]]#1
gpuos.graph @prologue_task(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<4x8xf32>) -> (p : !gpuos.tensor<4x8xf32>, q : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.sub %x, %y : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %b = gpuos.tanh %a : !gpuos.tensor<4x8xf32>
  %p = gpuos.softmax %b axis 0 : !gpuos.tensor<4x8xf32>
  %c = gpuos.exp %y : !gpuos.tensor<4x8xf32>
  %d = gpuos.neg %c : !gpuos.tensor<4x8xf32>
  %q = gpuos.add %d, %p : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %p, %q : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
}

// Must not fuse: the task reads the softmax's result through a transpose,
// so it needs other rows than the softmax tile's.
// CHECK-LABEL: gpuos.graph @epilogue_through_view
// CHECK-NEXT: %[[P:.+]] = gpuos.softmax %x axis 1
// CHECK-NEXT: %[[Y:.+]] = gpuos.task "viewer" ins(%{{.+}} = %[[P]] : !gpuos.tensor<4x4xf32>)
// CHECK-NEXT: gpuos.transpose
// CHECK-NEXT: gpuos.exp
gpuos.graph @epilogue_through_view(%x : !gpuos.tensor<4x4xf32>) -> (y : !gpuos.tensor<4x4xf32>) {
  %p = gpuos.softmax %x axis 1 : !gpuos.tensor<4x4xf32>
  %y = gpuos.task "viewer" ins(%a = %p : !gpuos.tensor<4x4xf32>) tile [4, 4] -> (!gpuos.tensor<4x4xf32>) {
    %t = gpuos.transpose %a [1, 0] : !gpuos.tensor<4x4xf32>
    %e = gpuos.exp %t : !gpuos.tensor<4x4xf32, strides = [1, 4]>
    gpuos.yield %e : !gpuos.tensor<4x4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x4xf32>
}

// The prologue task reads %q through a transpose: the task joins the
// reduction, %q does not.
// CHECK-LABEL: gpuos.graph @prologue_through_view
// CHECK-NEXT: %[[Q:.+]] = gpuos.exp %x
// CHECK-NEXT: gpuos.task "prologue_through_view_t0_neg_reduce" ins(%[[A:.+]] = %[[Q]] : !gpuos.tensor<4x4xf32>)
// CHECK-NEXT: %[[T:.+]] = gpuos.transpose %[[A]] [1, 0]
// CHECK-NEXT: %[[N:.+]] = gpuos.neg %[[T]]
// CHECK-NEXT: gpuos.reduce sum %[[N]] axes [1]
gpuos.graph @prologue_through_view(%x : !gpuos.tensor<4x4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %q = gpuos.exp %x : !gpuos.tensor<4x4xf32>
  %p = gpuos.task "viewer" ins(%a = %q : !gpuos.tensor<4x4xf32>) tile [4, 4] -> (!gpuos.tensor<4x4xf32>) {
    %t = gpuos.transpose %a [1, 0] : !gpuos.tensor<4x4xf32>
    %n = gpuos.neg %t : !gpuos.tensor<4x4xf32, strides = [1, 4]>
    gpuos.yield %n : !gpuos.tensor<4x4xf32>
  }
  %y = gpuos.reduce sum %p axes [1] : !gpuos.tensor<4x4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// Row chain: a norm whose input comes from another norm's group over the
// same rows joins that group; its epilogue follows. %h1 is also a graph
// result, so the task yields it too.
// CHECK-LABEL: gpuos.graph @norm_chain
// CHECK-NEXT: %[[T:.+]]:2 = gpuos.task "norm_chain_t0_add_rms_norm_layer_norm_mul"
// CHECK-NEXT: gpuos.add
// CHECK-NEXT: gpuos.rms_norm
// CHECK-NEXT: gpuos.add
// CHECK-NEXT: gpuos.layer_norm
// CHECK-NEXT: gpuos.mul
// CHECK-NEXT: gpuos.yield
// CHECK-NOT: gpuos.task
gpuos.graph @norm_chain(%x : !gpuos.tensor<4x64xf32>, %d : !gpuos.tensor<4x64xf32>, %w : !gpuos.tensor<64xf32>) -> (h1 : !gpuos.tensor<4x64xf32>, y : !gpuos.tensor<4x64xf32>) {
  %a = gpuos.add %x, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
  %n = gpuos.rms_norm %a weight(%w : !gpuos.tensor<64xf32>) eps 1.0e-6 : !gpuos.tensor<4x64xf32>
  %h1 = gpuos.add %n, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
  %l = gpuos.layer_norm %h1 eps 1.0e-5 : !gpuos.tensor<4x64xf32>
  %y = gpuos.mul %l, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
  gpuos.yield %h1, %y : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
}

// A chain holds at most 32 row ops: the thirty-third norm starts a new task.
// CHECK-LABEL: gpuos.graph @long_chain
// CHECK: gpuos.task "long_chain_t0_rms_norm"
// CHECK-COUNT-32: gpuos.rms_norm
// CHECK-NEXT: gpuos.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpuos.rms_norm
// CHECK-NEXT: gpuos.yield
gpuos.graph @long_chain(%x : !gpuos.tensor<2x32xf32>) -> (y : !gpuos.tensor<2x32xf32>) {
  %0 = gpuos.rms_norm %x eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %1 = gpuos.rms_norm %0 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %2 = gpuos.rms_norm %1 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %3 = gpuos.rms_norm %2 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %4 = gpuos.rms_norm %3 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %5 = gpuos.rms_norm %4 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %6 = gpuos.rms_norm %5 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %7 = gpuos.rms_norm %6 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %8 = gpuos.rms_norm %7 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %9 = gpuos.rms_norm %8 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %10 = gpuos.rms_norm %9 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %11 = gpuos.rms_norm %10 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %12 = gpuos.rms_norm %11 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %13 = gpuos.rms_norm %12 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %14 = gpuos.rms_norm %13 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %15 = gpuos.rms_norm %14 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %16 = gpuos.rms_norm %15 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %17 = gpuos.rms_norm %16 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %18 = gpuos.rms_norm %17 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %19 = gpuos.rms_norm %18 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %20 = gpuos.rms_norm %19 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %21 = gpuos.rms_norm %20 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %22 = gpuos.rms_norm %21 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %23 = gpuos.rms_norm %22 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %24 = gpuos.rms_norm %23 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %25 = gpuos.rms_norm %24 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %26 = gpuos.rms_norm %25 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %27 = gpuos.rms_norm %26 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %28 = gpuos.rms_norm %27 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %29 = gpuos.rms_norm %28 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %30 = gpuos.rms_norm %29 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %31 = gpuos.rms_norm %30 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  %32 = gpuos.rms_norm %31 eps 1.0e-6 : !gpuos.tensor<2x32xf32>
  gpuos.yield %32 : !gpuos.tensor<2x32xf32>
}

// Rows longer than the straight-line limit (4096 elements) run the loop
// copy, whose work grows with the square of the chain: 16 links a task.
// CHECK-LABEL: gpuos.graph @long_rows_chain
// CHECK: gpuos.task "long_rows_chain_t0_rms_norm"
// CHECK-COUNT-16: gpuos.rms_norm
// CHECK-NEXT: gpuos.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpuos.rms_norm
// CHECK-NEXT: gpuos.yield
gpuos.graph @long_rows_chain(%x : !gpuos.tensor<1x8192xf32>) -> (y : !gpuos.tensor<1x8192xf32>) {
  %0 = gpuos.rms_norm %x eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %1 = gpuos.rms_norm %0 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %2 = gpuos.rms_norm %1 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %3 = gpuos.rms_norm %2 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %4 = gpuos.rms_norm %3 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %5 = gpuos.rms_norm %4 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %6 = gpuos.rms_norm %5 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %7 = gpuos.rms_norm %6 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %8 = gpuos.rms_norm %7 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %9 = gpuos.rms_norm %8 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %10 = gpuos.rms_norm %9 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %11 = gpuos.rms_norm %10 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %12 = gpuos.rms_norm %11 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %13 = gpuos.rms_norm %12 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %14 = gpuos.rms_norm %13 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %15 = gpuos.rms_norm %14 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  %16 = gpuos.rms_norm %15 eps 1.0e-6 : !gpuos.tensor<1x8192xf32>
  gpuos.yield %16 : !gpuos.tensor<1x8192xf32>
}

// Must not chain: a softmax over the leading axis needs whole columns, and
// rows of other shapes are other rows.
// CHECK-LABEL: gpuos.graph @not_a_chain
// CHECK-NEXT: %[[N:.+]] = gpuos.rms_norm %x
// CHECK-NEXT: %[[S:.+]] = gpuos.softmax %[[N]] axis 0
// CHECK-NEXT: %[[R:.+]] = gpuos.reshape %[[S]]
// CHECK-NEXT: gpuos.rms_norm %[[R]]
gpuos.graph @not_a_chain(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<2x16xf32>) {
  %n = gpuos.rms_norm %x eps 1.0e-6 : !gpuos.tensor<4x8xf32>
  %s = gpuos.softmax %n axis 0 : !gpuos.tensor<4x8xf32>
  %r = gpuos.reshape %s to [2, 16] : !gpuos.tensor<4x8xf32>
  %y = gpuos.rms_norm %r eps 1.0e-6 : !gpuos.tensor<2x16xf32>
  gpuos.yield %y : !gpuos.tensor<2x16xf32>
}
