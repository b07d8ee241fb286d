//===- GpuosTraits.h - marker traits of gpuos ops ---------------*- C++ -*-===//

#ifndef GPUOS_DIALECT_GPUOS_IR_GPUOSTRAITS_H
#define GPUOS_DIALECT_GPUOS_IR_GPUOSTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace gpuos::OpTrait {

/// The op computes each result element from the operand elements at the
/// same broadcast index. Fusion chains these.
template <typename ConcreteType>
class Elementwise
    : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {};

/// The op's result is a new view (shape and strides) of its operand's data.
template <typename ConcreteType>
class View : public mlir::OpTrait::TraitBase<ConcreteType, View> {};

} // namespace gpuos::OpTrait

#endif // GPUOS_DIALECT_GPUOS_IR_GPUOSTRAITS_H
