#!/usr/bin/env python3
"""The benchmark suite's orchestrator (docs/benchmarks.md).

    python3 bench/suite/bench.py run [--out DIR] [--only a,b] [options]
    python3 bench/suite/bench.py warm NAME...      (internal: compile warmer)

`run` (on the GPU machine, through `bash bench/suite/run.sh run`) does, in
one process and one run:
  1. starts building the C++ driver (bench/suite/driver, against runtime/)
     and, unless --no-compile, torch.compile warmers in subprocesses that
     fill the inductor cache while this process prepares inputs;
  2. draws K rotated random input sets per workload on the GPU, writes them
     as raw files for the driver, and computes the float64 references of
     the checked sets;
  3. per workload: gpuos through the C++ API (the driver: outputs checked
     against the references, pipelined and synchronous times), then PyTorch
     eager, a captured CUDA graph, torch.compile and torch.compile
     (reduce-overhead), each timed the same two ways;
  4. GPU sharing: urgent stream + background through the runtime, and the
     same work on two CUDA streams with stream priorities;
  5. the copy bandwidth next to the fused chain's bandwidth;
  6. writes h200.json, results.md and PNG plots into --out, prints the
     summary table last, and exits 1 on any correctness failure or error.
"""

import argparse
import datetime
import gc
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

# One compile-worker budget for the main process and the warmers alike, so
# inductor's cache keys agree and the warmers do not oversubscribe the CPUs.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", str(max(1, (os.cpu_count() or 4) // 4)))
# Workloads are timed one after the other in one process: the Python
# front-end's image holds the last two graphs only (docs/python.md,
# "Images"), so a workload's first call compiles its own graphs, not a
# union with every earlier workload's (that cost 15-47 s per workload).
# Per-call times do not depend on it while a workload calls at most two
# graphs (each suite workload does; union_evictions in the front-end
# statistics would grow during timing otherwise).
os.environ.setdefault("GPUOS_UNION_GRAPHS", "2")

import torch  # noqa: E402

import common  # noqa: E402
from workloads import WORKLOADS, BY_NAME  # noqa: E402

MODES = ["gpuos", "gpuos_python", "gpuos_jit", "eager", "graph", "compile", "compile_ro"]
TORCH_MODES = ["eager", "graph", "compile", "compile_ro"]
# The Python front-end's modes (--python-path): torch.compile and gpuos.jit.
PYTHON_MODES = ["gpuos_python", "gpuos_jit"]
MODE_LABEL = {"gpuos": "gpuos C++", "gpuos_python": "gpuos Python", "gpuos_jit": "gpuos Python (jit)",
              "eager": "eager", "graph": "CUDA graph", "compile": "compile", "compile_ro": "compile RO"}
TARGET_VS_EAGER, TARGET_VS_BEST = 15.0, 3.0
TARGET_URGENT_P99_RATIO, TARGET_BG_FRACTION, TARGET_BANDWIDTH = 1.05, 0.5, 0.8
CHECK_SETS = 2
ROTATE_BYTES = 192 << 20  # rotated sets together exceed the 60 MB L2 about 3x
MAX_SETS = 64

T0 = time.time()


def log(msg):
    print("[%6.1fs] %s" % (time.time() - T0, msg), flush=True)


def num_sets(sig):
    per = sig.input_bytes + sig.output_bytes
    return int(min(MAX_SETS, max(2, math.ceil(ROTATE_BYTES / max(per, 1)))))


def dist(samples):
    s = sorted(samples)
    if not s:
        return None

    def q(p):
        i = max(0, math.ceil(p * len(s)) - 1)
        return s[min(i, len(s) - 1)]
    return {"n": len(s), "p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "min": s[0], "max": s[-1],
            "mean": statistics.fmean(s)}


# ---------------------------------------------------------------- timing


def time_calls(call, sets, budget_s, sync):
    """Pipelined per-call time and synchronous latency of call(k), in us.

    Host clock, the same method as the gpuos driver: a batch of N calls
    issued back to back, cycling over the rotated sets, timed from an idle
    device to the completion of the last (sync); per call = batch / N,
    median over batches. Then single calls each followed by the host
    waiting for the result: p50/p99.
    """
    for i in range(max(3, min(sets, 8))):
        call(i % sets)
    sync()
    cal = []
    for i in range(5):
        t0 = time.perf_counter()
        call(i % sets)
        sync()
        cal.append((time.perf_counter() - t0) * 1e6)
    t1 = max(1.0, statistics.median(cal))
    n = int(min(512, max(16, math.ceil(3000.0 / t1))))
    gc.disable()
    try:
        per = []
        start = time.perf_counter()
        for r in range(200):
            sync()
            t0 = time.perf_counter()
            for i in range(n):
                call((r * n + i) % sets)
            sync()
            t = time.perf_counter()
            per.append((t - t0) * 1e6 / n)
            if r >= 4 and t - start > budget_s / 2:
                break
        lat = []
        start = time.perf_counter()
        for i in range(5000):
            t0 = time.perf_counter()
            call(i % sets)
            sync()
            t = time.perf_counter()
            lat.append((t - t0) * 1e6)
            if i >= 30 and t - start > budget_s / 2:
                break
    finally:
        gc.enable()
    return {"pipelined_us": dist(per), "sync_us": dist(lat), "calls_per_batch": n}


# ---------------------------------------------------------------- the modes


def configure_dynamo():
    try:
        import torch._dynamo as dynamo
        for key in ("cache_size_limit", "recompile_limit"):
            if hasattr(dynamo.config, key):
                setattr(dynamo.config, key, 64)
        if hasattr(dynamo.config, "accumulated_cache_size_limit"):
            dynamo.config.accumulated_cache_size_limit = 1024
        if hasattr(dynamo.config, "accumulated_recompile_limit"):
            dynamo.config.accumulated_recompile_limit = 1024
    except Exception as e:  # pragma: no cover
        log("note: could not configure dynamo: %s" % e)


def compiled(w, mode):
    if mode == "gpuos_python":
        # The PyTorch front-end (python/, docs/python.md): torch.compile with
        # the gpuos backend, run on the resident runtime, urgent class.
        import gpuos  # noqa: F401  (registers the backend)
        return torch.compile(w.fn, backend="gpuos", dynamic=False,
                             options={"priority": "urgent"})
    if mode == "gpuos_jit":
        # The same front-end without Dynamo: gpuos.jit records the function
        # once per input signature and replays the graph behind a guard.
        import gpuos
        return gpuos.jit(w.fn, priority="urgent")
    if mode == "compile":
        return torch.compile(w.fn, dynamic=False)
    return torch.compile(w.fn, mode="reduce-overhead", dynamic=False)


def capture_graphs(fn, input_sets):
    """One CUDA graph per rotated input set (graphs bake in addresses)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn(*input_sets[0])
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    pool = torch.cuda.graph_pool_handle()
    graphs, outs = [], []
    for inp in input_sets:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            o = fn(*inp)
        graphs.append(g)
        outs.append(o)
    return graphs, outs


def torch_err(sig, outs, refs):
    try:
        _, worst, _ = common.check_outputs(sig, [o.detach() for o in outs], refs)
        return worst
    except Exception:
        return None


def run_torch_mode(mode, w, sig, inputs, refs, budget_s, device):
    """Times one PyTorch mode; returns (result dict, note)."""
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sets = len(inputs)
    extra = {}
    if mode == "eager":
        fn = w.fn
        extra["rel_err"] = torch_err(sig, fn(*inputs[0]), refs[0])

        def call(k):
            fn(*inputs[k])
    elif mode == "graph":
        if device != "cuda":
            return None, "no CUDA"
        t0 = time.time()
        graphs, outs = capture_graphs(w.fn, inputs)
        extra["capture_s"] = time.time() - t0
        graphs[0].replay()
        sync()
        extra["rel_err"] = torch_err(sig, outs[0], refs[0])

        def call(k):
            graphs[k].replay()
    else:
        fn = compiled(w, mode)
        t0 = time.time()
        out = [o.clone() for o in fn(*inputs[0])]
        sync()
        extra["first_call_s"] = time.time() - t0
        for _ in range(3):  # reduce-overhead records its graph on a later call
            fn(*inputs[0])
        sync()
        extra["rel_err"] = torch_err(sig, out, refs[0])
        if mode in PYTHON_MODES:
            extra["correct"] = common.check_outputs(sig, [o.detach() for o in out], refs[0])[0]

        def call(k):
            fn(*inputs[k])
    if mode in PYTHON_MODES:
        # Each call returns finished tensors; a device-wide synchronize would
        # also wait for the resident kernel (on its own stream) to park.
        sync = torch.cuda.current_stream().synchronize if device == "cuda" else sync
    res = time_calls(call, sets, budget_s, sync)
    res.update(extra)
    if mode in PYTHON_MODES:
        import gpuos
        gpuos.park()  # free the SMs before the next mode is timed
        res["front_end_stats"] = gpuos.stats()
    return res, None


# ---------------------------------------------------------------- gpuos


class Ctx:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.out = os.path.abspath(args.out)
        self.images = os.path.abspath(args.images)
        self.driver = args.driver
        self.device = "cpu" if args.cpu else "cuda"
        self.failures = []
        self.notes = []
        self.driver_hung = False
        self.phase = {}

    def fail(self, what):
        log("FAIL: " + what)
        self.failures.append(what)

    def note(self, what):
        log("note: " + what)
        self.notes.append(what)

    def elapsed(self):
        return time.time() - T0


def image_paths(ctx, w):
    stem = os.path.splitext(w.mlir)[0]
    return (os.path.join(ctx.images, stem + ".cubin"), os.path.join(ctx.images, stem + ".manifest.json"))


def write_sets(ctx, w, sig, inputs):
    base = os.path.join(ctx.work, "data", w.name)
    shutil.rmtree(base, ignore_errors=True)
    for k, inp in enumerate(inputs):
        d = os.path.join(base, "set%d" % k)
        os.makedirs(d, exist_ok=True)
        for t, v in zip(sig.inputs, inp):
            with open(os.path.join(d, t.name + ".bin"), "wb") as f:
                f.write(common.to_bytes(v))
    spec = os.path.join(ctx.work, "data", w.name + ".spec")
    common.write_spec(spec, sig)
    return base, spec


def read_outputs(sig, d):
    outs = []
    for t in sig.outputs:
        with open(os.path.join(d, t.name + ".bin"), "rb") as f:
            outs.append(common.from_bytes(f.read(), t))
    return outs


def run_driver(ctx, argv, timeout):
    if ctx.driver_hung:
        return None, "skipped: an earlier driver run timed out (the GPU may be hung)"
    cmd = [ctx.driver] + argv
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        ctx.driver_hung = True
        return None, "timed out after %d s: %s" % (timeout, " ".join(cmd))
    if r.returncode != 0:
        return None, "exit %d: %s" % (r.returncode, (r.stderr or r.stdout).strip()[-1500:])
    return r, None


def runtime_options(ctx):
    """suite-driver options for every run on the gpuos runtime (bench and
    share-gpuos): --no-gang and --driver-extra."""
    return (["--gang", "0"] if ctx.args.no_gang else []) + ctx.args.driver_extra.split()


def run_gpuos(ctx, w, sig, data, spec, sets, refs):
    """The driver's bench; returns (result or None, max_rel_err or None, ok)."""
    cubin, manifest = image_paths(ctx, w)
    if not os.path.exists(cubin):
        ctx.fail("%s: no image %s (run 'bash bench/suite/run.sh prepare' here first)" % (w.name, cubin))
        return None, None, False
    outdir = os.path.join(ctx.work, "gpuos-out", w.name)
    shutil.rmtree(outdir, ignore_errors=True)
    jpath = os.path.join(ctx.work, "gpuos-%s.json" % w.name)
    _, err = run_driver(ctx, ["bench", "--image", cubin, "--manifest", manifest, "--spec", spec,
                              "--data", data, "--sets", str(sets), "--check-sets", str(len(refs)),
                              "--out", outdir, "--budget-s", str(ctx.args.budget_s), "--json", jpath]
                       + runtime_options(ctx),
                        timeout=ctx.args.driver_timeout)
    if err:
        ctx.fail("%s: gpuos driver: %s" % (w.name, err))
        return None, None, False
    res = json.load(open(jpath))
    ok, worst = True, 0.0
    for k, ref in enumerate(refs):
        outs = read_outputs(sig, os.path.join(outdir, "set%d" % k))
        good, rel, msgs = common.check_outputs(sig, outs, ref)
        worst = max(worst, rel)
        if not good:
            ok = False
            ctx.fail("%s: gpuos output set %d wrong: %s" % (w.name, k, "; ".join(m for m in msgs if "FAIL" in m)))
    return res, worst, ok


def fake_gpuos(ctx, w, sig, inputs, refs):
    """--fake-gpuos (CPU self-test): eager float32 outputs through the same
    files and checks, standing in for the driver."""
    outdir = os.path.join(ctx.work, "gpuos-out", w.name)
    worst, ok = 0.0, True
    for k, ref in enumerate(refs):
        d = os.path.join(outdir, "set%d" % k)
        os.makedirs(d, exist_ok=True)
        for t, o in zip(sig.outputs, w.fn(*inputs[k])):
            with open(os.path.join(d, t.name + ".bin"), "wb") as f:
                f.write(common.to_bytes(o.to(common.torch_dtype(t.dtype))))
        good, rel, msgs = common.check_outputs(sig, read_outputs(sig, d), ref)
        worst = max(worst, rel)
        if not good:
            ok = False
            ctx.fail("%s: fake gpuos set %d: %s" % (w.name, k, "; ".join(msgs)))
    t = time_calls(lambda k: w.fn(*inputs[k]), len(inputs), 0.2, lambda: None)
    return t, worst, ok


# ---------------------------------------------------------------- phases


def start_build(ctx):
    if ctx.args.cpu and not ctx.args.build_driver:
        return None
    if ctx.args.driver_prebuilt:
        return None
    log_path = os.path.join(ctx.work, "driver-build.log")
    f = open(log_path, "w")
    return subprocess.Popen(["bash", os.path.join(HERE, "run.sh"), "build-driver"], stdout=f,
                            stderr=subprocess.STDOUT, env=dict(os.environ, BENCH_DRIVER=ctx.driver)), log_path


def wait_build(ctx, build):
    if build is None:
        return os.path.exists(ctx.driver)
    proc, log_path = build
    rc = proc.wait()
    if rc != 0:
        ctx.fail("building the driver failed (exit %d); log tail:\n%s" % (rc, open(log_path).read()[-3000:]))
        return False
    r = subprocess.run([ctx.driver, "probe"], capture_output=True, text=True)
    if r.returncode != 0:
        ctx.fail("the driver does not start: %s" % r.stderr.strip())
        return False
    return True


def start_warmers(ctx, names):
    if ctx.args.no_compile or ctx.device != "cuda" or ctx.args.warmers <= 0:
        return []
    k = min(ctx.args.warmers, len(names))
    # Big graphs first, spread round-robin so each warmer gets a mix.
    order = sorted(names, key=lambda n: -len(open(os.path.join(common.WORKLOAD_DIR, BY_NAME[n].mlir)).read()))
    procs = []
    for i in range(k):
        part = order[i::k]
        path = os.path.join(ctx.work, "warm%d.log" % i)
        f = open(path, "w")
        procs.append((subprocess.Popen([sys.executable, os.path.abspath(__file__), "warm"] + part,
                                       stdout=f, stderr=subprocess.STDOUT), path, part))
    log("compile warmers: %d processes over %d workloads" % (k, len(names)))
    return procs


def wait_warmers(ctx, procs, deadline):
    for p, path, part in procs:
        left = max(1.0, deadline - time.time())
        try:
            rc = p.wait(timeout=left)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            ctx.note("compile warmer for %s stopped at the warm-up deadline" % ",".join(part))
            continue
        if rc != 0:
            ctx.note("compile warmer for %s exited %d (see %s): %s" % (
                ",".join(part), rc, path, open(path).read()[-800:]))


def cmd_warm(names):
    """Compiles both torch.compile modes of each workload once (fills the
    inductor cache for the main process)."""
    configure_dynamo()
    torch.set_grad_enabled(False)
    for name in names:
        w = BY_NAME[name]
        sig = common.signature(w)
        inp = common.make_inputs(w, sig, 0, "cuda")
        for mode in ("compile", "compile_ro"):
            t0 = time.time()
            try:
                fn = compiled(w, mode)
                for _ in range(3):
                    fn(*inp)
                torch.cuda.synchronize()
                print("warm %s %s %.1fs" % (name, mode, time.time() - t0), flush=True)
            except Exception as e:
                print("warm %s %s failed: %s" % (name, mode, e), flush=True)
        del inp
    return 0


# Urgent calls made one at a time right after a background graph finished:
# what the background leaves in the caches, without its concurrent traffic.
AFTER_BG_CALLS = 200


def sharing_phase(ctx, data_info):
    """GPU sharing through the runtime and on two priority streams."""
    uw, bw = BY_NAME["urgent_step"], BY_NAME["background_bulk"]
    if uw.name not in data_info or bw.name not in data_info:
        return None
    (udata, uspec, usets, urefs, usig) = data_info[uw.name]
    (bdata, bspec, _, brefs, bsig) = data_info[bw.name]
    cubin, manifest = image_paths(ctx, uw)
    if not os.path.exists(cubin):
        ctx.fail("sharing: no image %s" % cubin)
        return None
    results = {}
    # The runtime with its default policy and with urgentExclusive (other
    # work waits while an urgent run is in flight), and two CUDA streams.
    for mode, command, extra in (("share-gpuos", "share-gpuos", []),
                                 ("share-gpuos-exclusive", "share-gpuos", ["--urgent-exclusive", "1"]),
                                 ("share-streams", "share-streams", [])):
        outdir = os.path.join(ctx.work, "sharing-out", mode)
        shutil.rmtree(outdir, ignore_errors=True)
        jpath = os.path.join(ctx.work, mode + ".json")
        _, err = run_driver(ctx, [command, "--image", cubin, "--manifest", manifest, "--urgent-spec", uspec,
                                  "--urgent-data", udata, "--urgent-sets", str(usets), "--bg-spec", bspec,
                                  "--bg-data", bdata, "--out", outdir, "--period-us", str(ctx.args.period_us),
                                  "--duration-s", str(ctx.args.share_s), "--after-bg", str(AFTER_BG_CALLS),
                                  "--json", jpath] + extra
                                 + (runtime_options(ctx) if command == "share-gpuos" else []),
                            timeout=ctx.args.driver_timeout)
        if err:
            ctx.fail("sharing %s: %s" % (mode, err))
            continue
        res = json.load(open(jpath))
        for label, sig, refs in (("urgent", usig, urefs), ("background", bsig, brefs)):
            outs = read_outputs(sig, os.path.join(outdir, label))
            good, rel, msgs = common.check_outputs(sig, outs, refs[0])
            res["%s_rel_err" % label] = rel
            if not good:
                ctx.fail("sharing %s: %s outputs wrong: %s" % (mode, label, "; ".join(msgs)))
        results[mode] = res
        log("%s: urgent p99 solo %.1f us shared %.1f us; background %.0f/s solo %.0f/s shared" % (
            mode, res["urgent_solo_us"]["p99"], res["urgent_shared_us"]["p99"],
            res["background_solo_per_s"], res["background_shared_per_s"]))
    return results


def plain_grid_us(ctx, w):
    """The workload's generated task functions as plain grids (suite-driver
    profile-launch: one block per tile, no resident kernel), us per call:
    the compiler's code on its own. (None, why) when it cannot run."""
    cubin, manifest = image_paths(ctx, w)
    jpath = os.path.join(ctx.work, "launch-%s.json" % w.name)
    _, err = run_driver(ctx, ["profile-launch", "--image", cubin, "--manifest", manifest,
                              "--graph", w.name, "--reps", "20", "--json", jpath],
                        timeout=ctx.args.driver_timeout)
    if err:
        return None, err
    with open(jpath) as f:
        return json.load(f)["sum_us"], None


def bandwidth_phase(ctx, w, sig, inputs, gpuos_res, budget_s):
    """The copy bandwidth (same bytes as the chain, and a 2 GiB copy), the
    fused chain's bandwidth through the runtime, and its generated code as
    a plain grid (issue 3's figure: the compiler's code against the copy),
    counting bytes read and written."""
    if ctx.device != "cuda":
        return None
    sync = torch.cuda.synchronize
    moved = sig.input_bytes + sig.output_bytes
    n = sig.inputs[0].numel
    srcs = [torch.rand(n, device="cuda") for _ in range(2)]
    dsts = [torch.empty_like(s) for s in srcs]
    same = time_calls(lambda k: dsts[k].copy_(srcs[k]), 2, budget_s, sync)
    big_n = (2 << 30) // 4
    bsrc = torch.rand(big_n, device="cuda")
    bdst = torch.empty_like(bsrc)
    big = time_calls(lambda k: bdst.copy_(bsrc), 1, budget_s, sync)
    copy_tbs = 2 * n * 4 / (same["pipelined_us"]["p50"] * 1e-6) / 1e12
    big_tbs = 2 * big_n * 4 / (big["pipelined_us"]["p50"] * 1e-6) / 1e12
    out = {"bytes_moved": moved, "copy_bytes_moved": 2 * n * 4, "copy_tb_s": copy_tbs,
           "copy_2gib_tb_s": big_tbs, "gpuos_tb_s": None, "ratio": None, "target": TARGET_BANDWIDTH}
    if gpuos_res:
        t = gpuos_res["pipelined_us"]["p50"]
        out["gpuos_tb_s"] = moved / (t * 1e-6) / 1e12
        out["ratio"] = out["gpuos_tb_s"] / copy_tbs
        out["met"] = out["ratio"] >= TARGET_BANDWIDTH
    plain_us, err = plain_grid_us(ctx, w)
    out["plain_grid_us"] = plain_us
    out["plain_grid_tb_s"] = moved / (plain_us * 1e-6) / 1e12 if plain_us else None
    out["plain_grid_ratio"] = out["plain_grid_tb_s"] / copy_tbs if plain_us else None
    if plain_us:
        out["plain_grid_met"] = out["plain_grid_ratio"] >= TARGET_BANDWIDTH
    if err:
        ctx.note("bandwidth: generated code as a plain grid not measured: %s" % err)
    log("bandwidth: copy %.2f TB/s (2 GiB copy %.2f), gpuos chain %s TB/s, ratio %s; "
        "its code as a plain grid %s TB/s, ratio %s" % (
            copy_tbs, big_tbs, fmt(out["gpuos_tb_s"], "%.2f"), fmt(out["ratio"], "%.2f"),
            fmt(out["plain_grid_tb_s"], "%.2f"), fmt(out["plain_grid_ratio"], "%.2f")))
    return out


# ---------------------------------------------------------------- report


def sanitize(o):
    """Strict JSON: non-finite floats become strings ("inf", "nan")."""
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    if isinstance(o, dict):
        return {k: sanitize(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [sanitize(v) for v in o]
    return o


def fmt(v, f="%.1f"):
    return "-" if v is None else f % v


def versions(images_dir=None):
    v = {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda}
    try:
        import triton
        v["triton"] = triton.__version__
    except Exception:
        v["triton"] = None
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        v["nvidia_smi"] = r.stdout.strip()
        v["driver"] = r.stdout.split(",")[1].strip() if r.returncode == 0 and "," in r.stdout else None
    except Exception:
        v["nvidia_smi"] = None
        v["driver"] = None
    # The commit `run.sh prepare` built the images at (.bench/commit): the
    # GPU machine's copy of the tree may carry a stale .git.
    stamp = os.path.join(os.path.dirname(os.path.normpath(images_dir or ".")), "commit")
    if images_dir and os.path.exists(stamp):
        v["commit"] = open(stamp).read().strip() or None
        return v
    try:
        r = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        v["commit"] = r.stdout.strip() or None
    except Exception:
        v["commit"] = None
    return v


def speedups(row, suffix):
    g = row.get("gpuos" + suffix)
    e = row.get("eager" + suffix)
    others = [row.get(m + suffix) for m in TORCH_MODES if row.get(m + suffix) is not None]
    best = min(others) if others else None
    vs_eager = e / g if g and e else None
    vs_best = best / g if g and best else None
    return vs_eager, vs_best


def make_row(w, gres, gerr, gok, tres):
    row = {"name": w.name, "description": w.desc}
    for m in MODES:
        r = gres if m == "gpuos" else tres.get(m)
        row[m + "_us"] = r["pipelined_us"]["p50"] if r else None
    for m in MODES:
        r = gres if m == "gpuos" else tres.get(m)
        row[m + "_sync_p50"] = r["sync_us"]["p50"] if r else None
        row[m + "_sync_p99"] = r["sync_us"]["p99"] if r else None
    row["max_rel_err"] = gerr
    row["correct"] = gok
    pe, pb = speedups(row, "_us")
    se, sb = speedups(row, "_sync_p50")
    row["speedup_vs_eager"] = pe
    row["speedup_vs_best"] = pb
    row["sync_speedup_vs_eager"] = se
    row["sync_speedup_vs_best"] = sb
    row["targets_met"] = (None if None in (pe, pb, se, sb) else
                          pe >= TARGET_VS_EAGER and pb >= TARGET_VS_BEST and se >= TARGET_VS_EAGER
                          and sb >= TARGET_VS_BEST)
    row["torch_rel_err"] = {m: (tres[m] or {}).get("rel_err") for m in TORCH_MODES if tres.get(m)}
    return row


def short_commit(commit):
    """The commit as the tables show it: 12 hex digits, keeping the
    "-dirty" mark of images prepared from a tree with uncommitted changes."""
    if not commit:
        return "?"
    head, dirty, _ = commit.partition("-dirty")
    return head[:12] + ("-dirty (uncommitted changes in the tree)" if dirty else "")


def markdown(rows, sharing, bw, meta):
    L = []
    L.append("## gpuos benchmark suite on %s (%s)\n" % (meta["device"], meta["date"]))
    L.append("Command: `%s`; torch %s, CUDA %s, triton %s, driver %s, commit %s.\n" % (
        meta["command"], meta["versions"]["torch"], meta["versions"]["cuda"], meta["versions"]["triton"],
        meta["versions"].get("driver"), short_commit(meta["versions"].get("commit"))))
    L.append("### Pipelined time per call (us, median; many calls back to back)\n")
    L.append("| workload | gpuos C++ | gpuos Python | gpuos Python (jit) | eager | CUDA graph | compile | compile RO "
             "| vs eager | vs best | rel err |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], fmt(r["gpuos_us"]), fmt(r["gpuos_python_us"]), fmt(r.get("gpuos_jit_us")),
            fmt(r["eager_us"]), fmt(r["graph_us"]),
            fmt(r["compile_us"]),
            fmt(r["compile_ro_us"]), fmt(r["speedup_vs_eager"], "%.2fx"), fmt(r["speedup_vs_best"], "%.2fx"),
            fmt(r["max_rel_err"], "%.1e")))
    L.append("\n### Synchronous latency (us, p50 / p99; one call, host waits for the result)\n")
    L.append("| workload | gpuos C++ | gpuos Python | gpuos Python (jit) | eager | CUDA graph | compile | compile RO "
             "| vs eager | vs best |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        cells = ["%s / %s" % (fmt(r.get(m + "_sync_p50")), fmt(r.get(m + "_sync_p99")))
                 for m in ("gpuos", "gpuos_python", "gpuos_jit", "eager", "graph", "compile", "compile_ro")]
        L.append("| %s | %s | %s | %s |" % (r["name"], " | ".join(cells), fmt(r["sync_speedup_vs_eager"], "%.2fx"),
                                           fmt(r["sync_speedup_vs_best"], "%.2fx")))
    L.append("\nTargets: >= %.0fx eager and >= %.0fx the best PyTorch mode, both figures.\n" % (
        TARGET_VS_EAGER, TARGET_VS_BEST))
    if sharing:
        L.append("### GPU sharing (urgent stream + background)\n")
        L.append("| | urgent p99 solo (us) | urgent p99 shared (us) | ratio | background kept "
                 "| urgent p50 / p99 right after a background graph (us) |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: |")
        for label, key in (("gpuos runtime (priorities)", "gpuos"),
                           ("gpuos runtime, urgentExclusive", "gpuos_exclusive"),
                           ("2 CUDA streams (stream priorities)", "streams")):
            d = sharing.get("detail", {}).get(key)
            if d:
                L.append("| %s | %.1f | %.1f | %.3f | %.1f%% | %s / %s |" % (
                    label, d["urgent_solo_p99_us"], d["urgent_shared_p99_us"], d["urgent_p99_ratio"],
                    100 * d["background_fraction"], fmt(d.get("urgent_after_bg_p50_us")),
                    fmt(d.get("urgent_after_bg_p99_us"))))
        L.append("\nTarget: urgent p99 within %.2fx of solo while background keeps >= %.0f%%.\n" % (
            TARGET_URGENT_P99_RATIO, 100 * TARGET_BG_FRACTION))
    if bw:
        L.append("### Bandwidth\n")
        L.append("Copy %s TB/s (same bytes), %s TB/s (2 GiB copy); fused chain through gpuos %s TB/s: "
                 "ratio %s (target %.2f); the chain's generated code as a plain grid (one block per "
                 "tile, no resident kernel) %s TB/s: ratio %s. Bytes read + written.\n" % (
                     fmt(bw["copy_tb_s"], "%.2f"), fmt(bw["copy_2gib_tb_s"], "%.2f"),
                     fmt(bw["gpuos_tb_s"], "%.2f"), fmt(bw["ratio"], "%.2f"), TARGET_BANDWIDTH,
                     fmt(bw.get("plain_grid_tb_s"), "%.2f"), fmt(bw.get("plain_grid_ratio"), "%.2f")))
    return "\n".join(L) + "\n"


def plots(ctx, rows, sharing, device):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        ctx.note("no plots: matplotlib unavailable (%s)" % e)
        return []
    made = []
    modes = ["gpuos", "eager", "graph", "compile", "compile_ro"]
    colors = ["#d62728", "#7f7f7f", "#1f77b4", "#2ca02c", "#9467bd"]
    for key, title, fname in (("_us", "pipelined time per call (median)", "h200_pipelined.png"),
                              ("_sync_p50", "synchronous latency p50 (bars) and p99 (ticks)", "h200_sync.png")):
        fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(rows)), 4.8))
        width = 0.8 / len(modes)
        for i, (m, c) in enumerate(zip(modes, colors)):
            xs = [j + (i - len(modes) / 2 + 0.5) * width for j in range(len(rows))]
            ys = [r.get(m + key) or 0 for r in rows]
            ax.bar(xs, ys, width, label=MODE_LABEL[m], color=c)
            if key == "_sync_p50":
                ax.scatter(xs, [r.get(m + "_sync_p99") or float("nan") for r in rows], marker="_", color="k", s=40)
        ax.set_yscale("log")
        ax.set_ylabel("us (log)")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([r["name"] for r in rows], rotation=30, ha="right")
        ax.set_title("gpuos vs PyTorch on %s: %s" % (device, title))
        ax.legend(fontsize=8, ncol=3)
        fig.tight_layout()
        fig.savefig(os.path.join(ctx.out, fname), dpi=110)
        plt.close(fig)
        made.append(fname)
    d = (sharing or {}).get("detail", {})
    if d:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.8))
        labels = [k for k in ("gpuos", "streams") if k in d]
        xs = range(len(labels))
        a1.bar([x - 0.2 for x in xs], [d[k]["urgent_solo_p99_us"] for k in labels], 0.4, label="solo")
        a1.bar([x + 0.2 for x in xs], [d[k]["urgent_shared_p99_us"] for k in labels], 0.4, label="shared")
        a1.set_xticks(list(xs))
        a1.set_xticklabels(labels)
        a1.set_ylabel("urgent p99 latency (us)")
        a1.legend()
        a2.bar(list(xs), [100 * d[k]["background_fraction"] for k in labels], 0.5)
        a2.axhline(100 * TARGET_BG_FRACTION, color="k", ls="--", lw=1)
        a2.set_xticks(list(xs))
        a2.set_xticklabels(labels)
        a2.set_ylabel("background throughput kept (%)")
        fig.suptitle("GPU sharing: urgent stream + background bulk")
        fig.tight_layout()
        fig.savefig(os.path.join(ctx.out, "h200_sharing.png"), dpi=110)
        plt.close(fig)
        made.append("h200_sharing.png")
    return made


def summary(rows, sharing, bw, ctx):
    W = "%-16s %9s %9s %9s %9s %9s %7s %7s | %9s %9s %9s %7s %7s %8s"
    print()
    print("=" * 148)
    print(W % ("workload", "gpuos", "eager", "graph", "compile", "comp-RO", "xeager", "xbest",
               "gpuos p50", "eager p50", "best p50", "xeager", "xbest", "rel err"))
    print(W % ("(us/call)", "pipelined", "", "", "", "", "", "", "sync", "sync", "sync", "", "", ""))
    for r in rows:
        best = min([r[m + "_sync_p50"] for m in TORCH_MODES if r.get(m + "_sync_p50") is not None] or [None],
                   key=lambda x: x if x is not None else float("inf"))
        print(W % (r["name"], fmt(r["gpuos_us"]), fmt(r["eager_us"]), fmt(r["graph_us"]), fmt(r["compile_us"]),
                   fmt(r["compile_ro_us"]), fmt(r["speedup_vs_eager"], "%.2f"), fmt(r["speedup_vs_best"], "%.2f"),
                   fmt(r["gpuos_sync_p50"]), fmt(r["eager_sync_p50"]), fmt(best),
                   fmt(r["sync_speedup_vs_eager"], "%.2f"), fmt(r["sync_speedup_vs_best"], "%.2f"),
                   fmt(r["max_rel_err"], "%.1e") + ("" if r["correct"] in (True, None) else "!")))
    if sharing:
        s = sharing
        print("sharing: gpuos urgent p99 %s -> %s us (ratio %s, target <= %.2f), background kept %s (target >= %.0f%%);"
              " streams: p99 ratio %s, background kept %s" % (
                  fmt(s.get("urgent_solo_p99_us")), fmt(s.get("urgent_shared_p99_us")),
                  fmt(s.get("urgent_p99_ratio"), "%.3f"), TARGET_URGENT_P99_RATIO,
                  fmt(s["background_fraction"] * 100 if s.get("background_fraction") is not None else None, "%.1f%%"),
                  100 * TARGET_BG_FRACTION, fmt(s.get("stream_priority_urgent_p99_ratio"), "%.3f"),
                  fmt(s["stream_priority_background_fraction"] * 100
                      if s.get("stream_priority_background_fraction") is not None else None, "%.1f%%")))
        if s.get("exclusive_urgent_p99_ratio") is not None:
            print("sharing, urgentExclusive: urgent p99 ratio %s, background kept %s" % (
                fmt(s["exclusive_urgent_p99_ratio"], "%.3f"),
                fmt(s["exclusive_background_fraction"] * 100
                    if s.get("exclusive_background_fraction") is not None else None, "%.1f%%")))
    if bw:
        print("bandwidth: copy %s TB/s, fused chain %s TB/s, ratio %s (target >= %.2f); "
              "generated code as a plain grid %s TB/s, ratio %s" % (
                  fmt(bw["copy_tb_s"], "%.2f"), fmt(bw["gpuos_tb_s"], "%.2f"), fmt(bw["ratio"], "%.2f"),
                  TARGET_BANDWIDTH, fmt(bw.get("plain_grid_tb_s"), "%.2f"),
                  fmt(bw.get("plain_grid_ratio"), "%.2f")))
    met = [r["name"] for r in rows if r.get("targets_met")]
    print("speed targets (>= %.0fx eager, >= %.0fx best, both figures) met by %d of %d workloads%s" % (
        TARGET_VS_EAGER, TARGET_VS_BEST, len(met), len(rows), (": " + ", ".join(met)) if met else ""))
    print("phases (s): " + ", ".join("%s %.0f" % kv for kv in ctx.phase.items()) +
          "; total %.0f s" % ctx.elapsed())
    checked = [r for r in rows if r.get("correct") is not None]
    if ctx.failures:
        print("FAILED (%d):" % len(ctx.failures))
        for f in ctx.failures:
            print("  - " + f.split("\n")[0][:300])
    elif checked:
        print("gpuos results of %d workloads correct against the float64 reference" % len(checked))
    else:
        print("no gpuos results (nothing checked)")


# ---------------------------------------------------------------- main


def cmd_run(args):
    ctx = Ctx(args)
    os.makedirs(ctx.work, exist_ok=True)
    os.makedirs(ctx.out, exist_ok=True)
    configure_dynamo()
    torch.set_grad_enabled(False)
    if ctx.device == "cuda" and not torch.cuda.is_available():
        print("bench: no CUDA device visible to PyTorch (use --cpu for the CPU self-test)", file=sys.stderr)
        return 2
    names = [w.name for w in WORKLOADS]
    if args.only:
        names = [n for n in args.only.split(",") if n]
        for n in names:
            if n not in BY_NAME:
                print("bench: unknown workload %s (have %s)" % (n, ", ".join(BY_NAME)), file=sys.stderr)
                return 2
        if not args.no_sharing:
            names += [n for n in ("urgent_step", "background_bulk") if n not in names]
    if args.no_sharing:
        names = [n for n in names if BY_NAME[n].table]
    table_names = [n for n in names if BY_NAME[n].table]
    dev_name = torch.cuda.get_device_name(0) if ctx.device == "cuda" else "cpu"
    log("gpuos benchmark suite on %s: %s" % (dev_name, ", ".join(names)))

    use_gpuos = not args.no_gpuos and not args.cpu
    build = start_build(ctx) if use_gpuos else None
    warmers = start_warmers(ctx, table_names) if not args.no_compile else []

    # Inputs, files and references.
    t = time.time()
    data_info, inputs_of, refs_of = {}, {}, {}
    for n in names:
        w = BY_NAME[n]
        sig = common.signature(w)
        sets = num_sets(sig) if not args.sets else args.sets
        inputs = [common.make_inputs(w, sig, k, ctx.device) for k in range(sets)]
        refs = [common.reference(w, inputs[k]) for k in range(min(CHECK_SETS, sets))]
        data, spec = write_sets(ctx, w, sig, inputs) if (use_gpuos or args.fake_gpuos) else (None, None)
        data_info[n] = (data, spec, sets, refs, sig)
        inputs_of[n], refs_of[n] = inputs, refs
        log("%-16s %2d sets of %8.2f MB in + %8.2f MB out" % (n, sets, sig.input_bytes / 2**20,
                                                               sig.output_bytes / 2**20))
    if ctx.device == "cuda":
        torch.cuda.synchronize()
    ctx.phase["inputs"] = time.time() - t

    t = time.time()
    have_driver = wait_build(ctx, build) if use_gpuos else False
    wait_warmers(ctx, warmers, T0 + args.warm_deadline_s)
    ctx.phase["build+warm"] = time.time() - t
    if use_gpuos and have_driver:
        log("driver ready: %s" % ctx.driver)

    rows, raw = [], {}
    bw_workload = None
    t = time.time()
    for n in table_names:
        w = BY_NAME[n]
        data, spec, sets, refs, sig = data_info[n]
        inputs = inputs_of[n]
        log("== %s (%s)" % (n, w.desc))
        gres, gerr, gok = None, None, None
        if use_gpuos and have_driver:
            gres, gerr, gok = run_gpuos(ctx, w, sig, data, spec, sets, refs)
        elif args.fake_gpuos:
            gres, gerr, gok = fake_gpuos(ctx, w, sig, inputs, refs)
        if gres:
            log("   gpuos: %.1f us/call pipelined, sync p50 %.1f p99 %.1f, rel err %.1e%s" % (
                gres["pipelined_us"]["p50"], gres["sync_us"]["p50"], gres["sync_us"]["p99"], gerr,
                "" if gok else "  WRONG"))
        tres = {}

        def timed(mode):
            """run_torch_mode; a failure is noted, not raised (None then)."""
            try:
                r, why = run_torch_mode(mode, w, sig, inputs, refs, args.budget_s, ctx.device)
            except Exception as e:
                r, why = None, "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:300])
                traceback.print_exc(limit=3)
            if r is None:
                ctx.note("%s: %s unavailable: %s" % (n, mode, why))
            return r

        for m in TORCH_MODES:
            if m in ("compile", "compile_ro"):
                if args.no_compile or (ctx.device != "cuda" and not args.cpu_compile):
                    continue
                if ctx.elapsed() > args.deadline_s - args.reserve_s:
                    ctx.note("%s: %s skipped: past the run's time budget (%.0f s)" % (n, m, ctx.elapsed()))
                    continue
            if m == "graph" and args.no_graph:
                continue
            r = timed(m)
            if r is None:
                continue
            tres[m] = r
            log("   %-10s %9.1f us/call pipelined, sync p50 %8.1f p99 %8.1f%s" % (
                m, r["pipelined_us"]["p50"], r["sync_us"]["p50"], r["sync_us"]["p99"],
                ("  (first call %.1f s)" % r["first_call_s"]) if "first_call_s" in r else ""))
        for pm in (PYTHON_MODES if args.python_path else []):
            r = timed(pm)
            if r is not None:
                tres[pm] = r
                if not r.get("correct"):
                    ctx.fail("%s: %s results wrong (rel err %s)" % (n, pm, r.get("rel_err")))
                log("   %-10s %9.1f us/call pipelined, sync p50 %8.1f p99 %8.1f, rel err %s" % (
                    {"gpuos_python": "gpuos_py", "gpuos_jit": "gpuos_jit"}[pm], r["pipelined_us"]["p50"],
                    r["sync_us"]["p50"], r["sync_us"]["p99"], r.get("rel_err")))
        row = make_row(w, gres, gerr, gok, tres)
        rows.append(row)
        raw[n] = {"gpuos": gres, **tres, "sets": sets}
        if w.bandwidth:
            bw_workload = (w, sig, inputs, gres)
        if ctx.device == "cuda":
            torch.cuda.empty_cache()
    ctx.phase["workloads"] = time.time() - t

    sharing = None
    t = time.time()
    if use_gpuos and have_driver and not args.no_sharing:
        res = sharing_phase(ctx, data_info)
        if res:
            sharing = {"detail": {}}
            for key, mode in (("gpuos", "share-gpuos"), ("gpuos_exclusive", "share-gpuos-exclusive"),
                              ("streams", "share-streams")):
                r = res.get(mode)
                if not r:
                    continue
                solo, shared = r["urgent_solo_us"]["p99"], r["urgent_shared_us"]["p99"]
                frac = (r["background_shared_per_s"] / r["background_solo_per_s"]
                        if r["background_solo_per_s"] else None)
                sharing["detail"][key] = {"urgent_solo_p99_us": solo, "urgent_shared_p99_us": shared,
                                          "urgent_p99_ratio": shared / solo if solo else None,
                                          "urgent_solo_p50_us": r["urgent_solo_us"]["p50"],
                                          "urgent_shared_p50_us": r["urgent_shared_us"]["p50"],
                                          "background_solo_per_s": r["background_solo_per_s"],
                                          "background_shared_per_s": r["background_shared_per_s"],
                                          "background_fraction": frac, "period_us": r["period_us"], "raw": r}
                after = r.get("urgent_after_bg_us")
                if after:
                    sharing["detail"][key].update({"urgent_after_bg_p50_us": after["p50"],
                                                   "urgent_after_bg_p99_us": after["p99"]})
            g, s = sharing["detail"].get("gpuos"), sharing["detail"].get("streams")
            x = sharing["detail"].get("gpuos_exclusive")
            sharing.update({
                "urgent_solo_p99_us": g and g["urgent_solo_p99_us"],
                "urgent_shared_p99_us": g and g["urgent_shared_p99_us"],
                "urgent_p99_ratio": g and g["urgent_p99_ratio"],
                "background_fraction": g and g["background_fraction"],
                "stream_priority_urgent_p99_ratio": s and s["urgent_p99_ratio"],
                "stream_priority_background_fraction": s and s["background_fraction"],
                "exclusive_urgent_p99_ratio": x and x["urgent_p99_ratio"],
                "exclusive_background_fraction": x and x["background_fraction"],
                "targets": {"urgent_p99_ratio_max": TARGET_URGENT_P99_RATIO,
                            "background_fraction_min": TARGET_BG_FRACTION},
            })
            for met, d in (("met", g), ("exclusive_met", x)):
                if d and d["urgent_p99_ratio"] is not None and d["background_fraction"] is not None:
                    sharing[met] = (d["urgent_p99_ratio"] <= TARGET_URGENT_P99_RATIO
                                    and d["background_fraction"] >= TARGET_BG_FRACTION)
    ctx.phase["sharing"] = time.time() - t

    bw = None
    t = time.time()
    if bw_workload:
        w, sig, inputs, gres = bw_workload
        try:
            bw = bandwidth_phase(ctx, w, sig, inputs, gres, args.budget_s)
        except Exception as e:
            ctx.fail("bandwidth phase: %s" % e)
    ctx.phase["bandwidth"] = time.time() - t

    # Report.
    vers = versions(ctx.images) if ctx.device == "cuda" else {"python": platform.python_version(),
                                                    "torch": torch.__version__, "cuda": None, "triton": None}
    meta = {"device": dev_name, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": args.command, "versions": vers}
    result = {
        "suite": "bench/suite (docs/benchmarks.md)",
        "device": {"name": dev_name, "sms": (torch.cuda.get_device_properties(0).multi_processor_count
                                             if ctx.device == "cuda" else None),
                   "driver": vers.get("driver"), "nvidia_smi": vers.get("nvidia_smi")},
        "versions": vers, "date": meta["date"], "command": args.command,
        "method": {"pipelined": "median over batches of N back-to-back calls (host clock from an idle device "
                                "to the last completion, / N), rotated input sets",
                   "sync": "one call + host wait for its result; p50/p99 over many calls, rotated input sets",
                   "check": "gpuos outputs (poisoned first) vs float64 PyTorch reference, ||out-ref||/||ref||",
                   "budget_s_per_mode": args.budget_s},
        "targets": {"vs_eager": TARGET_VS_EAGER, "vs_best": TARGET_VS_BEST,
                    "urgent_p99_ratio": TARGET_URGENT_P99_RATIO, "background_fraction": TARGET_BG_FRACTION,
                    "bandwidth_ratio": TARGET_BANDWIDTH},
        "workloads": rows,
        "sharing": sharing,
        "bandwidth": bw,
        "failures": ctx.failures,
        "notes": ctx.notes,
        "phase_seconds": ctx.phase,
        "raw": raw,
    }
    with open(os.path.join(ctx.out, "h200.json"), "w") as f:
        json.dump(sanitize(result), f, indent=1, default=lambda o: None, allow_nan=False)
    with open(os.path.join(ctx.out, "results.md"), "w") as f:
        f.write(markdown(rows, sharing, bw, meta))
    made = plots(ctx, rows, sharing, dev_name)
    log("wrote %s/h200.json, results.md%s" % (ctx.out, "".join(", " + m for m in made)))
    summary(rows, sharing, bw, ctx)
    return 1 if ctx.failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", default=os.environ.get("OUT") or "/tmp/gpuos-bench/out")
    r.add_argument("--work", default=os.environ.get("BENCH_WORK", "/tmp/gpuos-bench"))
    r.add_argument("--images", default=os.path.join(ROOT, ".bench", "images"))
    r.add_argument("--driver", default=os.environ.get("BENCH_DRIVER", "/tmp/gpuos-bench/build/suite-driver"))
    r.add_argument("--driver-prebuilt", action="store_true", help="do not build the driver; use --driver")
    r.add_argument("--build-driver", action="store_true", help="with --cpu: build the driver anyway")
    r.add_argument("--only", default="", help="comma-separated workloads")
    r.add_argument("--sets", type=int, default=0, help="rotated input sets (default: by size)")
    r.add_argument("--budget-s", type=float, default=1.0, help="seconds per mode and workload (both figures)")
    r.add_argument("--python-path", action="store_true",
                   help="also time the Python front-end, torch.compile and gpuos.jit (needs the gpuos "
                        "package and compiler tools)")
    r.add_argument("--deadline-s", type=float, default=520.0, help="skip compile modes past this")
    r.add_argument("--reserve-s", type=float, default=60.0, help="time kept for sharing and the report")
    r.add_argument("--warm-deadline-s", type=float, default=300.0, help="stop compile warmers at this")
    r.add_argument("--warmers", type=int, default=4)
    r.add_argument("--driver-timeout", type=int, default=120, help="seconds per driver run")
    r.add_argument("--period-us", type=float, default=250.0, help="urgent arrival period")
    r.add_argument("--share-s", type=float, default=1.5, help="seconds per sharing phase")
    r.add_argument("--no-compile", action="store_true")
    r.add_argument("--no-graph", action="store_true")
    r.add_argument("--no-gpuos", action="store_true")
    r.add_argument("--no-sharing", action="store_true")
    r.add_argument("--driver-extra", default="",
                   help="more suite-driver options for every gpuos run (bench and share-gpuos), e.g. '--gang 1'")
    r.add_argument("--no-gang", action="store_true",
                   help="gpuos with RuntimeOptions::gangs off (urgent graphs through the queues)")
    r.add_argument("--cpu", action="store_true", help="CPU self-test: PyTorch on the CPU, no gpuos")
    r.add_argument("--cpu-compile", action="store_true", help="with --cpu: time torch.compile too")
    r.add_argument("--fake-gpuos", action="store_true", help="with --cpu: eager outputs stand in for gpuos")
    r.add_argument("--command", default=os.environ.get("BENCH_COMMAND", "bash bench/suite/run.sh run"))
    wm = sub.add_parser("warm")
    wm.add_argument("names", nargs="+")
    args = ap.parse_args()
    if args.cmd == "warm":
        return cmd_warm(args.names)
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
