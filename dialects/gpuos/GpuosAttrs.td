//===- GpuosAttrs.td - gpuos attributes and enums ----------*- tablegen -*-===//

#ifndef GPUOS_ATTRS_TD
#define GPUOS_ATTRS_TD

include "GpuosBase.td"
include "mlir/IR/EnumAttr.td"

def Gpuos_PriorityClass : I32EnumAttr<"PriorityClass", "scheduling class", [
    I32EnumAttrCase<"urgent", 0>,
    I32EnumAttrCase<"normal", 1>,
    I32EnumAttrCase<"background", 2>]> {
  let cppNamespace = "::gpuos";
  let genSpecializedAttr = 0;
}

def Gpuos_PriorityAttr : Gpuos_Attr<"Priority", "priority"> {
  let summary = "scheduling priority of a graph or task";
  let description = [{
    `urgent` work runs first at every task boundary; `background` work fills
    idle capacity. An optional deadline, in microseconds from submission, is
    a positive integer; background work cannot carry one.

    ```mlir
    #gpuos.priority<urgent, deadline_us = 200>
    #gpuos.priority<background>
    ```
  }];
  let parameters = (ins
    EnumParameter<Gpuos_PriorityClass>:$level,
    OptionalParameter<"std::optional<int64_t>">:$deadlineUs);
  let assemblyFormat = "`<` $level (`,` `deadline_us` `=` $deadlineUs^)? `>`";
  let genVerifyDecl = 1;
}

def Gpuos_ReductionKind : I32EnumAttr<"ReductionKind", "reduction combiner", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::gpuos";
}

def Gpuos_ComparePredicate : I32EnumAttr<"ComparePredicate", "comparison", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::gpuos";
}

#endif // GPUOS_ATTRS_TD
