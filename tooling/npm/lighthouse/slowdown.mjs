// How much Lighthouse's simulation should slow this host's CPU down so that a page is judged
// as on the phone the mobile preset stands for, whatever machine runs the audit.
//
// The preset's 4x is relative: it turns a host whose BenchmarkIndex is about 1,500 (a fast
// desktop) into a mid-tier phone, and on a slower or busier host it emulates a slower phone
// than that. Lighthouse's throttling guide (docs/throttling.md, "Calibrating the CPU
// slowdown") asks for the multiplier to be calibrated to the host and points at its
// maintainers' calculator (github.com/patrickhulce/lighthouse-cpu-throttling-calculator),
// whose piecewise-linear curve is this one: 1x at an index of 150, 2x at 800, 3x at 1,300,
// 4x at 1,533, and 1x more for every 233 above that.

const ANCHORS = [
  [150, 1],
  [800, 2],
  [1300, 3],
];
const ABOVE_1300_PER_STEP = 233; // index points per 1x beyond 3x

/** The calculator's multiplier for a BenchmarkIndex (never below 1). */
export function slowdownFor(benchmarkIndex) {
  if (!Number.isFinite(benchmarkIndex) || benchmarkIndex <= ANCHORS[0][0]) return 1;
  const [lastIndex, lastMultiplier] = ANCHORS[ANCHORS.length - 1];
  if (benchmarkIndex >= lastIndex) {
    return lastMultiplier + (benchmarkIndex - lastIndex) / ABOVE_1300_PER_STEP;
  }
  for (let i = 1; i < ANCHORS.length; i += 1) {
    const [index, multiplier] = ANCHORS[i];
    if (benchmarkIndex < index) {
      const [lowIndex, lowMultiplier] = ANCHORS[i - 1];
      return lowMultiplier + ((benchmarkIndex - lowIndex) / (index - lowIndex)) * (multiplier - lowMultiplier);
    }
  }
  return lastMultiplier;
}

/** The median of some numbers (NaN for none). */
export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
