"gpuos.graph"() <{function_type = () -> !gpuos.tensor<4xf32>, input_names = [], output_names = [1], sym_name = "g"}> ({
  %c = "gpuos.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !gpuos.tensor<4xf32>
  "gpuos.yield"(%c) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()
