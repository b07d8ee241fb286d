"gpuos.graph"() <{function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>, input_names = ["x"], output_names = ["y"], priority = #gpuos.priority<urgent, deadline_us = 5>, sym_name = "g"}> ({
^bb0(%arg0: !gpuos.tensor<4xf32>):
  %0 = "gpuos.reduce"(%arg0) <{axes = array<i64: 0>, keepdim, kind = 0 : i32}> : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<1xf32>
  %1 = "gpuos.broadcast"(%0) <{shape = array<i64: 4>}> : (!gpuos.tensor<1xf32>) -> !gpuos.tensor<4xf32, strides = [0]>
  %2 = "gpuos.sub"(%arg0, %1) : (!gpuos.tensor<4xf32>, !gpuos.tensor<4xf32, strides = [0]>) -> !gpuos.tensor<4xf32>
  "gpuos.yield"(%2) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()
