"gpuos.graph"() <{function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>, input_names = ["x"], output_names = ["y"], sym_name = "g"}> ({
^bb0(%arg0: !gpuos.tensor<4xf32>):
  %0 = "gpuos.neg"(%arg0) : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf16>
  "gpuos.yield"(%arg0) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()
