// app.js - the playground page: the scene text beside its water. The core runs in a Web
// Worker (worker.js); this side edits the text, plays the frames and draws them.
//
// Test modes (URL query): scene=PATH (fetched), size=WxH, bg=URL (a PNG at the output
// size), and out=framemd5 with frames=N (FFmpeg framemd5's frame lines of the first N
// frames into <pre id="framemd5">) or bench=N (`fps F` for N frames into <pre
// id="bench">); then document.title becomes `done` (`error` on failure, the message in
// the <pre>). In the editor, open_timeout=MS (1 to 10000) gives up on a scene sooner than
// 10 s, so a test can see the watchdog work.
'use strict';

const $ = (id) => document.getElementById(id);
const EXAMPLES = ['harbour', 'rain', 'walls', 'lagoon', 'wave-machine', 'fountain', 'sunset',
                  'elias', 'applet', 'silverlight', 'codeproject'];
// a scene the core takes longer to prepare is refused (the worker is ended and started again)
const OPEN_TIMEOUT_MS = (() => {
  const v = new URLSearchParams(location.search).get('open_timeout');
  return v && /^[0-9]{1,5}$/.test(v) && +v >= 1 && +v <= 10000 ? +v : 10000;
})();

// ---- the worker: calls answered in order --------------------------------------------

// A call's time limit counts from when the worker starts on it: once it has its core (it
// says `ready`; fetching and compiling rockpool.wasm over a slow network, or on a loaded
// machine, is not the scene's work) and has answered the calls before it (the worker
// answers in order: an edit made while another scene was being prepared waited behind it,
// and its limit ran meanwhile).
let worker = null, waiting = [], workerReady = false, workerStarts = 0;
function startWorker() {
  worker = new Worker('worker.js');
  workerStarts++; // (read by the tests: a scene given up starts the worker again)
  workerReady = false;
  worker.onmessage = (e) => {
    if (e.data.type === 'ready') {
      workerReady = true;
      if (waiting.length) arm(waiting[0]);
      return;
    }
    const w = waiting.shift();
    if (w) {
      clearTimeout(w.timer);
      if (waiting.length) arm(waiting[0]);
      if (e.data.type === 'error') w.reject(new Error(e.data.msg));
      else w.resolve(e.data);
    }
  };
  worker.onerror = (e) => {
    const w = waiting.shift();
    if (w) clearTimeout(w.timer);
    if (workerReady && waiting.length) arm(waiting[0]);
    if (w) w.reject(new Error(e.message || 'the worker failed'));
  };
}

// Start w's time limit (w first in line): past it the worker is ended and started again
// (the page stays responsive whatever the core is given).
function arm(w) {
  if (!w.timeoutMs || w.timer) return;
  w.timer = setTimeout(() => {
    worker.terminate();
    const all = waiting;
    waiting = [];
    for (const x of all) {
      clearTimeout(x.timer);
      x.reject(new Error(x === w ? 'timeout' : 'restarted'));
    }
    startWorker();
  }, w.timeoutMs);
}

// call(msg, transfer, timeoutMs): the worker's answer, within timeoutMs (none: no limit)
// of the worker starting on it
function call(msg, transfer, timeoutMs) {
  return new Promise((resolve, reject) => {
    const w = { resolve, reject, timer: 0, timeoutMs };
    waiting.push(w);
    if (workerReady && waiting.length === 1) arm(w);
    worker.postMessage(msg, transfer || []);
  });
}

// ---- pictures -------------------------------------------------------------------------

// Where a sw x sh picture goes in a dw x dh frame, as the command line's fit modes place it
// (src/input/fit.c, square pixels): fit 0 stretch (the whole picture over the whole frame),
// 1 cover (the centre part of the frame's aspect, cropped), 2 contain (the whole picture,
// centred, with bars). {crop, dst}: [x, y, w, h] each.
function fitRects(fit, sw, sh, dw, dh) {
  const crop = [0, 0, sw, sh], dst = [0, 0, dw, dh];
  const sa = sw * dh, da = sh * dw; // the aspects cross-multiplied (below 2^53)
  const round = (a, b) => Math.floor((2 * a + b) / (2 * b));
  const keep = (v, limit) => (v < 1 ? 1 : v > limit ? limit : v);
  if (fit === 1 && sa > da) {
    crop[2] = keep(round(sh * dw, dh), sw);
    crop[0] = Math.floor((sw - crop[2]) / 2);
  } else if (fit === 1 && sa < da) {
    crop[3] = keep(round(sw * dh, dw), sh);
    crop[1] = Math.floor((sh - crop[3]) / 2);
  } else if (fit === 2 && sa > da) {
    dst[3] = keep(round(dw * sh, sw), dh);
    dst[1] = Math.floor((dh - dst[3]) / 2);
  } else if (fit === 2 && sa < da) {
    dst[2] = keep(round(dh * sw, sh), dw);
    dst[0] = Math.floor((dw - dst[2]) / 2);
  }
  return { crop, dst };
}

// The RGB24 bytes of a picture or video frame fitted to w x h as the scene's fit says (the
// bars of contain black), and where it was drawn. A PNG at that size, or a part of one that
// cover crops or contain places at its own size, keeps its bytes (no colour management, no
// premultiplication, no scaling).
function rgbOf(source, w, h, fit) {
  const sw = source.videoWidth || source.width, sh = source.videoHeight || source.height;
  const { crop, dst } = fitRects(fit, sw, sh, w, h);
  const c = new OffscreenCanvas(w, h);
  const g = c.getContext('2d', { colorSpace: 'srgb', willReadFrequently: true });
  g.fillStyle = '#000';
  g.fillRect(0, 0, w, h);
  g.imageSmoothingQuality = 'high';
  g.drawImage(source, crop[0], crop[1], crop[2], crop[3], dst[0], dst[1], dst[2], dst[3]);
  const rgba = g.getImageData(0, 0, w, h).data, rgb = new Uint8Array(w * h * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    rgb[j] = rgba[i];
    rgb[j + 1] = rgba[i + 1];
    rgb[j + 2] = rgba[i + 2];
  }
  return { rgb, drawn: dst };
}

async function bitmapOf(blob) {
  return createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
}

// ---- test modes -----------------------------------------------------------------------

async function testMode(q) {
  const out = q.get('out') === 'framemd5' ? $('framemd5') : $('bench');
  try {
    const path = q.get('scene');
    const r = await fetch(path);
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    const text = await r.text();
    let w = 0, h = 0;
    if (q.get('size')) {
      const m = /^([0-9]+)x([0-9]+)$/.exec(q.get('size'));
      if (!m) throw new Error('size: not WxH: ' + q.get('size'));
      w = +m[1];
      h = +m[2];
    }
    let bmp = null;
    if (q.get('bg')) {
      const b = await fetch(q.get('bg'));
      if (!b.ok) throw new Error(q.get('bg') + ': HTTP ' + b.status);
      bmp = await bitmapOf(await b.blob());
    }
    const o = await call({ type: 'open', text, name: path, width: w, height: h,
                           imgW: bmp ? bmp.width : 0, imgH: bmp ? bmp.height : 0 });
    if (!o.ok) throw new Error(diagText(o.error));
    if (o.info.skyImage || (o.info.backgroundFile && !bmp))
      throw new Error(path + ': names a ' + (o.info.skyImage ? 'sky' : 'background') +
                      ' image, which the page does not read: not the command line\'s frames');
    if (bmp) {
      const { rgb, drawn } = rgbOf(bmp, o.info.width, o.info.height, o.info.fit);
      await call({ type: 'bg', rgb: rgb.buffer, drawn }, [rgb.buffer]);
    }
    if (q.get('out') === 'framemd5') {
      const m = await call({ type: 'framemd5', frames: +(q.get('frames') || o.info.frames) });
      out.textContent = m.lines.join('\n') + '\n';
    } else {
      const m = await call({ type: 'bench', frames: +q.get('bench') });
      out.textContent = 'fps ' + m.fps.toFixed(1) + '\n';
    }
    document.title = 'done';
  } catch (e) {
    out.textContent = 'error: ' + e.message + '\n';
    document.title = 'error';
  }
  out.hidden = false;
}

// ---- the editor -----------------------------------------------------------------------

// The command line's diagnostic: "rockpool: FILE:LINE:COL: error: MSG", the line, a caret.
function diagText(d) {
  const at = (d.file || '') + (d.line > 0 ? ':' + d.line : '') + (d.col > 0 ? ':' + d.col : '');
  let s = 'rockpool: ' + (at ? at + ': ' : '') + 'error: ' + d.msg;
  if (d.line > 0 && d.source) {
    const head = ' ' + String(d.line).padStart(5) + ' | ';
    s += '\n' + head + d.source + '\n' + ' '.repeat(head.length - 2) + '| ';
    // the column counts characters (code points), as the command line's: a character
    // outside the BMP is two UTF-16 units of the string, one column
    const chars = Array.from(d.source);
    for (let i = 1; i < d.col && i <= chars.length; i++)
      s += chars[i - 1] === '\t' ? '\t' : ' ';
    s += '^';
  }
  return s;
}

const st = {
  name: 'harbour.scene',
  info: null,          // the playing scene's (the last good one)
  good: '',            // its text
  frame: 0,            // the frame shown
  playing: true,
  seeking: false,      // a frame chosen on the slider not yet on screen: the clock waits
  pending: false,      // a frame asked of the worker
  t0: 0, f0: 0,        // playback: the clock and frame it counts from
  bg: null,            // {name, bitmap} or {name, video}
  opening: 0,          // the newest open's number
  shownAt: -1,         // the frame on screen
  gen: 0,              // bumped when the scene or background changes: the frame is drawn again
  drawnGen: -1,        // the gen of the frame on screen
  note: '',            // what the page leaves out of the scene (its sky or background file)
  bgRefused: '',       // why the last picture chosen was refused
  hello: '',           // the scene given back from the browser's storage, till the next edit
};

// The output size asked of the core: [0, 0] the scene's.
function sizeChoice() {
  const v = $('size').value;
  if (/^[0-9]+x[0-9]+$/.test(v)) return v.split('x').map(Number);
  if (v === 'scene') return [0, 0];
  // half or a quarter of the scene's size, which the core works out (a width of -2 or -4):
  // its size line's, else its preset's or the picture's
  return [v === 'half' ? -2 : -4, 0];
}

// The scene's `size WxH` line, or null.
function sceneSize(text) {
  const m = /^[ \t]*size[ \t]+([0-9]+)x([0-9]+)/m.exec(text);
  return m ? [+m[1], +m[2]] : null;
}

function bgSize() {
  if (!st.bg) return [0, 0];
  if (st.bg.bitmap) return [st.bg.bitmap.width, st.bg.bitmap.height];
  return [st.bg.video.videoWidth, st.bg.video.videoHeight];
}

async function sendBackground() {
  if (!st.info) return;
  if (!st.bg) {
    await call({ type: 'bg', rgb: null });
    return;
  }
  const { rgb, drawn } = rgbOf(st.bg.bitmap || st.bg.video, st.info.width, st.info.height, st.info.fit);
  await call({ type: 'bg', rgb: rgb.buffer, drawn }, [rgb.buffer]);
}

// Parse and resolve the text; on success it plays, else the error shows and the last good
// scene plays on.
async function reparse() {
  const text = $('scene').value, n = ++st.opening;
  keep(text);
  const [w, h] = sizeChoice(), [iw, ih] = bgSize();
  let o;
  try {
    o = await call({ type: 'open', text, name: st.name, width: w, height: h, imgW: iw, imgH: ih },
                   null, OPEN_TIMEOUT_MS);
  } catch (e) {
    if (n !== st.opening) return;
    // 'restarted': an earlier edit's scene was given up while this one waited behind it.
    // This one is not at fault: it is opened again once the last good scene is back (it
    // was shown as 'error: restarted', and the newest text never played).
    const again = e.message === 'restarted';
    if (!again)
      showError('rockpool: ' + st.name + ': error: ' +
                (e.message === 'timeout' ? 'the page gave up preparing this scene after ' +
                 OPEN_TIMEOUT_MS / 1000 + ' s (too much work for the browser: try the command line)'
                                         : e.message));
    try {
      if (st.good) { // the worker was started again: the last good scene back in it
        const [gw, gh] = sizeChoice();
        await call({ type: 'open', text: st.good, name: st.name, width: gw, height: gh, imgW: iw, imgH: ih });
        await sendBackground();
        st.pending = false;
      }
    } catch (e2) {
      return; // the worker was started again meanwhile, for a newer edit
    }
    if (again && n === st.opening) reparse();
    return;
  }
  if (n !== st.opening) return;
  if (!o.ok) {
    showError(diagText(o.error));
    return;
  }
  showError('');
  st.note = o.info.skyImage
    ? 'the scene\'s sky picture is not read by the page: the water reflects no sky picture here'
    : o.info.backgroundFile && !st.bg ? 'the scene\'s background file is not read by the page: ' +
      'drop the picture on the water' : '';
  showStatus();
  const sizeChanged = !st.info || st.info.width !== o.info.width || st.info.height !== o.info.height;
  st.info = o.info;
  st.good = text;
  if (sizeChanged || st.bg) await sendBackground();
  const canvas = $('water');
  if (canvas.width !== o.info.width || canvas.height !== o.info.height) {
    canvas.width = o.info.width;
    canvas.height = o.info.height;
  }
  $('time').max = String(o.info.frames - 1);
  if (st.frame >= o.info.frames) st.frame = 0;
  restartClock();
  st.gen++;
  showCommand();
  requestFrame(st.frame);
}

// The status line: a background refused, then what the page leaves out of the scene.
function showStatus() {
  $('status').textContent = [st.bgRefused, st.note, st.hello].filter((x) => x).join('. ');
}

// The text in the editor is kept in the browser's storage (as it is typed, errors and all),
// so that a reload, or the page opened again, gives it back instead of harbour. Storage
// refused (private browsing, a text over its quota): the page works on without it.
const KEPT = 'rockpool-playground-scene';
function keep(text) {
  try {
    localStorage.setItem(KEPT, JSON.stringify({ name: st.name, text }));
  } catch (e) {
    // not kept
  }
}

function kept() {
  try {
    const v = JSON.parse(localStorage.getItem(KEPT));
    return v && typeof v.name === 'string' && typeof v.text === 'string' ? v : null;
  } catch (e) {
    return null;
  }
}

function showError(s) {
  $('error').textContent = s || 'ok';
  $('error').className = s ? '' : 'ok';
}

function restartClock() {
  st.t0 = performance.now();
  st.f0 = st.frame;
}

function seconds(k) {
  return st.info ? (k * st.info.fpsDen) / st.info.fps : 0;
}

// A time in the scene's syntax that lands in frame k: its start rounded up to the
// millisecond (frames are longer than a millisecond at up to 1000 fps).
function timeText(k) {
  if (!st.info) return '0s';
  const ms = Math.ceil((k * st.info.fpsDen * 1000) / st.info.fps - 1e-9);
  return (ms / 1000).toFixed(3).replace(/\.?0+$/, '') + 's';
}

async function requestFrame(k) {
  if (st.pending || !st.info) return;
  st.pending = true;
  const gen = st.gen;
  try {
    if (st.bg && st.bg.video) await sendBackground();
    const m = await call({ type: 'frame', k });
    // the water is on its way to frame k (a long way: the worker answers in slices); the
    // next tick asks again, for k or the frame the clock has reached by then
    $('busy').textContent = m.again && gen === st.gen
      ? 'simulating the water to frame ' + k + ': ' + (m.progress * 100).toFixed(1) + '%' : '';
    // (paused meanwhile on another frame: that one comes next)
    if (m.rgba && st.info && (st.playing || k === st.frame) && m.rgba.byteLength === st.info.width * st.info.height * 4) {
      const img = new ImageData(new Uint8ClampedArray(m.rgba), st.info.width, st.info.height);
      $('water').getContext('2d').putImageData(img, 0, 0);
      st.shownAt = k;
      st.drawnGen = gen;
      // the frame sought is on screen: playing goes on from it (the clock had waited; a far
      // frame can take seconds, and the clock would have run past the end meanwhile)
      if (st.seeking && k === st.frame) {
        st.seeking = false;
        restartClock();
      }
      $('time').value = String(k);
      $('clock').dataset.fps = st.info.fps + '/' + st.info.fpsDen;
      $('clock').textContent = 'frame ' + k + ' / ' + st.info.frames + ' · ' + seconds(k).toFixed(3) + 's';
    }
  } catch (e) {
    // the worker was restarted; the next tick asks again
  }
  st.pending = false;
  // what tests wait for: paused, and the frame on screen is the current one
  $('water').dataset.settled = !st.playing && st.shownAt === st.frame && st.drawnGen === st.gen ? '1' : '0';
}

function tick(now) {
  if (st.info && st.playing && !st.seeking) {
    // (a frame's rAF time may come before the clock's start: a frame sought reached the
    // screen after this frame began, and restartClock read performance.now() then. Counted
    // from there, the frame before the one sought was asked for and shown next.)
    let k = st.f0 + Math.floor((Math.max(0, now - st.t0) / 1000) * st.info.fps / st.info.fpsDen);
    if (k >= st.info.frames) {
      if ($('loop').checked) {
        st.frame = 0;
        restartClock();
        k = 0;
      } else {
        k = st.info.frames - 1;
        setPlaying(false);
      }
    }
    st.frame = k;
  }
  if (st.info && (st.shownAt !== st.frame || st.drawnGen !== st.gen)) requestFrame(st.frame);
  // paused on the frame already on screen with no render under way (the pause came between
  // two renders): nothing more comes, so it is settled now
  else if (st.info && !st.pending) $('water').dataset.settled = st.playing ? '0' : '1';
  requestAnimationFrame(tick);
}

function setPlaying(p) {
  st.playing = p;
  $('water').dataset.settled = '0';
  if (!p && st.shownAt >= 0) st.frame = st.shownAt; // stop on the frame on screen
  // play at the last frame (stopped there, loop off): from the start again, as a player does
  if (p && st.info && st.frame >= st.info.frames - 1) st.frame = 0;
  $('play').textContent = p ? 'pause' : 'play';
  restartClock();
}

// ---- editing the text from the page ---------------------------------------------------

let reparseTimer = 0;
function textChanged(delay) {
  clearTimeout(reparseTimer);
  reparseTimer = setTimeout(reparse, delay);
  showCommand();
}

// Put text in place of characters [a, b) of the editor's text as an edit of the editor, so
// that its undo (Ctrl+Z) takes it back: setting the text anew emptied the undo history (a
// line added by a click on the water could not be undone, nor the typing before it). The
// focus goes back where it was.
function replaceText(a, b, text) {
  const ta = $('scene'), was = document.activeElement;
  ta.focus({ preventScroll: true });
  ta.setSelectionRange(a, b);
  if (!document.execCommand('insertText', false, text)) ta.setRangeText(text, a, b, 'end');
  if (was && was !== ta && was.focus) was.focus({ preventScroll: true });
}

function appendLine(line) {
  const ta = $('scene'), t = ta.value;
  replaceText(t.length, t.length, (t && !t.endsWith('\n') ? '\n' : '') + line + '\n');
  ta.scrollTop = ta.scrollHeight;
  textChanged(0);
}

// Set `word ...` (a setting line) to value: the last such line replaced, else one added.
function setSetting(word, value) {
  const ta = $('scene'), lines = ta.value.split('\n');
  const re = new RegExp('^[ \\t]*' + word + '([ \\t]|$)');
  const at = (i) => lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0);
  for (let i = lines.length - 1; i >= 0; i--)
    if (re.test(lines[i])) {
      replaceText(at(i), at(i) + lines[i].length, word + ' ' + value);
      textChanged(60);
      return;
    }
  // before the first `at` line, where settings read best
  const first = lines.findIndex((l) => /^[ \t]*at[ \t]/.test(l));
  if (first >= 0) replaceText(at(first), at(first), word + ' ' + value + '\n');
  else replaceText(ta.value.length, ta.value.length, (ta.value && !ta.value.endsWith('\n') ? '\n' : '') + word + ' ' + value);
  textChanged(60);
}

function pct(v) {
  return (Math.min(100, Math.max(0, v * 100))).toFixed(1).replace(/\.0$/, '') + '%';
}

function dropArgs() {
  return st.info && st.info.light ? 'radius 1.5% height 2000' : 'radius 1.5% height 600';
}

function where(e) {
  const r = $('water').getBoundingClientRect();
  return [(e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height];
}

let press = null;
function onDown(e) {
  if (!st.info) return;
  // the frame on screen is the current time (while playing, the next may be on its way)
  press = { at: where(e), t: performance.now(), frame: st.shownAt >= 0 ? st.shownAt : st.frame };
  $('water').setPointerCapture(e.pointerId);
}

function onUp(e) {
  if (!press) return;
  const p = press, q = where(e);
  press = null;
  const moved = Math.hypot((q[0] - p.at[0]) * $('water').width, (q[1] - p.at[1]) * $('water').height);
  if (moved < 4) {
    appendLine('at ' + timeText(p.frame) + ' drop ' + pct(p.at[0]) + ' ' + pct(p.at[1]) + ' ' +
               dropArgs());
    return;
  }
  // a stroke over the drag's duration (at least a few frames)
  const frames = Math.max(3, Math.round(((performance.now() - p.t) / 1000) * st.info.fps / st.info.fpsDen));
  appendLine('at ' + timeText(p.frame) + '..' + timeText(p.frame + frames) + ' stroke ' +
             pct(p.at[0]) + ',' + pct(p.at[1]) + ' -> ' + pct(q[0]) + ',' + pct(q[1]) + ' ' +
             dropArgs());
}

// ---- buttons --------------------------------------------------------------------------

// A file name as one word of a POSIX shell: as it is when it is plain, else in single
// quotes (a ' as '\''), so that the command pasted into a terminal names that very file and
// runs nothing a name holds (`$(...)`, `;`). A name that starts with '-' gets './'.
function shellWord(name) {
  const n = name.startsWith('-') ? './' + name : name;
  return /^[A-Za-z0-9._\/+@%,=:-]+$/.test(n) ? n : "'" + n.replace(/'/g, "'\\''") + "'";
}

function commandLine() {
  let c = 'rockpool ' + shellWord(st.name);
  if (st.bg) c += ' -i ' + shellWord(st.bg.name);
  const full = sceneSize($('scene').value);
  if (full) c += ' -s ' + full[0] + 'x' + full[1];
  return c + ' -o out.mp4';
}

function showCommand() {
  $('command').textContent = '$ ' + commandLine();
}

async function loadExample(name) {
  const r = await fetch('examples/' + name + '.scene');
  if (!r.ok) return;
  const text = await r.text();
  // the name and the text together: an edit's reparse due meanwhile would keep the old
  // text under the new name
  st.name = name + '.scene';
  $('scene').value = text;
  st.frame = 0;
  st.good = '';
  textChanged(0);
}

// The picture or video the user chose or dropped becomes the background; one the browser
// cannot decode, or larger than the command line takes (16384 pixels a side), is refused
// with a message and the background stays as it was.
const MAX_SIDE = 16384;
async function setBackgroundFile(file) {
  if (!file) return;
  $('bgfile').value = ''; // choosing the same file again is a change again
  let bg;
  try {
    if (file.type.startsWith('video/')) {
      const v = document.createElement('video');
      v.muted = true;
      v.loop = true;
      v.playsInline = true;
      const loaded = new Promise((res, rej) => {
        v.addEventListener('loadeddata', res, { once: true });
        v.addEventListener('error', () => rej(new Error('not a video the browser can play')), { once: true });
      });
      v.src = URL.createObjectURL(file);
      v.play().catch(() => {});
      await loaded;
      bg = { name: file.name, video: v };
    } else {
      bg = { name: file.name, bitmap: await bitmapOf(file) };
    }
  } catch (e) {
    return refuseBackground(file.name + ': not a picture or video the browser can decode');
  }
  const [w, h] = bg.bitmap ? [bg.bitmap.width, bg.bitmap.height] : [bg.video.videoWidth, bg.video.videoHeight];
  if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE)
    return refuseBackground(file.name + ' is ' + w + 'x' + h + ': at most ' + MAX_SIDE +
                            ' pixels per side are accepted, as by the command line');
  st.bg = bg;
  $('bgname').textContent = file.name;
  $('bgkind').value = 'file';
  st.bgRefused = '';
  showStatus();
  st.info = null; // resend the background at the new open
  textChanged(0);
}

function refuseBackground(msg) {
  st.bgRefused = 'rockpool: error: ' + msg + '; the background is unchanged';
  showStatus();
  $('bgkind').value = st.bg ? 'file' : 'texture';
}

function wire() {
  for (const n of EXAMPLES) {
    const o = document.createElement('option');
    o.value = o.textContent = n;
    $('example').appendChild(o);
  }
  $('example').onchange = () => {
    st.hello = '';
    loadExample($('example').value);
  };
  $('scene').addEventListener('input', () => {
    st.hello = '';
    textChanged(200);
  });
  $('play').onclick = () => setPlaying(!st.playing);
  $('time').oninput = () => {
    st.frame = +$('time').value;
    st.seeking = true;
    restartClock();
  };
  $('size').onchange = () => textChanged(0);
  $('bgkind').onchange = () => {
    if ($('bgkind').value === 'file') $('bgfile').click();
    else {
      st.bg = null;
      $('bgname').textContent = '(or drop one on the water)';
      st.bgRefused = '';
      showStatus();
      sendBackground().then(() => st.gen++);
      showCommand();
    }
  };
  $('bgfile').onchange = () => setBackgroundFile($('bgfile').files[0]);
  // the file chooser closed without a file: the choice shows the background in use
  $('bgfile').addEventListener('cancel', () => { $('bgkind').value = st.bg ? 'file' : 'texture'; });
  const cv = $('water');
  cv.addEventListener('dragover', (e) => e.preventDefault());
  cv.addEventListener('drop', (e) => {
    e.preventDefault();
    setBackgroundFile(e.dataTransfer.files[0]);
  });
  cv.addEventListener('pointerdown', onDown);
  cv.addEventListener('pointerup', onUp);
  $('copy').onclick = () => {
    const c = commandLine();
    if (navigator.clipboard) navigator.clipboard.writeText(c).catch(() => {});
    $('status').textContent = 'copied: ' + c;
  };
  $('download').onclick = () => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([$('scene').value], { type: 'text/plain' }));
    a.download = st.name;
    a.click();
  };
  // the light's knobs write their scene lines (rockpool-scene(5))
  const knobs = {
    'k-depth': (v) => setSetting('depth', v),
    'k-sun': (v) => setSetting('sun', v),
    'k-caustics': (v) => setSetting('caustics', v),
    'k-sky': (v) => setSetting('sky', '0xc8dcff ' + v),
    'k-glint': (v) => setSetting('specular', v + ' 50'),
  };
  for (const id of Object.keys(knobs)) {
    const el = $(id), out = el.parentElement.querySelector('output');
    out.textContent = el.value;
    el.addEventListener('input', () => {
      out.textContent = el.value;
      knobs[id](el.value);
    });
  }
}

startWorker();
const query = new URLSearchParams(location.search);
if (query.get('out') === 'framemd5' || query.get('bench')) {
  testMode(query);
} else {
  wire();
  const s = query.get('scene'), k = kept();
  if (s) {
    // a scene that cannot be fetched is said so (the server's error page is not a scene)
    st.name = s.split('/').pop();
    fetch(s).then((r) => {
      if (!r.ok) throw new Error('HTTP ' + r.status + (r.statusText ? ' ' + r.statusText : ''));
      return r.text();
    }).then((t) => {
      $('scene').value = t;
      textChanged(0);
    }).catch((e) => showError('rockpool: ' + s + ': error: cannot fetch the scene: ' + e.message));
  } else if (k) {
    st.name = k.name;
    $('scene').value = k.text;
    if (EXAMPLES.includes(k.name.replace(/\.scene$/, ''))) $('example').value = k.name.replace(/\.scene$/, '');
    st.hello = 'your scene as you left it (kept by this browser); choose an example to start again';
    textChanged(0);
  } else {
    loadExample('harbour');
  }
  requestAnimationFrame(tick);
}
