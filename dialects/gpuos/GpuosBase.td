//===- GpuosBase.td - gpuos dialect definition -------------*- tablegen -*-===//
//
// The gpuos dialect: tensor micro-ops on strided tensors, grouped into graphs
// and tasks that carry scheduling priorities.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_BASE_TD
#define GPUOS_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Gpuos_Dialect : Dialect {
  let name = "gpuos";
  let cppNamespace = "::gpuos";
  let summary = "Tensor micro-ops, graphs and prioritized tasks for a resident GPU runtime";
  let description = [{
    Values are `!gpuos.tensor` views: a shape, an element type and optional
    strides in elements. View ops (`broadcast`, `transpose`, `slice`,
    `reshape`) only change the shape and strides of their result type, so
    they cost no copy; compute ops produce contiguous results.

    A `gpuos.graph` is a named DAG of micro-ops with named inputs and
    outputs. Its body is a graph region: ops may appear in any order and the
    verifier rejects cycles. A `gpuos.task` is the unit the runtime
    schedules: an isolated fused body with its tiling. Graphs and tasks carry
    a `#gpuos.priority` (urgent, normal or background, with an optional
    deadline).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Gpuos_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Gpuos_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Gpuos_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Gpuos_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Gpuos_Op<string mnemonic, list<Trait> traits = []>
    : Op<Gpuos_Dialect, mnemonic, traits>;

#endif // GPUOS_BASE_TD
