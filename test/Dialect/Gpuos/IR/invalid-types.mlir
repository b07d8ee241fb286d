// RUN: gpuos-opt %s --split-input-file --verify-diagnostics

// Tensor types and priority attributes reject malformed parameters.

// expected-error @+1 {{unsupported element type 'i16'; gpuos tensors hold f32, f16, bf16, f64, i64, i32, i8 or i1}}
gpuos.graph @bad_dtype(%x : !gpuos.tensor<4xi16>) -> (y : !gpuos.tensor<4xi16>) {
  gpuos.yield %x : !gpuos.tensor<4xi16>
}

// -----

// expected-error @+1 {{unsupported element type 'ui32'}}
gpuos.graph @unsigned(%x : !gpuos.tensor<4xui32>) -> (y : !gpuos.tensor<4xui32>) {
  gpuos.yield %x : !gpuos.tensor<4xui32>
}

// -----

// expected-error @+1 {{has 1 strides for rank 2; give one stride per dimension}}
gpuos.graph @stride_count(%x : !gpuos.tensor<4x8xf32, strides = [1]>) -> (y : !gpuos.tensor<4x8xf32>) {
  gpuos.yield %x : !gpuos.tensor<4x8xf32>
}

// -----

// expected-error @+1 {{stride -8 of dimension 0 is negative; gpuos views need strides >= 0}}
gpuos.graph @negative_stride(%x : !gpuos.tensor<4x8xf32, strides = [-8, 1]>) -> (y : !gpuos.tensor<4x8xf32>) {
  gpuos.yield %x : !gpuos.tensor<4x8xf32>
}

// -----

// expected-error @+1 {{strides must list one stride per dimension; omit `strides` for a contiguous tensor}}
gpuos.graph @empty_strides(%x : !gpuos.tensor<4xf32, strides = []>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{expected 'strides'}}
gpuos.graph @bad_keyword(%x : !gpuos.tensor<4xf32, stride = [1]>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @zero_deadline(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    // expected-error @+1 {{deadline_us must be a positive number of microseconds, got 0}}
    priority #gpuos.priority<urgent, deadline_us = 0> {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @negative_deadline(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    // expected-error @+1 {{deadline_us must be a positive number of microseconds, got -5}}
    priority #gpuos.priority<normal, deadline_us = -5> {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @background_deadline(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    // expected-error @+1 {{background work cannot carry a deadline; use normal or urgent priority}}
    priority #gpuos.priority<background, deadline_us = 100> {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @unknown_class(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    // expected-error @+2 {{expected ::gpuos::PriorityClass to be one of: urgent, normal, background}}
    // expected-error @+1 {{failed to parse Gpuos_PriorityAttr parameter 'level'}}
    priority #gpuos.priority<realtime> {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}
