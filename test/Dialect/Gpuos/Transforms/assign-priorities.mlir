// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-assign-priorities))' | FileCheck %s

// Costs: exp and neg over 4 elements cost 4; the 1x4 by 4x4 matmul costs
// 4 results x K 4 = 16 (the reshapes are free). Critical paths: head
// 4 + 16 = 20, tail 16, short 4; the body follows that order. Tasks without
// a priority take the graph's; tail keeps its own.
// CHECK-LABEL: gpuos.graph @order
// CHECK-NEXT: %[[H:.+]] = gpuos.task "head" {{.+}} priority #gpuos.priority<urgent, deadline_us = 100> -> (!gpuos.tensor<4xf32>) attributes {gpuos.critical_path = 20 : i64}
// CHECK: %[[T:.+]] = gpuos.task "tail" ins(%{{.+}} = %[[H]] : {{.+}} priority #gpuos.priority<background> -> (!gpuos.tensor<4xf32>) attributes {gpuos.critical_path = 16 : i64}
// CHECK: %[[S:.+]] = gpuos.task "short" {{.+}} priority #gpuos.priority<urgent, deadline_us = 100> -> (!gpuos.tensor<4xf32>) attributes {gpuos.critical_path = 4 : i64}
// CHECK: gpuos.yield %[[S]], %[[T]]
gpuos.graph @order(%x : !gpuos.tensor<4xf32>, %w : !gpuos.tensor<4x4xf32>) -> (s : !gpuos.tensor<4xf32>, l : !gpuos.tensor<4xf32>)
    priority #gpuos.priority<urgent, deadline_us = 100> {
  %s = gpuos.task "short" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    %e = gpuos.exp %a : !gpuos.tensor<4xf32>
    gpuos.yield %e : !gpuos.tensor<4xf32>
  }
  %h = gpuos.task "head" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    %n = gpuos.neg %a : !gpuos.tensor<4xf32>
    gpuos.yield %n : !gpuos.tensor<4xf32>
  }
  %l = gpuos.task "tail" ins(%a = %h : !gpuos.tensor<4xf32>, %b = %w : !gpuos.tensor<4x4xf32>) tile [4]
      priority #gpuos.priority<background> -> (!gpuos.tensor<4xf32>) {
    %r = gpuos.reshape %a to [1, 4] : !gpuos.tensor<4xf32>
    %m = gpuos.matmul %r, %b : !gpuos.tensor<1x4xf32>, !gpuos.tensor<4x4xf32>
    %o = gpuos.reshape %m to [4] : !gpuos.tensor<1x4xf32>
    gpuos.yield %o : !gpuos.tensor<4xf32>
  }
  gpuos.yield %s, %l : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}

// Without a graph priority tasks get none. Equal critical paths keep their
// order (b before a, as written); the attribute counts the work through the
// consumer: 8 + 8.
// CHECK-LABEL: gpuos.graph @ties
// CHECK-NEXT: gpuos.task "b" ins({{.+}}) tile [8] -> (!gpuos.tensor<8xf32>) attributes {gpuos.critical_path = 16 : i64}
// CHECK: gpuos.task "a" ins({{.+}}) tile [8] -> (!gpuos.tensor<8xf32>) attributes {gpuos.critical_path = 16 : i64}
// CHECK: gpuos.task "c" ins({{.+}}) tile [8] -> (!gpuos.tensor<8xf32>) attributes {gpuos.critical_path = 8 : i64}
gpuos.graph @ties(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<8xf32>) {
  %b = gpuos.task "b" ins(%p = %x : !gpuos.tensor<8xf32>) tile [8] -> (!gpuos.tensor<8xf32>) {
    %e = gpuos.exp %p : !gpuos.tensor<8xf32>
    gpuos.yield %e : !gpuos.tensor<8xf32>
  }
  %a = gpuos.task "a" ins(%p = %x : !gpuos.tensor<8xf32>) tile [8] -> (!gpuos.tensor<8xf32>) {
    %e = gpuos.neg %p : !gpuos.tensor<8xf32>
    gpuos.yield %e : !gpuos.tensor<8xf32>
  }
  %c = gpuos.task "c" ins(%p = %a : !gpuos.tensor<8xf32>, %q = %b : !gpuos.tensor<8xf32>) tile [8] -> (!gpuos.tensor<8xf32>) {
    %e = gpuos.add %p, %q : !gpuos.tensor<8xf32>, !gpuos.tensor<8xf32>
    gpuos.yield %e : !gpuos.tensor<8xf32>
  }
  gpuos.yield %c : !gpuos.tensor<8xf32>
}

// Ops outside tasks are ordered too (written in reverse here) but carry no
// attribute: the runtime schedules tasks.
// CHECK-LABEL: gpuos.graph @plain_ops
// CHECK-NEXT: %[[A:.+]] = gpuos.neg %x : !gpuos.tensor<8xf32>
// CHECK-NEXT: %[[B:.+]] = gpuos.exp %[[A]] : !gpuos.tensor<8xf32>
// CHECK-NEXT: gpuos.yield %[[B]]
gpuos.graph @plain_ops(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<8xf32>) {
  %b = gpuos.exp %a : !gpuos.tensor<8xf32>
  %a = gpuos.neg %x : !gpuos.tensor<8xf32>
  gpuos.yield %b : !gpuos.tensor<8xf32>
}
