// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise))' | FileCheck %s

// A chain of elementwise ops of one shape becomes one task; intermediates
// stay inside and only the last value is a result.
// CHECK-LABEL: gpuos.graph @chain
// CHECK: %[[T:.+]] = gpuos.task "chain_t0_neg_exp_tanh" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>) tile [4, 8] -> (!gpuos.tensor<4x8xf32>) {
// CHECK-NEXT: %[[A:.+]] = gpuos.neg %[[X]]
// CHECK-NEXT: %[[B:.+]] = gpuos.exp %[[A]]
// CHECK-NEXT: %[[C:.+]] = gpuos.tanh %[[B]]
// CHECK-NEXT: gpuos.yield %[[C]] : !gpuos.tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpuos.yield %[[T]] : !gpuos.tensor<4x8xf32>
gpuos.graph @chain(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %c = gpuos.tanh %b : !gpuos.tensor<4x8xf32>
  %a = gpuos.neg %x : !gpuos.tensor<4x8xf32>
  %b = gpuos.exp %a : !gpuos.tensor<4x8xf32>
  gpuos.yield %c : !gpuos.tensor<4x8xf32>
}

// A DAG with fan-out fuses whole. Values read outside the group become
// results in op order: %a (a graph output), %c (an output) and %d (read by
// the matmul, which is not elementwise); %b stays inside.
// CHECK-LABEL: gpuos.graph @dag_escape
// CHECK: %[[T:.+]]:3 = gpuos.task "dag_escape_t0_exp_neg_add_sigmoid" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>) tile [4, 8]
// CHECK-SAME: -> (!gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>)
// CHECK-NEXT: %[[A:.+]] = gpuos.exp %[[X]]
// CHECK-NEXT: %[[B:.+]] = gpuos.neg %[[A]]
// CHECK-NEXT: %[[C:.+]] = gpuos.add %[[A]], %[[B]]
// CHECK-NEXT: %[[D:.+]] = gpuos.sigmoid %[[B]]
// CHECK-NEXT: gpuos.yield %[[A]], %[[C]], %[[D]]
// CHECK: %[[M:.+]] = gpuos.matmul %[[T]]#2, %w
// CHECK-NEXT: gpuos.yield %[[T]]#0, %[[T]]#1, %[[M]]
gpuos.graph @dag_escape(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<8x16xf32>)
    -> (a : !gpuos.tensor<4x8xf32>, c : !gpuos.tensor<4x8xf32>, m : !gpuos.tensor<4x16xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4x8xf32>
  %b = gpuos.neg %a : !gpuos.tensor<4x8xf32>
  %c = gpuos.add %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  %d = gpuos.sigmoid %b : !gpuos.tensor<4x8xf32>
  %m = gpuos.matmul %d, %w : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8x16xf32>
  gpuos.yield %a, %c, %m : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x16xf32>
}

// Views and constants feeding the group are cloned in: the task reads %w
// itself and the broadcast operand %b as it is. The transpose also feeds a
// matmul, so the original stays for it; the constant has no user left and
// goes.
// CHECK-LABEL: gpuos.graph @views_and_constants
// CHECK-NOT: gpuos.constant
// CHECK: %[[TW:.+]] = gpuos.transpose %w [1, 0]
// CHECK-NEXT: %[[T:.+]] = gpuos.task "views_and_constants_t0_mul_add" ins(%[[X:.+]] = %x : !gpuos.tensor<4x8xf32>, %[[W:.+]] = %w : !gpuos.tensor<8x4xf32>, %[[B:.+]] = %b : !gpuos.tensor<8xf32>) tile [4, 8] -> (!gpuos.tensor<4x8xf32>) {
// CHECK-NEXT: %[[V:.+]] = gpuos.transpose %[[W]] [1, 0]
// CHECK-NEXT: %[[M:.+]] = gpuos.mul %[[X]], %[[V]]
// CHECK-NEXT: %[[H:.+]] = gpuos.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[S:.+]] = gpuos.mul %[[M]], %[[H]]
// CHECK-NEXT: %[[Y:.+]] = gpuos.add %[[S]], %[[B]] : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
// CHECK-NEXT: gpuos.yield %[[Y]]
// CHECK: gpuos.matmul %x, %[[TW]] transpose_rhs
gpuos.graph @views_and_constants(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<8x4xf32>, %b : !gpuos.tensor<8xf32>)
    -> (y : !gpuos.tensor<4x8xf32>, t : !gpuos.tensor<4x4xf32>) {
  %half = gpuos.constant dense<0.5> : tensor<f32>
  %t = gpuos.transpose %w [1, 0] : !gpuos.tensor<8x4xf32>
  %m = gpuos.mul %x, %t : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32, strides = [1, 4]>
  %s = gpuos.mul %m, %half : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
  %y = gpuos.add %s, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %mm = gpuos.matmul %x, %t transpose_rhs : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32, strides = [1, 4]>
  gpuos.yield %y, %mm : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x4xf32>
}

// cmp and select are elementwise; the i1 intermediate stays inside.
// CHECK-LABEL: gpuos.graph @cmp_select
// CHECK: gpuos.task "cmp_select_t0_cmp_select" ins(%{{.+}} = %x : !gpuos.tensor<4x8xf32>, %{{.+}} = %y : !gpuos.tensor<8xf32>) tile [4, 8] -> (!gpuos.tensor<4x8xf32>)
// CHECK-NEXT: gpuos.cmp lt
// CHECK-NEXT: gpuos.select
// CHECK-NEXT: gpuos.yield
gpuos.graph @cmp_select(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<8xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  %m = gpuos.cmp lt, %x, %y : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %s = gpuos.select %m, %x, %y : !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  gpuos.yield %s : !gpuos.tensor<4x8xf32>
}

// Must not fuse: %b reads %a directly and through the reduction, so one
// task holding %a and %b would feed the reduction and read its result.
// CHECK-LABEL: gpuos.graph @cycle_through_reduce
// CHECK-NOT: gpuos.task
// CHECK: gpuos.exp
// CHECK: gpuos.reduce
// CHECK: gpuos.div
// CHECK: gpuos.yield
gpuos.graph @cycle_through_reduce(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4x8xf32>
  %r = gpuos.reduce sum %a axes [1] keepdim : !gpuos.tensor<4x8xf32>
  %b = gpuos.div %a, %r : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
  gpuos.yield %b : !gpuos.tensor<4x8xf32>
}

// Must not fuse: %b reads a transposed view of %a, which needs %a at other
// indices; the view is a path outside the group.
// CHECK-LABEL: gpuos.graph @cycle_through_view
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @cycle_through_view(%x : !gpuos.tensor<4x4xf32>) -> (y : !gpuos.tensor<4x4xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4x4xf32>
  %t = gpuos.transpose %a [1, 0] : !gpuos.tensor<4x4xf32>
  %b = gpuos.add %t, %a : !gpuos.tensor<4x4xf32, strides = [1, 4]>, !gpuos.tensor<4x4xf32>
  gpuos.yield %b : !gpuos.tensor<4x4xf32>
}

// %d reads %a and %c. Joining %a's group would close a cycle through the
// reduction (%a -> %r -> %b -> %c -> %d), so %d joins only the group of %b
// and %c; %a stays alone.
// CHECK-LABEL: gpuos.graph @two_producers_one_cycle
// CHECK: %[[A:.+]] = gpuos.exp %x
// CHECK-NEXT: %[[R:.+]] = gpuos.reduce max %[[A]]
// CHECK-NEXT: %[[T:.+]] = gpuos.task "two_producers_one_cycle_t0_sub_neg_add" ins(%[[Y:.+]] = %y : !gpuos.tensor<4x8xf32>, %[[RA:.+]] = %[[R]] : !gpuos.tensor<4x1xf32>, %[[AA:.+]] = %[[A]] : !gpuos.tensor<4x8xf32>)
// CHECK-NEXT: %[[B:.+]] = gpuos.sub %[[Y]], %[[RA]]
// CHECK-NEXT: %[[C:.+]] = gpuos.neg %[[B]]
// CHECK-NEXT: %[[D:.+]] = gpuos.add %[[AA]], %[[C]]
// CHECK-NEXT: gpuos.yield %[[D]]
gpuos.graph @two_producers_one_cycle(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<4x8xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4x8xf32>
  %r = gpuos.reduce max %a axes [1] keepdim : !gpuos.tensor<4x8xf32>
  %b = gpuos.sub %y, %r : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x1xf32>
  %c = gpuos.neg %b : !gpuos.tensor<4x8xf32>
  %d = gpuos.add %a, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %d : !gpuos.tensor<4x8xf32>
}

// Must not fuse: the iteration spaces differ (8 and 4x8); the smaller op's
// value is an input of whatever task reads it later.
// CHECK-LABEL: gpuos.graph @different_spaces
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @different_spaces(%x : !gpuos.tensor<8xf32>, %y : !gpuos.tensor<4x8xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<8xf32>
  %b = gpuos.add %y, %a : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  gpuos.yield %b : !gpuos.tensor<4x8xf32>
}

// Must not fuse: equal types with a dynamic dimension do not prove equal
// run-time sizes.
// CHECK-LABEL: gpuos.graph @dynamic
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @dynamic(%x : !gpuos.tensor<?x8xf32>) -> (z : !gpuos.tensor<?x8xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<?x8xf32>
  %b = gpuos.neg %a : !gpuos.tensor<?x8xf32>
  gpuos.yield %b : !gpuos.tensor<?x8xf32>
}

// Nor does an op with a static result but a dynamic operand (the add
// broadcasts a ?x8 input against 4x8).
// CHECK-LABEL: gpuos.graph @dynamic_operand
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @dynamic_operand(%x : !gpuos.tensor<?x8xf32>, %y : !gpuos.tensor<4x8xf32>)
    -> (a : !gpuos.tensor<4x8xf32>) {
  %e = gpuos.exp %y : !gpuos.tensor<4x8xf32>
  %a = gpuos.add %x, %e : !gpuos.tensor<?x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %a : !gpuos.tensor<4x8xf32>
}

// Two groups get distinct kinds. A graph name that is not a C identifier is
// sanitized and a hash of it appended.
// CHECK-LABEL: gpuos.graph @"my-graph"
// CHECK: gpuos.task "[[P:my_graph_[0-9a-f]+]]_t0_exp_neg" ins(%{{.+}} = %x : !gpuos.tensor<4xf32>) tile [4]
// CHECK: gpuos.task "[[P]]_t1_exp_cast" ins(%{{.+}} = %y : !gpuos.tensor<3xf32>) tile [3]
gpuos.graph @"my-graph"(%x : !gpuos.tensor<4xf32>, %y : !gpuos.tensor<3xf32>) -> (a : !gpuos.tensor<4xf32>, b : !gpuos.tensor<3xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4xf32>
  %b = gpuos.neg %a : !gpuos.tensor<4xf32>
  %c = gpuos.exp %y : !gpuos.tensor<3xf32>
  %d = gpuos.cast %c : !gpuos.tensor<3xf32> to f16
  %e = gpuos.cast %d : !gpuos.tensor<3xf16> to f32
  gpuos.yield %b, %e : !gpuos.tensor<4xf32>, !gpuos.tensor<3xf32>
}

// An existing elementwise task fuses with the ops around it; the new kind
// continues after the indexes the graph already uses.
// CHECK-LABEL: gpuos.graph @with_task
// CHECK: gpuos.task "with_task_t8_exp_neg_abs" ins(%{{.+}} = %x : !gpuos.tensor<4xf32>) tile [4]
// CHECK-NEXT: gpuos.exp
// CHECK-NEXT: gpuos.neg
// CHECK-NEXT: gpuos.abs
// CHECK-NEXT: gpuos.yield
gpuos.graph @with_task(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4xf32>
  %t = gpuos.task "with_task_t7_neg" ins(%p = %a : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    %n = gpuos.neg %p : !gpuos.tensor<4xf32>
    gpuos.yield %n : !gpuos.tensor<4xf32>
  }
  %b = gpuos.abs %t : !gpuos.tensor<4xf32>
  gpuos.yield %b : !gpuos.tensor<4xf32>
}

// Must not fuse: the task reads %a through a transpose; in one task that
// would be a view of a computed value.
// CHECK-LABEL: gpuos.graph @task_views_producer
// CHECK-NEXT: %[[A:.+]] = gpuos.exp %x
// CHECK-NEXT: gpuos.task "viewer" ins(%{{.+}} = %[[A]] : !gpuos.tensor<4x4xf32>)
gpuos.graph @task_views_producer(%x : !gpuos.tensor<4x4xf32>) -> (y : !gpuos.tensor<4x4xf32>) {
  %a = gpuos.exp %x : !gpuos.tensor<4x4xf32>
  %y = gpuos.task "viewer" ins(%b = %a : !gpuos.tensor<4x4xf32>) tile [4, 4] -> (!gpuos.tensor<4x4xf32>) {
    %t = gpuos.transpose %b [1, 0] : !gpuos.tensor<4x4xf32>
    %n = gpuos.neg %t : !gpuos.tensor<4x4xf32, strides = [1, 4]>
    gpuos.yield %n : !gpuos.tensor<4x4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x4xf32>
}

// At most 16 results per task: a chain of 18 ops that are all graph outputs
// splits after the 16th.
// CHECK-LABEL: gpuos.graph @result_cap
// CHECK: %[[A:.+]]:16 = gpuos.task "result_cap_t0_neg" ins(%{{.+}} = %x : !gpuos.tensor<4xf32>) tile [4]
// CHECK-COUNT-16: gpuos.neg
// CHECK-NEXT: gpuos.yield
// CHECK: %[[B:.+]]:2 = gpuos.task "result_cap_t1_neg" ins(%{{.+}} = %[[A]]#15 : !gpuos.tensor<4xf32>) tile [4]
// CHECK-COUNT-2: gpuos.neg
// CHECK-NEXT: gpuos.yield
// CHECK: gpuos.yield %[[A]]#0, %[[A]]#1, {{.+}}, %[[A]]#15, %[[B]]#0, %[[B]]#1 :
gpuos.graph @result_cap(%x : !gpuos.tensor<4xf32>) -> (y0 : !gpuos.tensor<4xf32>, y1 : !gpuos.tensor<4xf32>, y2 : !gpuos.tensor<4xf32>, y3 : !gpuos.tensor<4xf32>, y4 : !gpuos.tensor<4xf32>, y5 : !gpuos.tensor<4xf32>, y6 : !gpuos.tensor<4xf32>, y7 : !gpuos.tensor<4xf32>, y8 : !gpuos.tensor<4xf32>, y9 : !gpuos.tensor<4xf32>, y10 : !gpuos.tensor<4xf32>, y11 : !gpuos.tensor<4xf32>, y12 : !gpuos.tensor<4xf32>, y13 : !gpuos.tensor<4xf32>, y14 : !gpuos.tensor<4xf32>, y15 : !gpuos.tensor<4xf32>, y16 : !gpuos.tensor<4xf32>, y17 : !gpuos.tensor<4xf32>) {
  %a0 = gpuos.neg %x : !gpuos.tensor<4xf32>
  %a1 = gpuos.neg %a0 : !gpuos.tensor<4xf32>
  %a2 = gpuos.neg %a1 : !gpuos.tensor<4xf32>
  %a3 = gpuos.neg %a2 : !gpuos.tensor<4xf32>
  %a4 = gpuos.neg %a3 : !gpuos.tensor<4xf32>
  %a5 = gpuos.neg %a4 : !gpuos.tensor<4xf32>
  %a6 = gpuos.neg %a5 : !gpuos.tensor<4xf32>
  %a7 = gpuos.neg %a6 : !gpuos.tensor<4xf32>
  %a8 = gpuos.neg %a7 : !gpuos.tensor<4xf32>
  %a9 = gpuos.neg %a8 : !gpuos.tensor<4xf32>
  %a10 = gpuos.neg %a9 : !gpuos.tensor<4xf32>
  %a11 = gpuos.neg %a10 : !gpuos.tensor<4xf32>
  %a12 = gpuos.neg %a11 : !gpuos.tensor<4xf32>
  %a13 = gpuos.neg %a12 : !gpuos.tensor<4xf32>
  %a14 = gpuos.neg %a13 : !gpuos.tensor<4xf32>
  %a15 = gpuos.neg %a14 : !gpuos.tensor<4xf32>
  %a16 = gpuos.neg %a15 : !gpuos.tensor<4xf32>
  %a17 = gpuos.neg %a16 : !gpuos.tensor<4xf32>
  gpuos.yield %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16, %a17 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}
