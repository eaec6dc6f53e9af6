// The live power charts' uPlot (loaded by the page as a classic script): one canvas as wide as its box, made anew
// when its options change, resized with the box, destroyed with the component. Used by the session chart
// (power-chart.js) and the energy chart (energy.js).
import { useEffect, useRef } from 'preact/hooks';
import { clockTime } from '../format.js';

const HEIGHT = 220;

/** The time axis and the kW axis both power charts show. */
const AXES = [
  { stroke: '#37474f', grid: { stroke: '#eceff1' }, values: (u, ticks) => ticks.map((s) => clockTime(s * 1000)) },
  { stroke: '#37474f', grid: { stroke: '#eceff1' }, values: (u, ticks) => ticks.map((v) => `${v} kW`), size: 64 },
];

/**
 * A power chart in `box` with `scales` and `series` (uPlot's), its columns from `data()`; made anew when `deps`
 * change. Answers the plot (a ref: null before the first draw or without uPlot) for setData.
 */
export function usePowerPlot(box, { scales, series }, data, deps) {
  const plot = useRef(null);
  useEffect(() => {
    const uPlot = window.uPlot;
    if (!uPlot || !box.current) return undefined;
    const element = box.current;
    const width = () => Math.max(200, element.clientWidth);
    plot.current = new uPlot({ width: width(), height: HEIGHT, legend: { show: false }, cursor: { show: false }, scales, axes: AXES, series }, data(), element);
    const resize = new ResizeObserver(() => plot.current && plot.current.setSize({ width: width(), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current.destroy();
      plot.current = null;
    };
  }, deps);
  return plot;
}
