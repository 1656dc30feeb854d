// The Compare page: two reports side by side, differences highlighted.
// ----- comparison -----
function deltaClass(a, b, lowerIsBetter) {
  if (a === b) return '';
  const rel = a ? Math.abs(b - a) / Math.abs(a) : 1;
  if (rel < 0.005) return '';
  return (b < a) === lowerIsBetter ? 'better' : 'worse';
}
function fmtDelta(a, b, fmt) {
  const d = b - a;
  const pct = a ? ' (' + (d >= 0 ? '+' : '') + (100 * d / a).toFixed(1) + '%)' : '';
  return (d > 0 ? '+' : d < 0 ? '\u2212' : '') + fmt(Math.abs(d)) + pct;
}

addPage('compare', 'Compare', function (section) {
  section.appendChild(el('h2', { text: 'Comparison' }));
  if (REPORTS.length < 2) {
    section.appendChild(el('p', { text: 'Give the viewer a second report to compare: profile_viewer base.json other.json -o out.html.' }));
    viewer.drawn.compare = { rows: 0, differences: 0 };
    return;
  }
  const A = REPORTS[0], B = REPORTS[1];
  section.appendChild(el('p', { class: 'note', text: 'Base: ' + A.name + '; other: ' + B.name + '. Green: lower in the other report; red: higher; yellow rows: an operation in one report only.' }));
  const sa = A.summary, sb = B.summary;
  const metrics = [
    ['IPUs', sa.ipus, sb.ipus, fmtInt, null], ['Tiles', sa.tiles, sb.tiles, fmtInt, null],
    ['Cycles', sa.cycles, sb.cycles, fmtInt, true], ['Simulated time', sa.seconds, sb.seconds, fmtSeconds, true],
    ['Compute cycles', sa.cost.compute, sb.cost.compute, fmtInt, true], ['Exchange cycles', sa.cost.exchange, sb.cost.exchange, fmtInt, true],
    ['Sync cycles', sa.cost.sync, sb.cost.sync, fmtInt, true], ['Inter-IPU cycles', sa.cost.interIpu, sb.cost.interIpu, fmtInt, true],
    ['Host I/O cycles', sa.cost.host, sb.cost.host, fmtInt, true],
  ].concat(sa.cost.network > 0 || sb.cost.network > 0
    ? [['Network cycles', sa.cost.network, sb.cost.network, fmtInt, true]] : []).concat([
    ['Memory used', sa.memory.total, sb.memory.total, fmtBytes, true], ['Always-live', sa.memory.alwaysLive, sb.memory.alwaysLive, fmtBytes, true],
    ['Not-always-live', sa.memory.notAlwaysLive, sb.memory.notAlwaysLive, fmtBytes, true],
    ['Code', sa.memory.vertexCode + sa.memory.controlCode, sb.memory.vertexCode + sb.memory.controlCode, fmtBytes, true],
    ['Vertex state', sa.memory.vertexState, sb.memory.vertexState, fmtBytes, true], ['Exchange buffers', sa.memory.exchange, sb.memory.exchange, fmtBytes, true],
    ['Fullest tile', sa.fullestTileBytes, sb.fullestTileBytes, fmtBytes, true], ['Tiles used', sa.tilesUsed, sb.tilesUsed, fmtInt, null],
    ['Tiles out of memory', sa.tilesOverLimit, sb.tilesOverLimit, fmtInt, true], ['Engine load', sa.loadBytes, sb.loadBytes, fmtBytes, true],
    ['FLOPs', sa.flops, sb.flops, fmtInt, null],
    ['Compute sets', sa.computeSets, sb.computeSets, fmtInt, null], ['Program steps', sa.steps, sb.steps, fmtInt, null],
  ]);
  let differences = 0;
  const summary = el('table', { id: 'compare-summary' }, [el('tr', null, ['Measure', 'Base', 'Other', 'Difference'].map(function (h, i) { return el('th', { class: i ? '' : 'name', text: h }); }))]);
  for (const m of metrics) {
    const cls = m[4] === null ? (m[1] !== m[2] ? 'worse' : '') : deltaClass(m[1], m[2], m[4]);
    if (m[1] !== m[2]) ++differences;
    summary.appendChild(el('tr', { class: cls }, [el('td', { class: 'name', text: m[0] }), el('td', { text: m[3](m[1]) }),
      el('td', { text: m[3](m[2]) }), el('td', { class: 'delta', text: m[1] === m[2] ? '=' : fmtDelta(m[1], m[2], m[3]) })]));
  }
  section.appendChild(summary);

  section.appendChild(el('h3', { text: 'Memory per tile, side by side' }));
  const side = el('div', { class: 'side' });
  const states = [{}, {}];
  [A, B].forEach(function (r, i) {
    const st = states[i];
    const chart = memoryChart(r, st);
    chart.querySelector('canvas').id = i === 0 ? 'compare-memory-base' : 'compare-memory-other';
    side.appendChild(el('div', null, [el('div', { class: 'note', text: i === 0 ? 'Base' : 'Other' }), chart]));
    side['draw' + i] = st.draw;
  });
  section.appendChild(side);
  // One scale for both, so that their bars compare.
  const commonMax = Math.max(states[0].maxTotal, states[1].maxTotal);
  states[0].commonMax = states[1].commonMax = commonMax;
  states[0].fit = states[1].fit = commonMax < 0.25 * Math.min(A.memory.limit, B.memory.limit);

  section.appendChild(el('h3', { text: 'Operations' }));
  const byName = new Map();
  for (const o of operationRows(A)) byName.set(o.name, { name: o.name, a: o.totalCycles, b: 0, ma: o.memoryBytes, mb: 0, fa: o.totalFlops, fb: 0, inA: true, inB: false });
  for (const o of operationRows(B)) {
    const row = byName.get(o.name) || { name: o.name, a: 0, b: 0, ma: 0, mb: 0, fa: 0, fb: 0, inA: false };
    row.b = o.totalCycles; row.mb = o.memoryBytes; row.fb = o.totalFlops; row.inB = true;
    byName.set(o.name, row);
  }
  const rows = Array.from(byName.values()).map(function (x) {
    x.delta = x.b - x.a;
    x.absDelta = Math.abs(x.delta);
    x.where = x.inA && x.inB ? 'both' : x.inA ? 'base only' : 'other only';
    x._class = x.inA && x.inB ? deltaClass(x.a, x.b, true) : 'only';
    return x;
  });
  const table = sortableTable([
    { key: 'name', label: 'Operation', name: true },
    { key: 'where', label: 'In' },
    { key: 'a', label: 'Base cycles', fmt: fmtInt },
    { key: 'b', label: 'Other cycles', fmt: fmtInt },
    { key: 'delta', label: 'Difference', fmt: function (v, r) { return r.inA && r.inB ? fmtDelta(r.a, r.b, fmtInt) : '\u2014'; }, cls: function () { return 'delta'; } },
    { key: 'fa', label: 'Base FLOPs', fmt: fmtInt },
    { key: 'fb', label: 'Other FLOPs', fmt: fmtInt },
    { key: 'ma', label: 'Base memory', fmt: fmtBytes },
    { key: 'mb', label: 'Other memory', fmt: fmtBytes },
  ], rows, { sortKey: 'absDelta', desc: true });
  table.id = 'compare-operations';
  section.appendChild(table);
  viewer.drawn.compare = { rows: rows.length, differences: differences };
  return function () { side.draw0(); side.draw1(); };
});
