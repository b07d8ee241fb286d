//===- Passes.td - gpuos passes ----------------------------*- tablegen -*-===//
//
// Graph-level passes: ordering, fusion into gpuos.task ops, partitioning and
// priorities. docs/passes.md states the rules they share (task body forms,
// the cycle check, the tile rule, kind names); the pipeline is
// `gpuos-pipeline` (include/gpuos/Dialect/Gpuos/Transforms/Pipeline.h).
//
//===----------------------------------------------------------------------===//

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

def GpuosSplitK : Pass<"gpuos-split-k", "::gpuos::GraphOp"> {
  let summary = "Splits the K axis of small-M matmuls that give too few tiles";
  let description = [{
    A small-M matmul (decode's projections: M <= 16 rows, f32, a [K, N]
    weight) is tiled by blocks of its N columns (docs/passes.md, "The tile
    rule"); with N = 1024 that is 64 tiles, each streaming a long strip of
    the weight while half of the SMs idle. The matmuls reading one lhs
    (q, k and v; gate and up: they run side by side) count together: when
    their tiles can at least double within `max-tiles`, each is rewritten
    as S matmuls over K slices in one batched matmul, whose partial
    products are summed by elementwise adds:

    Before:
    ```mlir
    %y = gpuos.matmul %x, %w : !gpuos.tensor<1x2048xf32>, !gpuos.tensor<2048x1024xf32>
    ```
    After (S = 2):
    ```mlir
    %xs = gpuos.reshape %x to [2, 1, 1024] : !gpuos.tensor<1x2048xf32>
    %ws = gpuos.reshape %w to [2, 1024, 1024] : !gpuos.tensor<2048x1024xf32>
    %p = gpuos.matmul %xs, %ws : !gpuos.tensor<2x1x1024xf32>, !gpuos.tensor<2x1024x1024xf32>
    %p0 = gpuos.slice %p starts [0, 0, 0] sizes [1, 1, 1024] steps [1, 1, 1] : !gpuos.tensor<2x1x1024xf32>
    %q0 = gpuos.reshape %p0 to [1, 1024] : !gpuos.tensor<1x1x1024xf32>
    %p1 = gpuos.slice %p starts [1, 0, 0] sizes [1, 1, 1024] steps [1, 1, 1] : !gpuos.tensor<2x1x1024xf32>
    %q1 = gpuos.reshape %p1 to [1, 1024] : !gpuos.tensor<1x1x1024xf32>
    %y = gpuos.add %q0, %q1 : !gpuos.tensor<1x1024xf32>, !gpuos.tensor<1x1024xf32>
    ```
    S is the largest power of two that keeps the tiles within `max-tiles`
    and each K slice at least `min-k-slice` rows (more slices make as many
    tiles, a tree of log2(S) adds). The default, 132 (one tile per H200
    SM), was measured on decode: its output and down projections split in
    2 took the sync latency from 279-282 to 260-262 us at the same
    pipelined time (137-138 us); in 4, 256-258 us but 175 us pipelined
    (docs/passes.md, "gpuos-split-k"). The sum is elementwise, so the fusion passes put it where the
    product was read: a residual add and the next norm take it as their
    prologue (`gpuos-fuse-reductions`), and an elementwise lhs of the
    split matmul stays its prologue (`gpuos-fuse-matmul-prologues` looks
    through the reshape). Matmuls through a shared weight (micro-batches,
    which `gpuos-fuse-shared-weights` tiles together) and f16/bf16 ones
    (their partial products would round to 16 bits) are left alone.
  }];
  let options = [
    Option<"maxTiles", "max-tiles", "int64_t", /*default=*/"132",
           "Most tiles the split matmuls reading one lhs may have (0: never split)">,
    Option<"minKSlice", "min-k-slice", "int64_t", /*default=*/"256",
           "Fewest rows of K in a slice">,
  ];
}

def GpuosFuseElementwise : Pass<"gpuos-fuse-elementwise", "::gpuos::GraphOp"> {
  let summary = "Fuses chains and DAGs of elementwise ops of one shape into tasks";
  let description = [{
    Walks the body in topological order and grows groups of elementwise ops
    (ops with the `Elementwise` trait: unary and binary arithmetic, `cast`,
    `cmp`, `select`) whose results all have the same static shape, the
    group's iteration space. An op joins the group of each producer it reads
    directly when the contracted graph stays acyclic (a reachability test
    through the ops outside the groups). Every group of two or more ops
    becomes one `gpuos.task`:

    - a value used outside the group (by another op or the graph's yield)
      becomes a task result; values used only inside stay inside;
    - operands defined outside are task inputs, whatever their shape
      (numpy broadcasting happens inside the body);
    - view ops (`broadcast`, `transpose`, `slice`, `reshape`) and constants
      feeding the group are cloned into the body, so a task reads the
      viewed tensor itself; a view of a value computed by the group ends
      the group instead (the consumer goes to another task).

    A task has at most 16 results; a group that would have more stops
    growing. Single ops stay as they are for the later passes. Shapes with a
    dynamic dimension never fuse: equal types do not prove equal run-time
    sizes.

    Before:
    ```mlir
    %t = gpuos.transpose %w [1, 0] : !gpuos.tensor<8x4xf32>
    %a = gpuos.mul %x, %t : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32, strides = [1, 4]>
    %b = gpuos.tanh %a : !gpuos.tensor<4x8xf32>
    gpuos.yield %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
    ```
    After:
    ```mlir
    %r:2 = gpuos.task "g_t0_mul_tanh"
        ins(%arg0 = %x : !gpuos.tensor<4x8xf32>, %arg1 = %w : !gpuos.tensor<8x4xf32>)
        tile [4, 8] -> (!gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>) {
      %t = gpuos.transpose %arg1 [1, 0] : !gpuos.tensor<8x4xf32>
      %a = gpuos.mul %arg0, %t : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32, strides = [1, 4]>
      %b = gpuos.tanh %a : !gpuos.tensor<4x8xf32>
      gpuos.yield %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
    }
    gpuos.yield %r#0, %r#1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
    ```
  }];
}

def GpuosFuseReductions : Pass<"gpuos-fuse-reductions", "::gpuos::GraphOp"> {
  let summary = "Fuses elementwise prologues and epilogues into reductions, softmax and norms";
  let description = [{
    An anchor is a `reduce`, `argmax`, `softmax`, `layer_norm` or
    `rms_norm` with static shapes. In topological order:

    - prologue: the elementwise producers of the anchor's data operand
      (elementwise ops, or tasks of them such as `gpuos-fuse-elementwise`
      makes), and transitively theirs, join the anchor when they compute
      exactly the operand's shape and only the anchor's group reads them,
      so the prologue is computed while the anchor reads its input and is
      never written out. For a row chain link (below), whose tile is whole
      rows of that shape, a producer that others read too joins as well
      and becomes a result of the task (the residual stream of residual
      add + norm), when the graph stays acyclic and the task keeps at most
      16 results;
    - epilogue: an elementwise op or task whose iteration space equals the
      anchor's result shape and that reads a value of the anchor's group
      directly (not through a view) joins the group, when the contracted
      graph stays acyclic and the task keeps at most 16 results.

    - row chain: a `softmax` over the innermost axis, `layer_norm` or
      `rms_norm` whose data operand comes from the group of another such op
      with the same input type joins that group (residual add + norm,
      repeated), up to 16 of them per task, with the same acyclicity and
      result limits. A tile holds whole rows, so the block computes the
      whole chain on its rows and the links are never written out.

    Each anchor with a prologue, an epilogue or a chain becomes one task
    whose results all have the anchor's result shape; an anchor alone is
    left to `gpuos-partition`. Apart from row chains, one anchor per task.

    Before:
    ```mlir
    %m = gpuos.mul %x, %s : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
    %p = gpuos.softmax %m axis 1 : !gpuos.tensor<4x8xf32>
    %y = gpuos.mul %p, %g : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
    gpuos.yield %y : !gpuos.tensor<4x8xf32>
    ```
    After:
    ```mlir
    %y = gpuos.task "g_t0_mul_softmax" ins(%a = %x : !gpuos.tensor<4x8xf32>,
        %b = %s : !gpuos.tensor<f32>, %c = %g : !gpuos.tensor<8xf32>)
        tile [4, 8] -> (!gpuos.tensor<4x8xf32>) {
      %m = gpuos.mul %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<f32>
      %p = gpuos.softmax %m axis 1 : !gpuos.tensor<4x8xf32>
      %y = gpuos.mul %p, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
      gpuos.yield %y : !gpuos.tensor<4x8xf32>
    }
    ```
  }];
}

def GpuosFuseSharedWeights : Pass<"gpuos-fuse-shared-weights", "::gpuos::GraphOp"> {
  let summary = "Fuses micro-batch matmuls that read one weight into one task";
  let description = [{
    `gpuos.matmul` ops with the same `rhs` value, the same transpose flags
    and `lhs` operands of one type (micro-batches through a shared weight)
    become one task with one matmul per micro-batch, all reading the same
    `rhs` argument, when none of them depends on another (reachability
    test). The task's tile keeps each product's whole M axis, so the tile
    that covers a block of N columns reads that block of the weight once
    for every micro-batch: one pass over the weights. At most
    `max-matmuls` ops per task.

    With `one-wave` (default on), each such group of small-M matmuls
    (M <= 16) is split over as many tasks as keep their tiles within one per
    worker block (`kTileSpread`, 264 on the H200) and leave each tile at
    least 64 KiB of lhs rows: eight 4-row micro-batches through a 1024x1024
    weight, 128 tiles a task, become two tasks of four, whose tiles each
    read half the lhs rows. Each task reads the weight once more: lower
    latency, more traffic (docs/passes.md).

    Before:
    ```mlir
    %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x128xf32>
    %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x128xf32>
    ```
    After:
    ```mlir
    %y:2 = gpuos.task "g_t0_matmul" ins(%a = %x0 : !gpuos.tensor<4x64xf32>,
        %b = %w : !gpuos.tensor<64x128xf32>, %c = %x1 : !gpuos.tensor<4x64xf32>)
        tile [4, 64] -> (!gpuos.tensor<4x128xf32>, !gpuos.tensor<4x128xf32>) {
      %y0 = gpuos.matmul %a, %b : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x128xf32>
      %y1 = gpuos.matmul %c, %b : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x128xf32>
      gpuos.yield %y0, %y1 : !gpuos.tensor<4x128xf32>, !gpuos.tensor<4x128xf32>
    }
    ```
  }];
  let options = [
    Option<"maxMatmuls", "max-matmuls", "unsigned", /*default=*/"16",
           "Most matmuls in one task">,
    Option<"oneWave", "one-wave", "bool", /*default=*/"true",
           "Split small-M groups over tasks while their tiles fit one wave">,
  ];
}

def GpuosFuseMatmulEpilogues
    : Pass<"gpuos-fuse-matmul-epilogues", "::gpuos::GraphOp"> {
  let summary = "Fuses elementwise consumers of a matmul into its task";
  let description = [{
    An elementwise unit (an elementwise op, or a task of them) whose
    iteration space is a matmul unit's result shape (a matmul, or the task
    of `gpuos-fuse-shared-weights`) and that reads the matmul's result
    directly joins it as an epilogue: bias, activation, residual, scale,
    cast. The lowering evaluates the epilogue at each output element (the
    small-M strategy reads the products from shared memory), so the
    product is never written and read back, and one dependent task less
    waits on the device. Only when the unit's other operands are ready no
    later than the matmul's own (graph inputs, views and constants of
    them, or values the matmul already depends on): a residual add joins
    the projection before it, but `silu(gate) * up` does not join `gate`,
    which would then wait for the independent `up`. Priorities must agree;
    no cycle; at most 16 results per task.

    Before:
    ```mlir
    %p = gpuos.matmul %x, %w : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x128xf32>
    %y = gpuos.add %p, %r : !gpuos.tensor<1x128xf32>, !gpuos.tensor<1x128xf32>
    ```
    After:
    ```mlir
    %y = gpuos.task "g_t0_matmul_add" ins(%a = %x : !gpuos.tensor<1x64xf32>,
        %b = %w : !gpuos.tensor<64x128xf32>, %c = %r : !gpuos.tensor<1x128xf32>)
        tile [1, 16] -> (!gpuos.tensor<1x128xf32>) {
      %p = gpuos.matmul %a, %b : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x128xf32>
      %y = gpuos.add %p, %c : !gpuos.tensor<1x128xf32>, !gpuos.tensor<1x128xf32>
      gpuos.yield %y : !gpuos.tensor<1x128xf32>
    }
    ```
  }];
}

def GpuosFuseMatmulPrologues
    : Pass<"gpuos-fuse-matmul-prologues", "::gpuos::GraphOp"> {
  let summary = "Fuses elementwise and softmax producers of a small-M matmul's lhs into its task";
  let description = [{
    An elementwise unit (an elementwise op, or a task of them and views)
    whose results only one matmul unit reads (a matmul, or a task of
    matmuls and their epilogues), and only as the lhs of matmuls whose
    small-M lowering stages that lhs in shared memory (every matmul of the
    unit with M <= 16, f16/bf16/f32 operands, its result the unit's
    iteration space, N a multiple of 8 for a [K, N] weight; the partials and
    staged lhs values within 32 KiB), joins that unit as a
    prologue: `silu(gate) * up` joins the down projection. Each tile then
    evaluates the lhs once into shared memory instead of a task writing it
    and the matmul reading it back, and one dependent task less waits on
    the device. The prologue's work (its compute ops x the lhs elements)
    must stay within a tile's budget (65536); it must not be a graph
    output; priorities must agree; no cycle. The lhs may view the prologue
    through views that only the matmul reads (the reshape of
    `gpuos-split-k`); they join the task with it.

    A softmax over the last axis (with the elementwise prologue
    `gpuos-fuse-reductions` gave it) joins the same way when the matmuls
    read it directly and its rows run along their K: each tile stages the
    softmax's input, folds every row's statistics (by a warp, or the block
    for rows longer than 256) and writes
    the softmax in place (decode's attention weights join P x V). With
    `norms`, rms_norm and layer_norm join too; off by default: the logits'
    projection with the final norm as its prologue measured 2 us slower
    pipelined and no faster synchronously on the H200 (docs/passes.md).

    Before:
    ```mlir
    %h = gpuos.silu %g : !gpuos.tensor<1x256xf32>
    %y = gpuos.matmul %h, %w : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
    ```
    After:
    ```mlir
    %y = gpuos.task "g_t0_silu_matmul" ins(%a = %g : !gpuos.tensor<1x256xf32>,
        %b = %w : !gpuos.tensor<256x64xf32>) tile [1, 16] -> (!gpuos.tensor<1x64xf32>) {
      %h = gpuos.silu %a : !gpuos.tensor<1x256xf32>
      %y = gpuos.matmul %h, %b : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
      gpuos.yield %y : !gpuos.tensor<1x64xf32>
    }
    ```
  }];
  let options = [
    Option<"norms", "norms", "bool", /*default=*/"false",
           "Also take rms_norm and layer_norm along K as prologues">,
  ];
}

def GpuosFuseHorizontal : Pass<"gpuos-fuse-horizontal", "::gpuos::GraphOp"> {
  let summary = "Fuses independent tasks of one iteration space into one task";
  let description = [{
    Merges independent elementwise units (elementwise ops and tasks of
    them) with each other, and reduction units (anchors and the tasks of
    `gpuos-fuse-reductions`) with each other, when they have the same
    static iteration space (the shape of the first result), the same axes
    that a tile must keep whole, the same priority and the same level (the
    longest chain of compute units from the graph inputs, views and
    constants counting zero). Units of one level never depend on each
    other, so merging them delays neither; a reachability test checks it
    anyway. Matmuls are left to `gpuos-fuse-shared-weights`. At most
    `max-width` units and 16 results per task.

    Before:
    ```mlir
    %a = gpuos.tanh %x : !gpuos.tensor<4x8xf32>
    %b = gpuos.exp %y : !gpuos.tensor<4x8xf32>
    ```
    After:
    ```mlir
    %r:2 = gpuos.task "g_t0_tanh_exp" ins(%p = %x : !gpuos.tensor<4x8xf32>,
        %q = %y : !gpuos.tensor<4x8xf32>) tile [4, 8]
        -> (!gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>) {
      %a = gpuos.tanh %p : !gpuos.tensor<4x8xf32>
      %b = gpuos.exp %q : !gpuos.tensor<4x8xf32>
      gpuos.yield %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
    }
    ```
  }];
  let options = [
    Option<"maxWidth", "max-width", "unsigned", /*default=*/"8",
           "Most units merged into one task">,
  ];
}

def GpuosPartition : Pass<"gpuos-partition", "::gpuos::GraphOp"> {
  let summary = "Puts every op left outside a task into its own task, with a tile";
  let description = [{
    After this pass a graph body holds only `gpuos.task` ops and the yield.
    Every compute op outside a task becomes a task of its own. Views and
    constants are cloned into the tasks that read them (existing tasks
    too), so task inputs are graph inputs or task results; a view or
    constant that the graph yields directly becomes a task of its own (its
    result keeps the view's strides). New tasks get a kind and a tile by the
    rule in docs/passes.md: whole axes for softmax and norms, the reduced
    axes inside one tile, then the innermost dimensions up to about 4096
    elements of work per tile.

    Before:
    ```mlir
    %t = gpuos.transpose %w [1, 0] : !gpuos.tensor<64x32xf32>
    %y = gpuos.matmul %x, %t : !gpuos.tensor<16x64xf32>, !gpuos.tensor<64x32xf32, strides = [1, 64]>
    gpuos.yield %y : !gpuos.tensor<16x32xf32>
    ```
    After:
    ```mlir
    %y = gpuos.task "g_t0_matmul" ins(%a = %x : !gpuos.tensor<16x64xf32>,
        %b = %w : !gpuos.tensor<32x64xf32>) tile [16, 32] -> (!gpuos.tensor<16x32xf32>) {
      %t = gpuos.transpose %b [1, 0] : !gpuos.tensor<32x64xf32>
      %m = gpuos.matmul %a, %t : !gpuos.tensor<16x64xf32>, !gpuos.tensor<64x32xf32, strides = [1, 64]>
      gpuos.yield %m : !gpuos.tensor<16x32xf32>
    }
    gpuos.yield %y : !gpuos.tensor<16x32xf32>
    ```
  }];
}

def GpuosAssignPriorities : Pass<"gpuos-assign-priorities", "::gpuos::GraphOp"> {
  let summary = "Gives tasks the graph's priority and orders them by critical path";
  let description = [{
    A task without a `priority` takes its graph's. Each task then gets
    `gpuos.critical_path`, the estimated work (see docs/passes.md: result
    elements, times K for matmuls, input elements for reductions, softmax
    and norms) on the longest path from the task to a graph output,
    itself included; the body is reordered by that number, largest first,
    ties in their previous order. A producer always has a larger number
    than its consumers, so the order stays topological; the runtime (and
    the manifest's task order) can start the longest chain first.

    Before:
    ```mlir
    gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (a : ..., b : ...)
        priority #gpuos.priority<urgent> {
      %a = gpuos.task "short" ins(...) tile [4] -> (...) {...}
      %b = gpuos.task "long" ins(...) tile [4] -> (...) {...}  // 3 ops
    ```
    After:
    ```mlir
      %b = gpuos.task "long" ... priority #gpuos.priority<urgent> -> (...)
          attributes {gpuos.critical_path = 12 : i64} {...}
      %a = gpuos.task "short" ... priority #gpuos.priority<urgent> -> (...)
          attributes {gpuos.critical_path = 4 : i64} {...}
    ```
  }];
}

def GpuosUniqueKinds : Pass<"gpuos-unique-kinds", "::mlir::ModuleOp"> {
  let summary = "Renames generated task kinds that another task of the module uses";
  let description = [{
    Kinds name device functions, so they must be unique within an image.
    The fusion passes name the tasks they make `<graph>_t<N>_<ops>`
    (docs/passes.md, "Kind names"), unique among the generated kinds
    because graph symbols are, but they run on one graph at a time and
    cannot see a task another graph was written with. When a kind appears
    more than once, the written task (a kind that does not carry its own
    graph's generated prefix) keeps it and every generated one gets the
    first free `_<M>` suffix; with no written task among them, the first
    in module order keeps it. Two written tasks of one kind are left to the
    lowering's error: their names are the user's.

    Before (graph @h was written with a kind @g's fusion also produces):
    ```mlir
    gpuos.graph @g(...) { %0 = gpuos.task "g_t0_add_mul" ... }
    gpuos.graph @h(...) { %0 = gpuos.task "g_t0_add_mul" ... }
    ```
    After:
    ```mlir
    gpuos.graph @g(...) { %0 = gpuos.task "g_t0_add_mul_1" ... }
    gpuos.graph @h(...) { %0 = gpuos.task "g_t0_add_mul" ... }
    ```
  }];
}

#endif // GPUOS_PASSES_TD
