// RUN: gpuos-opt %s | FileCheck %s
// RUN: gpuos-opt %s | gpuos-opt | FileCheck %s
// RUN: gpuos-opt %s --mlir-print-op-generic | gpuos-opt | FileCheck %s

// Priority attributes on graphs and tasks, enum attributes on ops.

// CHECK-LABEL: gpuos.graph @urgent_deadline
// CHECK-SAME: priority #gpuos.priority<urgent, deadline_us = 250>
gpuos.graph @urgent_deadline(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    priority #gpuos.priority<urgent, deadline_us = 250> {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// CHECK-LABEL: gpuos.graph @normal
// CHECK-SAME: priority #gpuos.priority<normal>
gpuos.graph @normal(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    priority #gpuos.priority<normal> {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// A graph without a priority prints none; a task may carry its own.
// CHECK-LABEL: gpuos.graph @background_task
// CHECK-SAME: -> (y : !gpuos.tensor<4xf32>) {
// CHECK: gpuos.task "neg" {{.*}} priority #gpuos.priority<background>
gpuos.graph @background_task(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4]
      priority #gpuos.priority<background> -> (!gpuos.tensor<4xf32>) {
    %n = gpuos.neg %a : !gpuos.tensor<4xf32>
    gpuos.yield %n : !gpuos.tensor<4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// Other attributes in the graph's dictionary survive next to the priority.
// CHECK-LABEL: gpuos.graph @extra_attrs
// CHECK-SAME: attributes {gpuos.origin = "torch"}
gpuos.graph @extra_attrs(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    attributes {gpuos.origin = "torch"} {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
