/** The page's only styling: inline, so the page is one response with nothing to build or fetch. */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --bar: #8fb8f0; --rate: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f8fa; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 4px 0 10px; }
p.meta { color: var(--muted); margin: 0 0 16px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin-bottom: 16px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.all td { font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
.reason { display: block; color: var(--muted); font-size: 12px; max-width: 36em; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #eaeef2; }
.badge.fixed { background: #dafbe1; color: #116329; }
.badge.running { background: #ddf4ff; color: #0550ae; }
.badge.refused, .badge.failed, .badge.error, .badge.abandoned { background: #ffebe9; color: #a40e26; }
.badge.ci-passed { background: #dafbe1; color: #116329; }
.badge.ci-failed { background: #ffebe9; color: #a40e26; }
a { color: #0969da; }
svg.chart { width: 100%; max-width: 760px; height: auto; display: block; }
svg .bar { fill: var(--bar); }
svg .grid { stroke: var(--line); stroke-dasharray: 3 3; }
svg .base { stroke: var(--muted); }
svg polyline.rate, svg line.rate { fill: none; stroke: var(--rate); stroke-width: 2; }
svg circle.rate { fill: var(--rate); }
svg .axis, svg .legend { font-size: 11px; fill: var(--muted); }
`;
