// The Summary page: the target, totals and memory by category.
function summaryCards(r) {
  const s = r.summary;
  const m = s.memory;
  const cards = [
    ['Target', s.arch + ' (' + s.chip + ')'],
    ['IPUs', String(s.ipus) + (s.replicas > 1 ? ' \u00d7 ' + s.replicas + ' replicas' : '')],
    ['Tiles', fmtInt(s.tiles) + ' (' + fmtInt(s.tilesPerIpu) + ' per IPU)'],
    ['Tile memory', fmtBytes(s.bytesPerTile) + ' per tile'],
    ['Clock', (s.clockHz / 1e9).toFixed(3) + ' GHz'],
    ['Runs', fmtInt(s.runs)],
    ['Cycles', fmtInt(s.cycles)],
    ['Simulated time', fmtSeconds(s.seconds)],
    ['Memory used', fmtBytes(m.total) + ' of ' + fmtBytes(m.capacity) + ' (' + fmtPct(m.total, m.capacity) + ')'],
    ['Always-live', fmtBytes(m.alwaysLive)],
    ['Not-always-live (peak)', fmtBytes(m.notAlwaysLive)],
    ['Code (vertex + control)', fmtBytes(m.vertexCode + m.controlCode)],
    ['Vertex state', fmtBytes(m.vertexState)],
    ['Exchange buffers', fmtBytes(m.exchange)],
    ['Tiles used', fmtInt(s.tilesUsed)],
    ['Fullest tile', 'tile ' + s.fullestTile + ': ' + fmtBytes(s.fullestTileBytes)],
    ['Tiles out of memory', fmtInt(s.tilesOverLimit), s.tilesOverLimit > 0],
    ['Engine load', fmtBytes(s.loadBytes) + ', ' + fmtSeconds(s.loadSeconds)],
    ['Program steps', fmtInt(s.steps)],
    ['FLOPs', fmtInt(s.flops) + (s.seconds ? ' (' + (s.flops / s.seconds / 1e9).toFixed(2) + ' GFLOP/s)' : '')],
    ['Compute sets', fmtInt(s.computeSets)],
  ];
  return el('div', { class: 'cards' }, cards.map(function (c) {
    return el('div', { class: 'card' }, [el('div', { class: 'label', text: c[0] }),
      el('div', { class: 'value' + (c[2] ? ' bad' : ''), text: c[1] })]);
  }));
}

function costBreakdown(r) {
  const s = r.summary;
  const rows = [['Compute', s.cost.compute], ['Exchange', s.cost.exchange], ['Sync', s.cost.sync],
    ['Inter-IPU', s.cost.interIpu], ['Host I/O', s.cost.host], ['Control', s.cost.control],
    ['Run overhead', s.overheadCycles]];
  // Only runs spanning processes have it.
  if (s.cost.network > 0) rows.splice(6, 0, ['Network', s.cost.network]);
  const t = el('table', null, [el('tr', null, [el('th', { class: 'name', text: 'Cycles' }), el('th', { text: 'cycles' }), el('th', { text: 'share' })])]);
  for (const row of rows) {
    t.appendChild(el('tr', null, [el('td', { class: 'name', text: row[0] }), el('td', { text: fmtInt(row[1]) }),
      el('td', { text: fmtPct(row[1], s.cycles) })]));
  }
  return t;
}

addPage('summary', 'Summary', function (section) {
  REPORTS.forEach(function (r, i) {
    section.appendChild(el('h2', { text: (REPORTS.length > 1 ? (i === 0 ? 'Base: ' : 'Other: ') : 'Report: ') + r.name, title: r.source }));
    section.appendChild(summaryCards(r));
    section.appendChild(el('h3', { text: 'Where the cycles go' }));
    section.appendChild(costBreakdown(r));
    if (r.summary.droppedTraceEvents > 0) {
      section.appendChild(el('p', { class: 'note', text: r.summary.droppedTraceEvents + ' trace events were dropped (debug.maxTraceEvents).' }));
    }
  });
  viewer.drawn.summary = { reports: REPORTS.length };
});
