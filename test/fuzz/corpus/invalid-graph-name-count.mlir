"gpuos.graph"() <{function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>, input_names = [], output_names = ["y", "z"], sym_name = "g"}> ({
^bb0(%arg0: !gpuos.tensor<4xf32>):
  "gpuos.yield"(%arg0) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()
