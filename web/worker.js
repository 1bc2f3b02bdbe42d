// worker.js - the playground's Web Worker: holds rockpool's core (core.js, rockpool.wasm)
// so that parsing and rendering never stall the page. {type:'ready'} out once the core is
// loaded. Messages in, each answered once:
//   {type:'open', text, name, width, height, imgW, imgH} -> {type:'open', ok, error, info}
//   {type:'bg', rgb, drawn} (output-sized RGB24; null: the built-in texture; drawn: where
//       the picture is, [x, y, w, h], the rest bars of fit contain) -> {type:'bg'}
//   {type:'frame', k} -> {type:'frame', k, rgba (ArrayBuffer)} (rgba null past the end),
//       or, when simulating the water to frame k takes longer than SLICE_MS (a seek into a
//       long scene), {type:'frame', k, rgba: null, again: true, progress (0 to 1)}: ask
//       again (for k or a later frame); the water goes on from where it stopped, so the
//       worker answers an edit or a pause between two slices instead of after all of them
//   {type:'framemd5', frames} -> {type:'framemd5', lines} (FFmpeg framemd5's frame lines)
//   {type:'bench', frames} -> {type:'bench', fps, frames}
'use strict';
importScripts('core.js', 'md5.js');

let core = null;
// A frame's simulation is done in slices of at most STEP_CELLS grid cells, as many as fit
// in SLICE_MS (at least one) before the worker answers.
const STEP_CELLS = 1 << 22, SLICE_MS = 40;
const ready = fetch('rockpool.wasm')
  .then((r) => {
    if (!r.ok) throw new Error('rockpool.wasm: HTTP ' + r.status);
    return r.arrayBuffer();
  })
  .then((b) => loadCore(b))
  .then((c) => {
    core = c;
    postMessage({ type: 'ready' }); // the page's time limits count from here
  });

function pad(v, n) {
  return String(v).padStart(n, ' ');
}

// FFmpeg's framemd5 line for frame k of stream 0 (time base 1/fps: pts k, duration 1)
function framemd5Line(k, bytes) {
  return '0, ' + pad(k, 10) + ', ' + pad(k, 10) + ', ' + pad(1, 8) + ', ' + pad(bytes.length, 8) +
         ', ' + md5Hex(bytes);
}

function handle(m) {
  switch (m.type) {
  case 'open':
    return Object.assign({ type: 'open' },
                         core.open(m.text, m.name, m.width, m.height, m.imgW, m.imgH));
  case 'bg':
    if (m.rgb) core.setBackground(new Uint8Array(m.rgb), m.drawn);
    else core.defaultBackground();
    return { type: 'bg' };
  case 'frame': {
    const end = performance.now() + SLICE_MS;
    let done;
    while (!(done = core.renderSome(m.k, STEP_CELLS)) && core.again() && performance.now() < end);
    if (!done && core.again())
      return { type: 'frame', k: m.k, rgba: null, again: true, progress: core.progress(m.k) };
    if (!done) return { type: 'frame', k: m.k, rgba: null };
    const rgba = core.rgba().slice().buffer;
    return { type: 'frame', k: m.k, rgba, transfer: [rgba] };
  }
  case 'framemd5': {
    const n = Math.min(m.frames, core.info.frames), lines = [];
    for (let k = 0; k < n; k++)
      lines.push(framemd5Line(k, core.render(k)));
    return { type: 'framemd5', lines };
  }
  case 'bench': {
    // frames 1 to n-1 as playing renders them: the frame, then its RGBA for the canvas
    const n = Math.min(m.frames, core.info.frames);
    core.render(0);
    const t0 = performance.now();
    for (let k = 1; k < n; k++) {
      core.render(k);
      core.rgba();
    }
    const s = (performance.now() - t0) / 1000;
    return { type: 'bench', frames: n - 1, fps: s > 0 ? (n - 1) / s : 0 };
  }
  }
  return { type: 'error', msg: 'unknown message ' + m.type };
}

onmessage = (e) => {
  ready.then(() => {
    const r = handle(e.data);
    const transfer = r.transfer || [];
    delete r.transfer;
    postMessage(r, transfer);
  }).catch((err) => postMessage({ type: 'error', msg: String(err && err.message || err) }));
};
