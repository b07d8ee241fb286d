// RUN: gpuos-opt %s --split-input-file --verify-diagnostics

// Graphs, tasks and yields reject malformed structure: bad names, cycles,
// dead values, undefined outputs, foreign ops and bad tilings.

// Graph inputs are named by their SSA names, which must be identifiers.
// expected-error @+1 {{graph input '%0' needs a name (a letter or '_', then letters, digits or '_'), such as %x}}
gpuos.graph @numeric_input(%0 : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %0 : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{graph output name '1y' is not an identifier (a letter or '_', then letters, digits or '_')}}
gpuos.graph @bad_output_name(%x : !gpuos.tensor<4xf32>) -> ("1y" : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{'gpuos.graph' op output name 'x' is used twice; inputs and outputs need distinct names}}
gpuos.graph @name_clash(%x : !gpuos.tensor<4xf32>) -> (x : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{'gpuos.graph' op output name 'y' is used twice; inputs and outputs need distinct names}}
gpuos.graph @duplicate_output(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>, y : !gpuos.tensor<4xf32>) {
  gpuos.yield %x, %x : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}

// -----

// A graph's symbol names it in images and the C API; @"" would not print
// back as anything that parses.
// expected-error @+1 {{'gpuos.graph' op needs a non-empty name}}
gpuos.graph @""(%x : !gpuos.tensor<4xf32>) -> (a : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{'gpuos.graph' op needs at least one output}}
gpuos.graph @no_outputs(%x : !gpuos.tensor<4xf32>) -> () {
  gpuos.yield
}

// -----

// expected-error @+1 {{'gpuos.graph' op input of type 'tensor<4xf32>' is not a !gpuos.tensor}}
gpuos.graph @builtin_tensor(%x : tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.constant dense<0.0> : tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// A declared output the yield does not define.
gpuos.graph @undefined_output(%x : !gpuos.tensor<4xf32>)
    -> (y : !gpuos.tensor<4xf32>, z : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.yield' op yields 1 value(s) but the graph declares 2 output(s); output 'z' is undefined}}
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @extra_value(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.yield' op yields 2 value(s) but the graph declares 1 output(s)}}
  gpuos.yield %x, %x : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @output_type(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf16>) {
  // expected-error @+1 {{'gpuos.yield' op output 'y' is declared '!gpuos.tensor<4xf16>' but yields '!gpuos.tensor<4xf32>'}}
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// A value that reaches no output is dead code in a DAG description.
gpuos.graph @unused_value(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.exp' op result #0 is never used; every value in a graph must reach an output}}
  %dead = gpuos.exp %x : !gpuos.tensor<4xf32>
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{'gpuos.graph' op body has a cycle through 2 op(s); a graph must be a DAG}}
gpuos.graph @cycle(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-note @+1 {{'gpuos.add' is on the cycle}}
  %a = gpuos.add %x, %b : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  // expected-note @+1 {{'gpuos.exp' is on the cycle}}
  %b = gpuos.exp %a : !gpuos.tensor<4xf32>
  gpuos.yield %b : !gpuos.tensor<4xf32>
}

// -----

// expected-error @+1 {{'gpuos.graph' op body has a cycle through 1 op(s); a graph must be a DAG}}
gpuos.graph @self_cycle(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-note @+1 {{'gpuos.mul' is on the cycle}}
  %a = gpuos.mul %a, %x : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %a : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @foreign_op(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'arith.constant' op cannot appear in a gpuos.graph; graphs hold gpuos micro-ops and tasks}}
  %c = arith.constant 1.0 : f32
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @nested_graph(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.graph' op symbol's parent must have the SymbolTable trait}}
  gpuos.graph @inner(%z : !gpuos.tensor<4xf32>) -> (w : !gpuos.tensor<4xf32>) {
    gpuos.yield %z : !gpuos.tensor<4xf32>
  }
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// The generic form can spell inconsistent signatures; they are caught.
// expected-error @+1 {{'gpuos.graph' op has 2 input names for 1 inputs}}
"gpuos.graph"() <{sym_name = "names", function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>,
                  input_names = ["a", "b"], output_names = ["y"]}> ({
^bb0(%a: !gpuos.tensor<4xf32>):
  "gpuos.yield"(%a) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'gpuos.graph' op has 0 output names for 1 outputs}}
"gpuos.graph"() <{sym_name = "outs", function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>,
                  input_names = ["a"], output_names = []}> ({
^bb0(%a: !gpuos.tensor<4xf32>):
  "gpuos.yield"(%a) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'gpuos.graph' op body arguments do not match the input types}}
"gpuos.graph"() <{sym_name = "args", function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>,
                  input_names = ["a"], output_names = ["y"]}> ({
^bb0(%a: !gpuos.tensor<8xf32>):
  "gpuos.yield"(%a) : (!gpuos.tensor<8xf32>) -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'gpuos.graph' op input name 'not valid' is not an identifier}}
"gpuos.graph"() <{sym_name = "ident", function_type = (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>,
                  input_names = ["not valid"], output_names = ["y"]}> ({
^bb0(%a: !gpuos.tensor<4xf32>):
  "gpuos.yield"(%a) : (!gpuos.tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Tasks: tiling covers the first result's rank with positive sizes.
gpuos.graph @tile_rank(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  // expected-error @+1 {{'gpuos.task' op tile has 1 sizes for a first result of rank 2}}
  %y = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4x8xf32>) tile [8] -> (!gpuos.tensor<4x8xf32>) {
    %n = gpuos.neg %a : !gpuos.tensor<4x8xf32>
    gpuos.yield %n : !gpuos.tensor<4x8xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}

// -----

gpuos.graph @tile_size(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  // expected-error @+1 {{'gpuos.task' op tile size 1 must be a positive number of elements}}
  %y = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4x8xf32>) tile [1, 0] -> (!gpuos.tensor<4x8xf32>) {
    %n = gpuos.neg %a : !gpuos.tensor<4x8xf32>
    gpuos.yield %n : !gpuos.tensor<4x8xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}

// -----

gpuos.graph @dynamic_tile(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  // expected-error @+1 {{'gpuos.task' op tile size 0 must be a positive number of elements}}
  %y = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4x8xf32>) tile [?, 8] -> (!gpuos.tensor<4x8xf32>) {
    %n = gpuos.neg %a : !gpuos.tensor<4x8xf32>
    gpuos.yield %n : !gpuos.tensor<4x8xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}

// -----

gpuos.graph @empty_kind(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.task' op needs a non-empty kind}}
  %y = gpuos.task "" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    %n = gpuos.neg %a : !gpuos.tensor<4xf32>
    gpuos.yield %n : !gpuos.tensor<4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @task_yield(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    %n = gpuos.cast %a : !gpuos.tensor<4xf32> to f16
    // expected-error @+1 {{'gpuos.yield' op yields ('!gpuos.tensor<4xf16>') but the task produces ('!gpuos.tensor<4xf32>')}}
    gpuos.yield %n : !gpuos.tensor<4xf16>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @task_no_results(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.task' op needs at least one result}}
  "gpuos.task"(%x) <{kind = "none", tile = array<i64>}> ({
  ^bb0(%a: !gpuos.tensor<4xf32>):
    "gpuos.yield"() : () -> ()
  }) : (!gpuos.tensor<4xf32>) -> ()
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @task_args(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.task' op body arguments do not match the bound inputs}}
  %y = "gpuos.task"(%x) <{kind = "args", tile = array<i64: 4>}> ({
  ^bb0(%a: !gpuos.tensor<8xf32>):
    %n = gpuos.constant dense<0.0> : tensor<4xf32>
    "gpuos.yield"(%n) : (!gpuos.tensor<4xf32>) -> ()
  }) : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @task_nested(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "outer" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    // expected-error @+1 {{'gpuos.task' op expects parent op 'gpuos.graph'}}
    %z = gpuos.task "inner" ins(%b = %a : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
      gpuos.yield %b : !gpuos.tensor<4xf32>
    }
    gpuos.yield %z : !gpuos.tensor<4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

gpuos.graph @task_foreign(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "foreign" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    // expected-error @+1 {{'arith.constant' op cannot appear in a gpuos.task; tasks hold gpuos micro-ops}}
    %c = arith.constant 0 : i32
    gpuos.yield %a : !gpuos.tensor<4xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}

// -----

// Tasks live in graphs, yields in graphs and tasks.
func.func @task_outside_graph(%x : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.task' op expects parent op 'gpuos.graph'}}
  %y = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    gpuos.yield %a : !gpuos.tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside(%x : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.yield' op expects parent op to be one of 'gpuos.graph, gpuos.task'}}
  gpuos.yield %x : !gpuos.tensor<4xf32>
}

// -----

// A body ending in another dialect's terminator has no outputs.
// expected-error @+1 {{'gpuos.graph' op body must end with gpuos.yield}}
gpuos.graph @foreign_terminator(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  llvm.unreachable
}

// -----

gpuos.graph @task_foreign_terminator(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // expected-error @+1 {{'gpuos.task' op body must end with gpuos.yield}}
  %y = gpuos.task "t" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    llvm.unreachable
  }
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
