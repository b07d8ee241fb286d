"gpuos.graph"() <{function_type = (!gpuos.tensor<2x8xf32>, !gpuos.tensor<8xf32>) -> !gpuos.tensor<2x8xf32>, input_names = ["x", "w"], output_names = ["y"], sym_name = "g"}> ({
^bb0(%x: !gpuos.tensor<2x8xf32>, %w: !gpuos.tensor<8xf32>):
  %0 = "gpuos.task"(%x, %w) <{kind = "ln", tile = array<i64: 1, 8>}> ({
  ^bb0(%a: !gpuos.tensor<2x8xf32>, %b: !gpuos.tensor<8xf32>):
    %1 = "gpuos.layer_norm"(%a, %b) <{epsilon = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!gpuos.tensor<2x8xf32>, !gpuos.tensor<8xf32>) -> !gpuos.tensor<2x8xf32>
    "gpuos.yield"(%1) : (!gpuos.tensor<2x8xf32>) -> ()
  }) : (!gpuos.tensor<2x8xf32>, !gpuos.tensor<8xf32>) -> !gpuos.tensor<2x8xf32>
  "gpuos.yield"(%0) : (!gpuos.tensor<2x8xf32>) -> ()
}) : () -> ()
