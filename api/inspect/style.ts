/** The inspector page's style sheet, served at /inspect/app.css (api/routes/inspect.ts). */
export const PAGE_CSS = `
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1c2529; background: #f4f6f7; }
* { box-sizing: border-box; }
body { margin: 0; }
[hidden] { display: none !important; }
header { display: flex; gap: 0.4em 1em; align-items: center; flex-wrap: wrap; padding: 0.6em 1em; background: #263238; color: #fff; }
header h1 { font-size: 1.1em; margin: 0; }
#status { overflow-wrap: anywhere; }
#status.bad { color: #ffab91; font-weight: bold; }
#who { margin-left: auto; opacity: 0.85; }
form#login { display: flex; gap: 1em; align-items: end; padding: 1em; flex-wrap: wrap; }
form#login label { display: flex; flex-direction: column; font-size: 0.9em; }
input, select, button { font: inherit; padding: 0.25em 0.5em; max-width: 100%; }
button { cursor: pointer; }
main { padding: 0.5em 1em 2em; }
#summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5em, 1fr)); gap: 0.5em; margin-bottom: 0.8em; }
#summary .cell { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.4em 0.7em; display: flex; flex-direction: column; min-width: 0; }
#summary .cell.wide { grid-column: span 2; }
#summary .label { font-size: 0.75em; color: #455a64; text-transform: uppercase; letter-spacing: 0.04em; }
#summary strong { font-size: 1.25em; overflow-wrap: anywhere; }
#summary .sub { font-size: 0.8em; color: #546e7a; overflow-wrap: anywhere; }
#sum-state-cell[data-tone="error"] { border-color: #c62828; background: #ffebee; }
#sum-state-cell[data-tone="active"] { border-color: #1565c0; background: #e3f2fd; }
#sum-state-cell[data-tone="paused"] { border-color: #f9a825; background: #fff8e1; }
#sum-messages { margin: 0; padding: 0; list-style: none; font-size: 0.85em; }
#sum-messages li { overflow-wrap: anywhere; }
#sum-messages .ERROR { color: #b71c1c; }
#sum-messages .WARNING { color: #8d6e00; }
#sim { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.4em 1em; margin-bottom: 0.8em; }
#sim summary { font-weight: bold; cursor: pointer; }
#sim-controls { display: flex; gap: 0.5em; flex-wrap: wrap; align-items: center; margin-top: 0.4em; }
#sim-controls .group { display: inline-flex; gap: 0.25em; align-items: center; flex-wrap: wrap; max-width: 100%; }
#sim-request { width: 28em; }
#sim-result { font-size: 0.85em; min-height: 1.3em; color: #455a64; overflow-wrap: anywhere; }
#sim-result.bad { color: #c62828; }
#layout { display: grid; grid-template-columns: minmax(0, 1fr) 22em; gap: 1em; }
@media (max-width: 1000px) { #layout { grid-template-columns: minmax(0, 1fr); } }
aside { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.5em; align-self: start; max-height: 90vh; overflow: auto; min-width: 0; }
.events-head { display: flex; gap: 0.5em; align-items: center; justify-content: space-between; flex-wrap: wrap; }
aside h2 { font-size: 1em; margin: 0.3em 0; }
.events-head label { font-size: 0.85em; }
#events { font-size: 0.8em; padding-left: 2.5em; margin: 0.3em 0 0; }
#events li { padding: 0.15em 0; border-bottom: 1px solid #eceff1; overflow-wrap: anywhere; }
#events .actor { color: #00695c; }
#events .type { font-weight: bold; }
#events .detail { color: #546e7a; }
section.actor { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.5em 1em; margin-bottom: 1em; min-width: 0; }
section.actor h2 { font-size: 1.05em; margin: 0.2em 0; }
section.actor h2 small { font-weight: normal; color: #455a64; }
.states { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.85em; margin: 0.2em 0; overflow-wrap: anywhere; }
.latest { font-size: 0.85em; margin: 0.2em 0; color: #bf360c; overflow-wrap: anywhere; }
.toolbar { display: flex; gap: 0.4em; flex-wrap: wrap; margin: 0.3em 0; }
.toolbar button { min-width: 2.4em; }
.chart { margin-top: 0.3em; border: 1px solid #eceff1; border-radius: 4px; background: #fcfdfd; }
.chart svg { display: block; max-width: 100%; height: auto; }
.chart.zoomable { height: min(60vh, 640px); overflow: hidden; touch-action: none; cursor: grab; user-select: none; -webkit-user-select: none; }
.chart.zoomable.first { height: min(76vh, 900px); }
.chart.zoomable:active { cursor: grabbing; }
.chart.zoomable svg { width: 100%; height: 100%; max-width: none; }
.chart:focus-visible { outline: 2px solid #1565c0; outline-offset: 2px; }
@media (max-width: 700px) {
  main { padding: 0.5em 0.5em 2em; } section.actor { padding: 0.5em; }
  .chart.zoomable, .chart.zoomable.first { height: 58vh; } #summary .cell.wide { grid-column: 1 / -1; }
}
details.context { font-size: 0.85em; margin-top: 0.4em; }
details.context summary { cursor: pointer; color: #455a64; }
details.context table { border-collapse: collapse; }
details.context td { padding: 0.1em 0.6em 0.1em 0; vertical-align: top; overflow-wrap: anywhere; }
details.context td:first-child { color: #455a64; }
.chart g.node.active > path, .chart g.node.active > polygon, .chart g.node.active > ellipse { fill: #ffe082; stroke: #e65100; stroke-width: 3px; }
.chart g.cluster.active > path, .chart g.cluster.active > polygon { fill: #fff8e1; stroke: #e65100; stroke-width: 2.5px; }
.chart g.edge.taken > path { stroke: #d84315; stroke-width: 3.5px; }
.chart g.edge.taken > polygon { fill: #d84315; stroke: #d84315; }
.chart g.edge.taken > text { fill: #bf360c; font-weight: bold; }
`;
