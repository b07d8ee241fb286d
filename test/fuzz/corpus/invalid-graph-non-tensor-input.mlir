"gpuos.graph"() <{function_type = (f32) -> !gpuos.tensor<4xf32>, input_names = ["x"], output_names = ["y"], sym_name = "g"}> ({
^bb0(%arg0: f32):
  %c = "gpuos.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !gpuos.tensor<4xf32>
  "gpuos.yield"(%c) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()
