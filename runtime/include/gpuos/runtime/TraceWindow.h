//===- TraceWindow.h - the workers' tile trace, for diagnostics -*- C++ -*-===//
//
// RuntimeOptions::traceRecords with traceAllTiles records every tile a
// worker runs (HopTraceRecord: SM-cycle stamps of its steps and the
// device globaltimer at its end). The benchmarks read them as a window:
// the records that ended after a point in time, ordered, with the SM clock
// rate that turns the cycle stamps into time (gpuos-bench --trace-tiles,
// suite-driver profile and timeline).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_TRACEWINDOW_H
#define GPUOS_RUNTIME_TRACEWINDOW_H

#include "gpuos/runtime/Runtime.h"

#include <algorithm>
#include <vector>

namespace gpuos::runtime {

/// The workers' hop trace records that ended after `sinceNs` (device
/// globaltimer), by block and then time; the newest stamp; and the SM clock
/// in cycles per ns, from consecutive records of one block less than 100 us
/// apart anywhere in the trace (a relaunch in between restarts the SM
/// clock), 0 without any.
struct TraceWindow {
  std::vector<HopTraceRecord> records;
  uint64_t newest = 0;
  double ghz = 0;

  /// When record `r`'s tile started, in globaltimer ns (its end less its
  /// cycles at the window's clock rate).
  double tileStartNs(const HopTraceRecord &r) const {
    double cycles = (double)(r.nextTileEnd - r.tileStart);
    return (double)r.endNs - (ghz > 0 ? cycles / ghz : 0.0);
  }
  /// When finishing record `r`'s tile returned (its counters, successors,
  /// perhaps the run's completion), in globaltimer ns; 0 if not recorded.
  double tileFinishedNs(const HopTraceRecord &r) const {
    if (!r.nextFinished || ghz <= 0)
      return 0;
    return (double)r.endNs + (double)(r.nextFinished - r.nextTileEnd) / ghz;
  }
  /// When record `r`'s worker had decided on the tile (pickJob returned,
  /// or the kept successor or next range tile was chosen), in globaltimer ns.
  double tileDecidedNs(const HopTraceRecord &r) const {
    double cycles = (double)(r.nextTileEnd - r.decided);
    return (double)r.endNs - (ghz > 0 ? cycles / ghz : 0.0);
  }
};

inline Status readTraceWindow(Runtime &rt, uint64_t sinceNs, TraceWindow &w) {
  std::vector<HopTraceRecord> all;
  if (Status st = rt.readHopTrace(all); !st.ok())
    return st;
  auto byBlockThenEnd = [](const HopTraceRecord &a, const HopTraceRecord &b) {
    return a.block != b.block ? a.block < b.block : a.endNs < b.endNs;
  };
  // The clock rate from every record, not only the window's: in a window
  // where each block ran one tile there is no pair to measure it with.
  std::sort(all.begin(), all.end(), byBlockThenEnd);
  double cyc = 0, ns = 0;
  for (size_t k = 1; k < all.size(); ++k)
    if (all[k].block == all[k - 1].block && all[k].endNs - all[k - 1].endNs < 100000) {
      cyc += (double)(all[k].nextTileEnd - all[k - 1].nextTileEnd);
      ns += (double)(all[k].endNs - all[k - 1].endNs);
    }
  w.ghz = ns > 0 ? cyc / ns : 0;
  w.records.clear();
  w.newest = sinceNs;
  for (const HopTraceRecord &h : all)
    if (h.endNs > sinceNs) {
      w.records.push_back(h);
      w.newest = std::max(w.newest, h.endNs);
    }
  return Status::success();
}

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_TRACEWINDOW_H
