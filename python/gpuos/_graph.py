"""A gpuos.graph under construction, printed as MLIR text.

The front-end builds graphs here from aten ops (torch.compile's FX graphs
and the capture mode's recorded ops alike) and hands the text to gpuos-opt /
gpuos-jit. Values carry their gpuos type: shape, dtype and strides, computed
with the same rules the dialect's type inference uses (docs/dialect.md), so
the printed operand types always match what the parser infers.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

# torch dtype names -> gpuos element types.
DTYPES = {
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float64": "f64",
    "int64": "i64",
    "int32": "i32",
    "int8": "i8",
    "bool": "i1",
}
FLOAT_DTYPES = ("f32", "f16", "bf16", "f64")


class Unsupported(Exception):
    """An op, dtype or layout gpuos cannot express; the caller splits there."""


def row_major(shape: Sequence[int]) -> Tuple[int, ...]:
    strides, running = [], 1
    for dim in reversed(shape):
        strides.append(running)
        running *= dim
    return tuple(reversed(strides))


@dataclass(frozen=True)
class TensorType:
    shape: Tuple[int, ...]
    dtype: str
    # None: row-major (the canonical, contiguous layout).
    strides: Optional[Tuple[int, ...]] = None

    @staticmethod
    def make(shape, dtype, strides=None) -> "TensorType":
        shape = tuple(int(d) for d in shape)
        if strides is not None:
            strides = tuple(int(s) for s in strides)
            if strides == row_major(shape):
                strides = None
        return TensorType(shape, dtype, strides)

    @property
    def contiguous(self) -> bool:
        return self.strides is None

    @property
    def row_major_order(self) -> bool:
        """The elements lie in memory in row-major order, though strides may
        be spelled out: a size-1 dimension's stride never moves the address
        (a decode step's q.transpose(1, 2) leaves such strides), and an
        empty tensor has no layout. What gpuos.reshape accepts."""
        if self.strides is None or 0 in self.shape:
            return True
        expected = 1
        for dim, stride in zip(reversed(self.shape), reversed(self.strides)):
            if dim == 1:
                continue
            if stride != expected:
                return False
            expected *= dim
        return True

    def effective_strides(self) -> Tuple[int, ...]:
        return row_major(self.shape) if self.strides is None else self.strides

    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def with_dtype(self, dtype: str) -> "TensorType":
        return TensorType(self.shape, dtype, None)

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        layout = ""
        if self.strides is not None:
            layout = ", strides = [" + ", ".join(map(str, self.strides)) + "]"
        return f"!gpuos.tensor<{dims}{self.dtype}{layout}>"


@dataclass(frozen=True)
class Value:
    name: str
    type: TensorType


@dataclass(frozen=True)
class Def:
    """What produced a Value, for the importer's peepholes (_patterns.py):
    the op's kind ("mul", "reduce_mean", "transpose", "rms_norm", ...), its
    operands and its attributes (axes, eps, a constant's number, ...)."""

    kind: str
    operands: Tuple[Value, ...] = ()
    attrs: Tuple = ()


# MLIR spells infinities and NaN by their bits, at the type's width:
# (+inf, -inf, NaN).
_NONFINITE_BITS = {
    "f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
    "f64": ("0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
    "f16": ("0x7C00", "0xFC00", "0x7E00"),
    "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
}
# The smallest magnitude bf16 rounds to infinity (halfway past its largest).
_BF16_INF_FROM = struct.unpack(">f", bytes.fromhex("7f7f8000"))[0]


def _rounds_to_inf(value: float, dtype: str) -> bool:
    """Whether a finite `value` becomes an infinity in `dtype`, as a scalar
    converted by PyTorch does (MLIR rejects such a literal instead)."""
    if dtype == "bf16":
        return abs(value) >= _BF16_INF_FROM
    fmt = {"f32": "f", "f16": "e"}.get(dtype)
    if fmt is None:
        return False
    try:
        struct.pack(fmt, value)  # raises exactly when the value rounds to inf
        return False
    except OverflowError:
        return True


def exact_in(value: float, dtype: str) -> bool:
    """Whether `value` is exactly a value of the 16-bit float `dtype`."""
    if value != value or value in (float("inf"), float("-inf")):
        return True
    try:
        if dtype == "f16":
            return struct.unpack("e", struct.pack("e", value))[0] == value
        bits = struct.unpack(">I", struct.pack(">f", value))[0]
    except OverflowError:
        return False
    return struct.unpack(">f", struct.pack(">I", bits))[0] == value and not bits & 0xFFFF


def _float_literal(value: float, dtype: str = "f32") -> str:
    pos_inf, neg_inf, nan = _NONFINITE_BITS[dtype]
    if value != value:
        return nan
    if value in (float("inf"), float("-inf")) or _rounds_to_inf(value, dtype):
        return neg_inf if value < 0 else pos_inf
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # MLIR float literals need the dot: 1.0e-06
    return mantissa + ("e" + exponent if exponent else "")


@dataclass
class GraphBuilder:
    """Appends ops in order; every op's result is a fresh SSA value."""

    name: str
    priority: str = "normal"
    inputs: List[Tuple[str, Value]] = field(default_factory=list)
    outputs: List[Tuple[str, Value]] = field(default_factory=list)
    # (result name, operand names, text) per op, in order.
    ops: List[Tuple[str, Tuple[str, ...], str]] = field(default_factory=list)
    # result name -> Def, for ops built with a kind.
    defs: Dict[str, Def] = field(default_factory=dict)
    # Where the ops being built come from in the user's program ("model.py:42
    # in forward"), set by the importer per FX node; result name -> that.
    where: Optional[str] = None
    sources: Dict[str, str] = field(default_factory=dict)
    _count: int = 0
    _constants: Dict[Tuple[str, str], Value] = field(default_factory=dict)

    def _fresh(self, hint: str = "v") -> str:
        self._count += 1
        return f"%{hint}{self._count}"

    # --- graph signature -------------------------------------------------
    def add_input(self, name: str, type_: TensorType) -> Value:
        if not name.isidentifier():
            raise ValueError(f"graph input name {name!r} is not an identifier")
        value = Value("%" + name, type_)
        self.inputs.append((name, value))
        return value

    def add_output(self, name: str, value: Value) -> None:
        self.outputs.append((name, value))

    # --- ops ---------------------------------------------------------------
    def op(self, text: str, result: TensorType, operands: Sequence[Value] = (),
           hint: str = "v", kind: Optional[str] = None, attrs: Tuple = ()) -> Value:
        """`text` is everything after `%r = `; `result` its inferred type;
        `kind` and `attrs` describe the op to later peepholes."""
        name = self._fresh(hint)
        self.ops.append((name, tuple(v.name for v in operands), text))
        if self.where:
            self.sources[name] = self.where
        if kind is not None:
            self.defs[name] = Def(kind, tuple(operands), tuple(attrs))
        return Value(name, result)

    def defn(self, v) -> Optional[Def]:
        """The Def of a Value built here with a kind, else None."""
        return self.defs.get(v.name) if isinstance(v, Value) else None

    def constant(self, value, dtype: str) -> Value:
        """A rank-0 constant, shared by every use of the same value."""
        if dtype in FLOAT_DTYPES:
            literal = _float_literal(float(value), dtype)
        elif dtype == "i1":
            literal = "true" if value else "false"
        else:  # wrapped to the width, as PyTorch converts an int scalar
            bits = int(dtype[1:])
            wrapped = int(value) & ((1 << bits) - 1)
            literal = str(wrapped - (1 << bits) if wrapped >> (bits - 1) else wrapped)
        key = (literal, dtype)
        if key not in self._constants:
            self._constants[key] = self.op(
                f"gpuos.constant dense<{literal}> : tensor<{dtype}>",
                TensorType((), dtype),
                hint="c", kind="constant", attrs=(value,),
            )
        return self._constants[key]

    def live_ops(self) -> List[Tuple[str, Tuple[str, ...], str]]:
        """The ops some output depends on (the verifier rejects the rest)."""
        live = {v.name for _, v in self.outputs}
        kept = []
        for name, operands, text in reversed(self.ops):
            if name in live:
                live.update(operands)
                kept.append((name, operands, text))
        return list(reversed(kept))

    def _head(self) -> str:
        ins = ", ".join(f"{v.name} : {v.type}" for _, v in self.inputs)
        outs = ", ".join(f"{n} : {v.type}" for n, v in self.outputs)
        return (
            f"gpuos.graph @{self.name}({ins})\n    -> ({outs}) "
            f"priority #gpuos.priority<{self.priority}> {{"
        )

    def to_mlir(self) -> str:
        return self.to_mlir_with_sources()[0]

    def to_mlir_with_sources(self) -> Tuple[str, Dict[int, str]]:
        """The graph's text, and the line numbers (1-based) in it of the ops
        with a known source (what it says of them)."""
        head = self._head()
        lines = [head]
        sources: Dict[int, str] = {}
        line = head.count("\n") + 2  # the body's first line
        for name, _, text in self.live_ops():
            if name in self.sources:
                sources[line] = self.sources[name]
            lines.append(f"  {name} = {text}")
            line += lines[-1].count("\n") + 1
        values = ", ".join(v.name for _, v in self.outputs)
        types = ", ".join(str(v.type) for _, v in self.outputs)
        lines += [f"  gpuos.yield {values} : {types}", "}", ""]
        return "\n".join(lines), sources
