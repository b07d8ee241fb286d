//===- GpuosTypes.td - gpuos types -------------------------*- tablegen -*-===//

#ifndef GPUOS_TYPES_TD
#define GPUOS_TYPES_TD

include "GpuosBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Gpuos_StridedTensorType : Gpuos_Type<"StridedTensor", "tensor"> {
  let summary = "a strided tensor view";
  let description = [{
    A tensor view with a static or dynamic (`?`) shape, an element type
    (f32, f16, bf16, f64, i64, i32, i8 or i1) and optional strides counted in
    elements. Without `strides` the view is contiguous and row-major; the
    type is canonical, so writing the row-major strides of a static shape
    gives the same type as writing none. A stride may be `?` (known only at
    run time) or 0 (a broadcast dimension).

    ```mlir
    !gpuos.tensor<4x?xf32>                       // contiguous, dynamic dim
    !gpuos.tensor<8x4xf16, strides = [1, 8]>     // a transposed view
    !gpuos.tensor<4x1024xbf16, strides = [0, 1]> // a broadcast row
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "dimensions, ShapedType::kDynamic for `?`">:$shape,
    "::mlir::Type":$elementType,
    OptionalArrayRefParameter<"int64_t", "strides in elements; empty means contiguous">:$strides
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins
        "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
        CArg<"::llvm::ArrayRef<int64_t>", "{}">:$strides), [{
      return $_get(elementType.getContext(), shape, elementType,
                   ::gpuos::canonicalStrides(shape, strides));
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getDimSize(int64_t axis) const { return getShape()[axis]; }
    bool isContiguous() const { return getStrides().empty(); }
    /// True when the elements lie in memory in row-major order, as in a
    /// contiguous tensor, though the strides may be spelled out: strides of
    /// size-1 dimensions never move the address (PyTorch's unsqueeze and
    /// expand leave such strides), and an empty tensor has no layout.
    bool hasRowMajorOrder() const;
    bool hasStaticShape() const;
    /// Strides of every dimension; row-major ones when the view is
    /// contiguous, with `kDynamic` where a dynamic dim makes them unknown.
    ::llvm::SmallVector<int64_t> getEffectiveStrides() const;
    /// Number of elements, or std::nullopt when a dimension is dynamic or
    /// the count does not fit in int64.
    std::optional<int64_t> getNumElements() const;
    /// The contiguous tensor of the same shape and element type.
    StridedTensorType getContiguous() const;
    StridedTensorType withElementType(::mlir::Type type) const;
  }];
}

// The C++ type is plain mlir::Type so op assembly spells `!gpuos.tensor<...>`
// in full rather than the dialect-stripped `<...>`.
def Gpuos_Tensor : Type<CPred<"::llvm::isa<::gpuos::StridedTensorType>($_self)">,
                        "gpuos tensor", "::mlir::Type">;

#endif // GPUOS_TYPES_TD
