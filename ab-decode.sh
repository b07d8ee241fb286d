set -e
bash bench/suite/run.sh build-driver > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
for round in 1 2; do
  for X in bench bench-A bench-B; do
    BENCH_DIR=$PWD/.$X OUT=$OUT/$X-$round bash bench/suite/run.sh run --only decode --no-compile --no-graph --no-sharing --driver-prebuilt > $OUT/$X-$round.log 2>&1 || { tail -20 $OUT/$X-$round.log; exit 1; }
    echo "$X round $round: $(grep -E '^\| decode' $OUT/$X-$round.log | head -2 | tr '\n' ' ')"
  done
done
