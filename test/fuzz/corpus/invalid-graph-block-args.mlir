"gpuos.graph"() <{function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>, input_names = ["x"], output_names = ["y"], sym_name = "g"}> ({
^bb0(%arg0: !gpuos.tensor<4xf16>):
  %c = "gpuos.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !gpuos.tensor<4xf32>
  "gpuos.yield"(%c) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()
