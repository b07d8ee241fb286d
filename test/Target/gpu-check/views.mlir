// Views composed into index maps: strided task inputs and outputs,
// transpose, strided slices, broadcast, reshape (affine and per-lane).
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_view_transpose(
// CHECK-DAG: .visible .func gpuos_task_view_strided_io(
// CHECK-DAG: .visible .func gpuos_task_view_slice(
// CHECK-DAG: .visible .func gpuos_task_view_reshape(
// CHECK-DAG: .visible .func gpuos_task_view_reshape_lanes(
// CHECK-DAG: .visible .func gpuos_task_view_reshape_unit_strides(
// CHECK-DAG: .visible .func gpuos_task_view_concat_empty(
// CHECK-DAG: .visible .func gpuos_task_view_overlapping_inputs(

gpuos.graph @transpose(%x : !gpuos.tensor<64x32xf32>, %y : !gpuos.tensor<32x64xf32>)
    -> (o : !gpuos.tensor<32x64xf32>) {
  %r = gpuos.task "view_transpose" ins(%a = %x : !gpuos.tensor<64x32xf32>, %b = %y : !gpuos.tensor<32x64xf32>)
      tile [8, 64] -> (!gpuos.tensor<32x64xf32>) {
    %t = gpuos.transpose %a [1, 0] : !gpuos.tensor<64x32xf32>
    %0 = gpuos.add %t, %b : !gpuos.tensor<32x64xf32, strides = [1, 32]>, !gpuos.tensor<32x64xf32>
    gpuos.yield %0 : !gpuos.tensor<32x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<32x64xf32>
}

// The input buffer is column-major and the output is written transposed:
// both are accessed through their strides.
gpuos.graph @strided_io(%x : !gpuos.tensor<16x24xf32, strides = [1, 16]>)
    -> (o : !gpuos.tensor<24x16xf32, strides = [1, 24]>) {
  %r = gpuos.task "view_strided_io" ins(%a = %x : !gpuos.tensor<16x24xf32, strides = [1, 16]>)
      tile [8, 16] -> (!gpuos.tensor<24x16xf32, strides = [1, 24]>) {
    %e = gpuos.exp %a : !gpuos.tensor<16x24xf32, strides = [1, 16]>
    %t = gpuos.transpose %e [1, 0] : !gpuos.tensor<16x24xf32>
    gpuos.yield %t : !gpuos.tensor<24x16xf32, strides = [1, 24]>
  }
  gpuos.yield %r : !gpuos.tensor<24x16xf32, strides = [1, 24]>
}

// Slices with offsets and steps, and a broadcast row.
gpuos.graph @slice(%x : !gpuos.tensor<40x80xf32>, %row : !gpuos.tensor<1x32xf32>)
    -> (o : !gpuos.tensor<16x32xf32>) {
  %r = gpuos.task "view_slice" ins(%a = %x : !gpuos.tensor<40x80xf32>, %b = %row : !gpuos.tensor<1x32xf32>)
      tile [4, 32] -> (!gpuos.tensor<16x32xf32>) {
    %s = gpuos.slice %a starts [3, 4] sizes [16, 32] steps [2, 1] : !gpuos.tensor<40x80xf32>
    %t = gpuos.slice %a starts [1, 5] sizes [16, 32] steps [1, 2] : !gpuos.tensor<40x80xf32>
    %bb = gpuos.broadcast %b to [16, 32] : !gpuos.tensor<1x32xf32>
    %0 = gpuos.add %s, %t : !gpuos.tensor<16x32xf32, strides = [160, 1]>, !gpuos.tensor<16x32xf32, strides = [80, 2]>
    %1 = gpuos.mul %0, %bb : !gpuos.tensor<16x32xf32>, !gpuos.tensor<16x32xf32, strides = [0, 1]>
    gpuos.yield %1 : !gpuos.tensor<16x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x32xf32>
}

// A reshape whose rows line up with the operand's (lanes stay affine).
gpuos.graph @reshape(%x : !gpuos.tensor<8x256xf32>, %y : !gpuos.tensor<16x128xf32>)
    -> (o : !gpuos.tensor<16x128xf32>) {
  %r = gpuos.task "view_reshape" ins(%a = %x : !gpuos.tensor<8x256xf32>, %b = %y : !gpuos.tensor<16x128xf32>)
      tile [2, 128] -> (!gpuos.tensor<16x128xf32>) {
    %s = gpuos.reshape %a to [16, 128] : !gpuos.tensor<8x256xf32>
    %0 = gpuos.sub %s, %b : !gpuos.tensor<16x128xf32>, !gpuos.tensor<16x128xf32>
    gpuos.yield %0 : !gpuos.tensor<16x128xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x128xf32>
}

// A reshape whose rows straddle the operand's (12 -> 8 wide): per-lane.
gpuos.graph @reshape_lanes(%x : !gpuos.tensor<4x12xf32>, %y : !gpuos.tensor<6x8xf32>)
    -> (o : !gpuos.tensor<6x8xf32>) {
  %r = gpuos.task "view_reshape_lanes" ins(%a = %x : !gpuos.tensor<4x12xf32>, %b = %y : !gpuos.tensor<6x8xf32>)
      tile [3, 8] -> (!gpuos.tensor<6x8xf32>) {
    %t = gpuos.transpose %b [1, 0] : !gpuos.tensor<6x8xf32>
    %u = gpuos.transpose %t [1, 0] : !gpuos.tensor<8x6xf32, strides = [1, 8]>
    %s = gpuos.reshape %a to [6, 8] : !gpuos.tensor<4x12xf32>
    %0 = gpuos.mul %s, %u : !gpuos.tensor<6x8xf32>, !gpuos.tensor<6x8xf32>
    gpuos.yield %0 : !gpuos.tensor<6x8xf32>
  }
  gpuos.yield %r : !gpuos.tensor<6x8xf32>
}

// A reshape of a view whose size-1 dimension has a stride that never moves
// the address (as PyTorch's unsqueeze leaves one): the elements are in
// row-major order, so the reshape reads them as a contiguous tensor would.
gpuos.graph @reshape_unit_strides(%x : !gpuos.tensor<8x1x32xf32, strides = [32, 5, 1]>,
                                  %y : !gpuos.tensor<16x16xf32>)
    -> (o : !gpuos.tensor<16x16xf32>) {
  %r = gpuos.task "view_reshape_unit_strides" ins(%a = %x : !gpuos.tensor<8x1x32xf32, strides = [32, 5, 1]>,
                                                  %b = %y : !gpuos.tensor<16x16xf32>)
      tile [4, 16] -> (!gpuos.tensor<16x16xf32>) {
    %s = gpuos.reshape %a to [16, 16] : !gpuos.tensor<8x1x32xf32, strides = [32, 5, 1]>
    %0 = gpuos.add %s, %b : !gpuos.tensor<16x16xf32>, !gpuos.tensor<16x16xf32>
    gpuos.yield %0 : !gpuos.tensor<16x16xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x16xf32>
}

// A concat with empty operands, first and between two others: each element
// comes from %b or %d at its own position (the empty ones are never read).
gpuos.graph @concat_empty(%x : !gpuos.tensor<4x0xf32>, %y : !gpuos.tensor<4x8xf32>,
                          %z : !gpuos.tensor<4x0xf32>, %w : !gpuos.tensor<4x5xf32>)
    -> (o : !gpuos.tensor<4x13xf32>) {
  %r = gpuos.task "view_concat_empty" ins(%a = %x : !gpuos.tensor<4x0xf32>, %b = %y : !gpuos.tensor<4x8xf32>,
                                        %c = %z : !gpuos.tensor<4x0xf32>, %d = %w : !gpuos.tensor<4x5xf32>)
      tile [2, 13] -> (!gpuos.tensor<4x13xf32>) {
    %0 = gpuos.concat %a, %b, %c, %d axis 1 : !gpuos.tensor<4x0xf32>, !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x0xf32>, !gpuos.tensor<4x5xf32>
    %1 = gpuos.neg %0 : !gpuos.tensor<4x13xf32>
    gpuos.yield %1 : !gpuos.tensor<4x13xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x13xf32>
}

// Inputs whose layouts alias elements: a broadcast row (stride 0) and a
// sliding window (rows one element apart). The check draws values such
// memory can hold (one per address).
gpuos.graph @overlapping_inputs(%x : !gpuos.tensor<8x64xf32, strides = [0, 1]>,
                                %w : !gpuos.tensor<8x64xf32, strides = [1, 1]>)
    -> (o : !gpuos.tensor<8x64xf32>) {
  %r = gpuos.task "view_overlapping_inputs" ins(%a = %x : !gpuos.tensor<8x64xf32, strides = [0, 1]>,
                                                %b = %w : !gpuos.tensor<8x64xf32, strides = [1, 1]>)
      tile [2, 64] -> (!gpuos.tensor<8x64xf32>) {
    %0 = gpuos.mul %a, %b : !gpuos.tensor<8x64xf32, strides = [0, 1]>, !gpuos.tensor<8x64xf32, strides = [1, 1]>
    gpuos.yield %0 : !gpuos.tensor<8x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<8x64xf32>
}
