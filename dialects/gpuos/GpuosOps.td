//===- GpuosOps.td - gpuos operations ----------------------*- tablegen -*-===//
//
// Micro-ops on strided tensors (elementwise, views, reductions, norms,
// matmul) and the structure ops that group them (graph, task, yield).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_OPS_TD
#define GPUOS_OPS_TD

include "GpuosBase.td"
include "GpuosTypes.td"
include "GpuosAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Traits and base classes
//===----------------------------------------------------------------------===//

// Ops computed one output element at a time from the elements at the same
// (broadcast) index of their operands; the fusion passes key on this.
def Gpuos_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::gpuos::OpTrait";
}

// Ops whose result is a new view of the operand's data (no copy).
def Gpuos_View : NativeOpTrait<"View"> {
  let cppNamespace = "::gpuos::OpTrait";
}

// Every value-producing micro-op is pure and infers its result type, so the
// assembly only spells the operand types and shape errors surface as the op
// is built or parsed.
class Gpuos_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Gpuos_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor]> {
  let results = (outs Gpuos_Tensor:$result);
}

// `dtypes` names the DTypeClass (Shapes.h) the operands must belong to.
class Gpuos_UnaryOp<string mnemonic, string dtypes, string formula,
                    list<Trait> traits = []>
    : Gpuos_ComputeOp<mnemonic, traits # [Gpuos_Elementwise]> {
  let summary = "elementwise " # formula;
  let description = "Computes `" # formula # "` for each element. The result "
    # "is contiguous with the operand's shape and element type.";
  let arguments = (ins Gpuos_Tensor:$input);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::gpuos::inferElementwise(loc, getOperationName(),
          adaptor.getOperands(), ::gpuos::DTypeClass::}] # dtypes # [{,
          /*resultElementType=*/{}, results);
    }
  }];
}

class Gpuos_BinaryOp<string mnemonic, string dtypes, string formula,
                     list<Trait> traits = []>
    : Gpuos_ComputeOp<mnemonic, traits # [Gpuos_Elementwise]> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` for each element of the "
    # "broadcast of both operands (numpy rules: shapes align on the right and "
    # "a dimension of size 1 stretches). Both operands have the same element "
    # "type; the result is contiguous.";
  let arguments = (ins Gpuos_Tensor:$lhs, Gpuos_Tensor:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::gpuos::inferElementwise(loc, getOperationName(),
          adaptor.getOperands(), ::gpuos::DTypeClass::}] # dtypes # [{,
          /*resultElementType=*/{}, results);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

def Gpuos_NegOp : Gpuos_UnaryOp<"neg", "Numeric", "-x">;
def Gpuos_AbsOp : Gpuos_UnaryOp<"abs", "Numeric", "|x|">;
def Gpuos_ReluOp : Gpuos_UnaryOp<"relu", "Numeric", "max(x, 0)">;
def Gpuos_ExpOp : Gpuos_UnaryOp<"exp", "Float", "exp(x)">;
def Gpuos_LogOp : Gpuos_UnaryOp<"log", "Float", "log(x)">;
def Gpuos_SqrtOp : Gpuos_UnaryOp<"sqrt", "Float", "sqrt(x)">;
def Gpuos_RsqrtOp : Gpuos_UnaryOp<"rsqrt", "Float", "1 / sqrt(x)">;
def Gpuos_TanhOp : Gpuos_UnaryOp<"tanh", "Float", "tanh(x)">;
def Gpuos_SigmoidOp : Gpuos_UnaryOp<"sigmoid", "Float", "1 / (1 + exp(-x))">;
def Gpuos_GeluOp : Gpuos_UnaryOp<"gelu", "Float", "x * (1 + erf(x / sqrt(2))) / 2">;
def Gpuos_SiluOp : Gpuos_UnaryOp<"silu", "Float", "x / (1 + exp(-x))">;
def Gpuos_ErfOp : Gpuos_UnaryOp<"erf", "Float", "erf(x)">;

def Gpuos_CastOp : Gpuos_ComputeOp<"cast", [Gpuos_Elementwise]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts each element to `dtype`: floats round to nearest even, floats to
    integers truncate toward zero, anything to `i1` tests for non-zero.

    ```mlir
    %h = gpuos.cast %x : !gpuos.tensor<4x8xf32> to f16
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, TypeAttr:$dtype);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` $dtype";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary, comparison and select ops
//===----------------------------------------------------------------------===//

def Gpuos_AddOp : Gpuos_BinaryOp<"add", "Numeric", "lhs + rhs", [Commutative]>;
def Gpuos_SubOp : Gpuos_BinaryOp<"sub", "Numeric", "lhs - rhs">;
def Gpuos_MulOp : Gpuos_BinaryOp<"mul", "Numeric", "lhs * rhs", [Commutative]>;
def Gpuos_DivOp : Gpuos_BinaryOp<"div", "Numeric", "lhs / rhs">;
def Gpuos_MaxOp : Gpuos_BinaryOp<"max", "Numeric", "max(lhs, rhs)", [Commutative]>;
def Gpuos_MinOp : Gpuos_BinaryOp<"min", "Numeric", "min(lhs, rhs)", [Commutative]>;
def Gpuos_PowOp : Gpuos_BinaryOp<"pow", "Float", "lhs ^ rhs">;

def Gpuos_CmpOp : Gpuos_ComputeOp<"cmp", [Gpuos_Elementwise]> {
  let summary = "elementwise comparison with numpy broadcasting, giving i1";
  let description = [{
    ```mlir
    %m = gpuos.cmp lt, %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
    ```
  }];
  let arguments = (ins Gpuos_ComparePredicate:$predicate, Gpuos_Tensor:$lhs,
                       Gpuos_Tensor:$rhs);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
}

def Gpuos_SelectOp : Gpuos_ComputeOp<"select", [Gpuos_Elementwise]> {
  let summary = "elementwise choice: cond ? lhs : rhs, with numpy broadcasting";
  let description = [{
    `cond` holds i1; `lhs` and `rhs` share an element type; all three
    broadcast together.

    ```mlir
    %y = gpuos.select %mask, %x, %neg_inf
        : !gpuos.tensor<32x32xi1>, !gpuos.tensor<32x32xf32>, !gpuos.tensor<f32>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$cond, Gpuos_Tensor:$lhs, Gpuos_Tensor:$rhs);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($lhs) `,` type($rhs)
  }];
}

def Gpuos_CustomOp : Gpuos_ComputeOp<"custom", [Gpuos_Elementwise]> {
  let summary = "elementwise call of a user's CUDA C++ device function";
  let description = [{
    An operator the dialect lacks, supplied as CUDA C++ source: for each
    element of the broadcast of its inputs (numpy rules, one shared element
    type), calls

    ```c++
    extern "C" __device__ R callee(A a0, A a1, ...);
    ```

    where `A` and `R` are the *compute types* of the inputs' and the result's
    element types: `float` for f32, f16 and bf16 (values are widened on load
    and rounded on store), `double` for f64, `long long` / `int` /
    `signed char` for i64 / i32 / i8, `bool` for i1. The source is given to
    gpuos-jit (`--custom-source=FILE.cu`) or the JIT API; NVRTC compiles it
    and nvJitLink links it into the image beside the generated tasks. It
    fuses like any elementwise op.

    `reference` optionally names a `gpuos.graph` of the same module, of
    built-in ops, from rank-0 inputs (one per input, of the inputs' element
    type) to one rank-0 output of `dtype`: the op's semantics per element.
    The reference interpreter evaluates it for every element, so custom ops
    are checked against it like any op; without it the interpreter reports
    that it cannot run the op.

    ```mlir
    %y = gpuos.custom @softplus(%x) reference @softplus_ref
        : !gpuos.tensor<4x8xf32> -> f32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Gpuos_Tensor>:$inputs,
                       TypeAttr:$dtype, OptionalAttr<FlatSymbolRefAttr>:$reference);
  let assemblyFormat = [{
    $callee `(` $inputs `)` (`reference` $reference^)? attr-dict `:` type($inputs) `->` $dtype
  }];
}

def Gpuos_ConstantOp : Gpuos_ComputeOp<"constant", [ConstantLike]> {
  let summary = "a constant or filled tensor";
  let description = [{
    A tensor of the attribute's shape and element type. A splat fills every
    element with one value.

    ```mlir
    %zero = gpuos.constant dense<0.0> : tensor<4x8xf32>
    %eps  = gpuos.constant dense<1.0e-05> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// View and data-movement ops
//===----------------------------------------------------------------------===//

def Gpuos_BroadcastOp : Gpuos_ComputeOp<"broadcast", [Gpuos_View]> {
  let summary = "a broadcast view (stride 0 along stretched dimensions)";
  let description = [{
    Aligns the operand's dimensions with the right end of `shape`; each
    operand dimension equals its target or is 1. New and stretched
    dimensions get stride 0, so no data moves.

    ```mlir
    %b = gpuos.broadcast %row to [4, 1024] : !gpuos.tensor<1024xf32>
    // %b : !gpuos.tensor<4x1024xf32, strides = [0, 1]>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $input `to` custom<DimList>($shape) attr-dict `:` type($input)
  }];
}

def Gpuos_ReshapeOp : Gpuos_ComputeOp<"reshape", [Gpuos_View]> {
  let summary = "a reshape view of contiguous data";
  let description = [{
    Reinterprets a contiguous operand with a new shape of the same number of
    elements. A non-contiguous operand is rejected: reshaping it would need
    a copy, which must be explicit.

    ```mlir
    %r = gpuos.reshape %x to [32, 64] : !gpuos.tensor<2048xf32>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $input `to` custom<DimList>($shape) attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def Gpuos_TransposeOp : Gpuos_ComputeOp<"transpose", [Gpuos_View]> {
  let summary = "a permuted view (strides permuted, no copy)";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    ```mlir
    %t = gpuos.transpose %x [1, 0] : !gpuos.tensor<4x8xf32>
    // %t : !gpuos.tensor<8x4xf32, strides = [1, 8]>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let assemblyFormat = "$input $permutation attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Gpuos_SliceOp : Gpuos_ComputeOp<"slice", [Gpuos_View]> {
  let summary = "a strided window view";
  let description = [{
    Takes `sizes[i]` elements of dimension `i` starting at `starts[i]`, every
    `steps[i]`-th one. The view's strides are the operand's times the steps;
    its offset is implied by `starts`.

    ```mlir
    %s = gpuos.slice %x starts [0, 2] sizes [4, 3] steps [1, 2] : !gpuos.tensor<4x8xf32>
    // %s : !gpuos.tensor<4x3xf32, strides = [8, 2]>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps);
  let assemblyFormat = [{
    $input `starts` $starts `sizes` $sizes `steps` $steps attr-dict `:` type($input)
  }];
}

def Gpuos_ConcatOp : Gpuos_ComputeOp<"concat"> {
  let summary = "joins tensors along one axis into a contiguous result";
  let description = [{
    ```mlir
    %c = gpuos.concat %a, %b axis 1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Variadic<Gpuos_Tensor>:$inputs, I64Attr:$axis);
  let assemblyFormat = "$inputs `axis` $axis attr-dict `:` type($inputs)";
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

def Gpuos_ReduceOp : Gpuos_ComputeOp<"reduce"> {
  let summary = "sum, mean, max or min over axes";
  let description = [{
    Reduces over the listed axes (distinct, in range, any order). With
    `keepdim` the reduced axes stay as size 1. `mean` needs floats.

    ```mlir
    %s = gpuos.reduce sum %x axes [1] keepdim : !gpuos.tensor<4x8xf32>
    // %s : !gpuos.tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Gpuos_ReductionKind:$kind, Gpuos_Tensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keepdim);
  let assemblyFormat = [{
    $kind $input `axes` $axes (`keepdim` $keepdim^)? attr-dict `:` type($input)
  }];
}

def Gpuos_ArgmaxOp : Gpuos_ComputeOp<"argmax"> {
  let summary = "index of the largest element along one axis (i64)";
  let description = [{
    Ties resolve to the smallest index.

    ```mlir
    %i = gpuos.argmax %logits axis 1 : !gpuos.tensor<1x32000xf32>
    // %i : !gpuos.tensor<1xi64>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, I64Attr:$axis, UnitAttr:$keepdim);
  let assemblyFormat = [{
    $input `axis` $axis (`keepdim` $keepdim^)? attr-dict `:` type($input)
  }];
}

def Gpuos_SoftmaxOp : Gpuos_ComputeOp<"softmax"> {
  let summary = "numerically stable softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`.

    ```mlir
    %p = gpuos.softmax %scores axis 1 : !gpuos.tensor<32x32xf32>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, I64Attr:$axis);
  let assemblyFormat = "$input `axis` $axis attr-dict `:` type($input)";
}

def Gpuos_LayerNormOp : Gpuos_ComputeOp<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "layer normalization over the innermost dimension";
  let description = [{
    `(x - mean) / sqrt(var + eps) * weight + bias` over the last dimension,
    with the biased variance. `weight` and `bias` are optional and have the
    shape of the last dimension.

    ```mlir
    %y = gpuos.layer_norm %x weight(%w : !gpuos.tensor<64xf32>)
        bias(%b : !gpuos.tensor<64xf32>) eps 1.0e-05 : !gpuos.tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, Optional<Gpuos_Tensor>:$weight,
                       Optional<Gpuos_Tensor>:$bias, F64Attr:$epsilon);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
           (`bias` `(` $bias^ `:` type($bias) `)`)?
    `eps` $epsilon attr-dict `:` type($input)
  }];
}

def Gpuos_RmsNormOp : Gpuos_ComputeOp<"rms_norm"> {
  let summary = "RMS normalization over the innermost dimension";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * weight` over the last dimension; `weight` is
    optional.

    ```mlir
    %y = gpuos.rms_norm %x weight(%w : !gpuos.tensor<4096xf32>) eps 1.0e-06
        : !gpuos.tensor<1x4096xf32>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$input, Optional<Gpuos_Tensor>:$weight,
                       F64Attr:$epsilon);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    `eps` $epsilon attr-dict `:` type($input)
  }];
}

def Gpuos_MatmulOp : Gpuos_ComputeOp<"matmul"> {
  let summary = "matrix product, batched over leading dimensions";
  let description = [{
    `lhs` is `[..., M, K]` (or `[..., K, M]` with `transpose_lhs`), `rhs` is
    `[..., K, N]` (or `[..., N, K]` with `transpose_rhs`). Leading batch
    dimensions broadcast with numpy rules. Products accumulate in at least
    f32; the result has the operands' element type.

    ```mlir
    %y = gpuos.matmul %x, %w transpose_rhs
        : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4096x1024xf32>
    // %y : !gpuos.tensor<4x4096xf32>
    ```
  }];
  let arguments = (ins Gpuos_Tensor:$lhs, Gpuos_Tensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    attr-dict `:` type($lhs) `,` type($rhs)
  }];
}

//===----------------------------------------------------------------------===//
// Structure: graphs, tasks, yield
//===----------------------------------------------------------------------===//

def Gpuos_GraphOp : Gpuos_Op<"graph", [
    IsolatedFromAbove, Symbol, RegionKindInterface, HasOnlyGraphRegion,
    SingleBlock, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a named DAG of micro-ops: the unit a user submits";
  let description = [{
    Inputs are the block arguments, named by their SSA names; outputs are
    named in the signature and produced by the terminating `gpuos.yield` in
    order. The body is a graph region: ops may be written in any order, but
    the verifier rejects cycles, and every value must reach an output.

    ```mlir
    gpuos.graph @residual_norm(%x : !gpuos.tensor<1x4096xf32>,
                               %w : !gpuos.tensor<4096xf32>)
        -> (y : !gpuos.tensor<1x4096xf32>)
        priority #gpuos.priority<urgent, deadline_us = 200> {
      %n = gpuos.rms_norm %x weight(%w : !gpuos.tensor<4096xf32>) eps 1.0e-06
          : !gpuos.tensor<1x4096xf32>
      %y = gpuos.add %x, %n : !gpuos.tensor<1x4096xf32>, !gpuos.tensor<1x4096xf32>
      gpuos.yield %y : !gpuos.tensor<1x4096xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       StrArrayAttr:$input_names, StrArrayAttr:$output_names,
                       OptionalAttr<Gpuos_PriorityAttr>:$priority);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::llvm::ArrayRef<::mlir::Type> getInputTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getOutputTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def Gpuos_TaskOp : Gpuos_Op<"task", [
    IsolatedFromAbove, SingleBlock, HasParent<"GraphOp">]> {
  let summary = "a fused body the runtime schedules, with its tiling";
  let description = [{
    A task binds graph values to the arguments of an isolated body and
    yields its results. `tile` gives the tile shape over the iteration space
    of the first result (one entry per dimension, each positive); the
    runtime spreads the tiles of one task across SMs. `kind` names the
    device function the task lowers to.

    ```mlir
    %y = gpuos.task "fused_add_exp" ins(%a = %x : !gpuos.tensor<32x1024xf32>)
        tile [1, 1024] priority #gpuos.priority<background>
        -> (!gpuos.tensor<32x1024xf32>) {
      %e = gpuos.exp %a : !gpuos.tensor<32x1024xf32>
      gpuos.yield %e : !gpuos.tensor<32x1024xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Gpuos_Tensor>:$inputs, StrAttr:$kind,
                       DenseI64ArrayAttr:$tile,
                       OptionalAttr<Gpuos_PriorityAttr>:$priority);
  let results = (outs Variadic<Gpuos_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Gpuos_YieldOp : Gpuos_Op<"yield", [
    Pure, Terminator, ReturnLike, ParentOneOf<["GraphOp", "TaskOp"]>]> {
  let summary = "ends a graph or task body, producing its outputs in order";
  let arguments = (ins Variadic<Gpuos_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // GPUOS_OPS_TD
