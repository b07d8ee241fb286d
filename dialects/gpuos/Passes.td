//===- Passes.td - gpuos passes ----------------------------*- tablegen -*-===//

#ifndef GPUOS_PASSES_TD
#define GPUOS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GpuosTopologicalSort : Pass<"gpuos-topological-sort", "::gpuos::GraphOp"> {
  let summary = "Orders each graph body so every value is defined before use";
  let description = [{
    Graph bodies are graph regions: ops may be written in any order. Passes
    that walk ops in order (fusion, partitioning, lowering) run after this
    one, which reorders each body topologically and keeps the written order
    among independent ops.

    Before:
    ```mlir
    %b = gpuos.exp %a : !gpuos.tensor<4xf32>
    %a = gpuos.neg %x : !gpuos.tensor<4xf32>
    ```
    After:
    ```mlir
    %a = gpuos.neg %x : !gpuos.tensor<4xf32>
    %b = gpuos.exp %a : !gpuos.tensor<4xf32>
    ```
  }];
}

#endif // GPUOS_PASSES_TD
