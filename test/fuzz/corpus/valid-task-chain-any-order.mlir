gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "second" ins(%a = %t : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) attributes {note = "x"} {
    %n = gpuos.neg %a : !gpuos.tensor<4xf32>
    gpuos.yield %n : !gpuos.tensor<4xf32>
  }
  %t = gpuos.task "first" ins(%a = %x : !gpuos.tensor<4xf32>) tile [2] -> (!gpuos.tensor<4xf32>) {
    %c = gpuos.constant dense<2.0> : tensor<4xf32>
    %m = gpuos.mul %a, %c : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
    gpuos.yield %m : !gpuos.tensor<4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
