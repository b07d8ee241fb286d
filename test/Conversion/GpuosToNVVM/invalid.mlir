// What the lowering rejects, with the task's location.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm -split-input-file -verify-diagnostics

gpuos.graph @dynamic(%x : !gpuos.tensor<?x64xf32>) -> (y : !gpuos.tensor<?x64xf32>) {
  // expected-error @+1 {{'gpuos.task' op input #0 has type '!gpuos.tensor<?x64xf32>'; dynamic sizes and strides are not lowered yet (ABI dynamic slots)}}
  %r = gpuos.task "dyn" ins(%a = %x : !gpuos.tensor<?x64xf32>) tile [1, 64] -> (!gpuos.tensor<?x64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<?x64xf32>
    gpuos.yield %0 : !gpuos.tensor<?x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<?x64xf32>
}

// -----

// A `?` inside the body is rejected at the op that makes it, though the
// task's inputs and results are static: gpuos-partition makes this task
// from a valid graph (reshape to [2, ?], then reduce), and the sizes the
// lowering reads would be INT64_MIN.
gpuos.graph @dynamic_view(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<2xf32>) {
  %r = gpuos.task "dyn_view" ins(%a = %x : !gpuos.tensor<4x8xf32>) tile [2] -> (!gpuos.tensor<2xf32>) {
    // expected-error @+1 {{'gpuos.reshape' op result #0 has type '!gpuos.tensor<2x?xf32>' in task 'dyn_view'; dynamic sizes and strides are not lowered yet (ABI dynamic slots): give the op static sizes}}
    %0 = gpuos.reshape %a to [2, ?] : !gpuos.tensor<4x8xf32>
    %1 = gpuos.reduce sum %0 axes [1] : !gpuos.tensor<2x?xf32>
    gpuos.yield %1 : !gpuos.tensor<2xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2xf32>
}

// -----

// A dynamic size that a broadcast would have to stretch: the lowering
// cannot know that the `?` is 1.
gpuos.graph @dynamic_broadcast(%x : !gpuos.tensor<8xf32>, %y : !gpuos.tensor<4x8xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  %r = gpuos.task "dyn_broadcast" ins(%a = %x : !gpuos.tensor<8xf32>, %b = %y : !gpuos.tensor<4x8xf32>) tile [4, 8] -> (!gpuos.tensor<4x8xf32>) {
    // expected-error @+1 {{'gpuos.reshape' op result #0 has type '!gpuos.tensor<?x8xf32>' in task 'dyn_broadcast'; dynamic sizes and strides are not lowered yet (ABI dynamic slots): give the op static sizes}}
    %0 = gpuos.reshape %a to [?, 8] : !gpuos.tensor<8xf32>
    %1 = gpuos.add %0, %b : !gpuos.tensor<?x8xf32>, !gpuos.tensor<4x8xf32>
    gpuos.yield %1 : !gpuos.tensor<4x8xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x8xf32>
}

// -----

gpuos.graph @twice(%x : !gpuos.tensor<64xf32>) -> (y : !gpuos.tensor<64xf32>, z : !gpuos.tensor<64xf32>) {
  // expected-note @+1 {{the other task}}
  %r = gpuos.task "same" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  // expected-error @+1 {{kind 'same' is already used by another task; kinds name device functions and must be unique within an image}}
  %s = gpuos.task "same" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.abs %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r, %s : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf32>
}

// -----

gpuos.graph @kind(%x : !gpuos.tensor<64xf32>) -> (y : !gpuos.tensor<64xf32>) {
  // expected-error @+1 {{kind 'not-a-c-name' is not a C identifier; it names the device function gpuos_task_<kind>}}
  %r = gpuos.task "not-a-c-name" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}

// -----

gpuos.graph @shapes(%x : !gpuos.tensor<8x64xf32>) -> (y : !gpuos.tensor<8x64xf32>, t : !gpuos.tensor<64x8xf32>) {
  // expected-error @+1 {{result #1 has shape 64x8, which is neither the iteration space 8x64 nor its rows reduced; split the task}}
  %r:2 = gpuos.task "shapes" ins(%a = %x : !gpuos.tensor<8x64xf32>) tile [1, 64]
      -> (!gpuos.tensor<8x64xf32>, !gpuos.tensor<64x8xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<8x64xf32>
    %1 = gpuos.transpose %a [1, 0] : !gpuos.tensor<8x64xf32>
    %2 = gpuos.exp %1 : !gpuos.tensor<64x8xf32, strides = [1, 64]>
    gpuos.yield %0, %2 : !gpuos.tensor<8x64xf32>, !gpuos.tensor<64x8xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<8x64xf32>, !gpuos.tensor<64x8xf32>
}

// -----

gpuos.graph @resource(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %r = gpuos.task "resource" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    // expected-error @+1 {{with a non-dense (resource) value is not lowered to NVVM yet; use a dense<...> literal}}
    %c = gpuos.constant dense_resource<blob> : tensor<4xf32>
    %0 = gpuos.add %a, %c : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
    gpuos.yield %0 : !gpuos.tensor<4xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x0400000000000000000000000000000000000000"
    }
  }
#-}
