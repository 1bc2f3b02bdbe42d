// webdrive.js - drive Debian's chromium, headless, through the DevTools protocol over
// --remote-debugging-pipe (file descriptors 3 and 4, NUL-separated JSON): no npm package.
// For tests/cli/web_page.sh and bench/run.
//
//   node webdrive.js wait ID SECONDS OUTDIR URL...
//       load each URL in turn, wait until document.title is `done` or `error` (at most
//       SECONDS), write the title on the first line of OUTDIR/N.txt (N = 1, 2, ...) and the
//       text of the element #ID after it
//   node webdrive.js screenshot URL PNG SECONDS WxH
//       load URL in a WxH window, let it play SECONDS, save a screenshot as PNG
//   node webdrive.js edit URL
//       the playground's editing: prints `key value` lines (see web_page.sh) after typing a
//       broken line into the scene and clicking on the water
//   node webdrive.js watchdog URL
//       URL with open_timeout=2000: prints `key value` lines after an edit the worker cannot
//       prepare in time (the message shown, the frames played after it, the answer's time)
//   node webdrive.js background URL FILE...
//       choose each FILE as the background (the file chooser's input) in turn; after each,
//       once the page shows its name or a message (at most 10 s), print `bg_N NAME|STATUS`
//       (N = 1, 2, ...: the name shown beside the choice, the page's status line) and
//       `cmd_N COMMAND` (the command line the page shows)
//   node webdrive.js reload URL
//       a line typed at the end of the scene, the page reloaded: prints `kept 1` when the
//       editor holds the typed text again (else `kept 0`), `status` and `error` (the
//       page's lines); then the rain example chosen and the page reloaded again: `example
//       NAME` (the example shown) and `kept_rain 1|0`
//   node webdrive.js look URL
//       URL loaded, 1 s after the page first shows an error line (at most 30 s): prints `error`,
//       `clock` and `text` (the first 40 characters of the editor), the page's lines
//   node webdrive.js names URL
//       prints `unnamed ROLE#ID` for each control of the page (what Tab reaches, and the
//       water) that has no accessible name in chromium's accessibility tree, then `done`
//   node webdrive.js replay URL
//       loop off, a 1 s scene played to its end; then play pressed: prints `ended FRAME
//       BUTTON` and, 0.5 s after the press, `replay FRAME BUTTON` (the frame shown, the
//       play button's text)
//   node webdrive.js seek URL FRAME... [-- FAR TEXT]
//       URL playing a scene: pause, then for each FRAME move the time slider there and print
//       `frame_K MD5` (the MD5 of the RGB24 bytes on the canvas once it shows frame K);
//       with `-- FAR TEXT`, then move the slider to frame FAR and, 1 s later, put TEXT in
//       the editor: prints `busy` (what the page says meanwhile) and `far_ms` (how long
//       the page took to show TEXT's frame 0, or `none`; TEXT must be 30 frames long),
//       `far_frame_0` (its MD5, as frame_K) and `far_error`
//   node webdrive.js queue URL HOLD [heavy]
//       thirty-two edits made while the worker loads its core (with `heavy`, eight, the
//       seventh far over the page's time limit), then the file HOLD removed (the test's server holds
//       rockpool.wasm back while it is there): prints `edits_before_ready`, then, once the
//       last edit plays or the page shows an error, `error` (the page's line), `last_taken`
//       and `worker_starts` (1, or more when a scene was given up)
// Exit status: 0 done, 1 failure (a message on stderr), 2 bad usage.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const CHROMIUM = process.env.CHROMIUM || 'chromium';

function fail(msg) {
  process.stderr.write('webdrive: ' + msg + '\n');
  process.exit(1);
}

function browser(width, height) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rp-chromium-'));
  const child = spawn(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu',
                                 '--remote-debugging-pipe', '--user-data-dir=' + profile,
                                 '--no-first-run', '--disable-extensions',
                                 '--window-size=' + width + ',' + height, 'about:blank'],
                      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const out = child.stdio[3], inp = child.stdio[4];
  let id = 0, buf = '';
  const pending = new Map(), listeners = [];
  inp.on('data', (d) => {
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\0')) >= 0) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (m.id && pending.has(m.id)) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p.reject(new Error(p.method + ': ' + m.error.message));
        else p.resolve(m.result);
      } else if (m.method) {
        for (const l of listeners) l(m);
      }
    }
  });
  child.on('exit', () => {
    for (const p of pending.values()) p.reject(new Error('chromium exited'));
  });
  const send = (method, params, sessionId) =>
    new Promise((resolve, reject) => {
      const m = { id: ++id, method, params: params || {} };
      if (sessionId) m.sessionId = sessionId;
      pending.set(m.id, { resolve, reject, method });
      out.write(JSON.stringify(m) + '\0');
    });
  let exited = false;
  child.on('exit', () => { exited = true; });
  // end chromium, wait for it (at most 5 s), remove its profile
  const close = async () => {
    child.kill('SIGTERM');
    for (let i = 0; i < 50 && !exited; i++) await new Promise((r) => setTimeout(r, 100));
    if (!exited) child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    } catch (e) {
      // a file chromium still writes: left in the temporary directory
    }
  };
  return { send, listeners, close };
}

// A page at url; its session's send, evaluate and wait helpers.
async function page(b, url) {
  const { targetId } = await b.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await b.send('Target.attachToTarget', { targetId, flatten: true });
  const send = (m, p) => b.send(m, p, sessionId);
  const logs = [];
  b.listeners.push((m) => {
    if (m.sessionId === sessionId && m.method === 'Runtime.exceptionThrown')
      logs.push(m.params.exceptionDetails.exception
                ? m.params.exceptionDetails.exception.description : m.params.exceptionDetails.text);
  });
  await send('Runtime.enable');
  await send('Page.enable');
  await send('Page.navigate', { url });
  const evaluate = async (expr) => {
    const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error('evaluate ' + expr + ': ' + r.exceptionDetails.text);
    return r.result.value;
  };
  const waitFor = async (expr, seconds) => {
    const end = Date.now() + seconds * 1000;
    for (;;) {
      let v = null;
      try {
        v = await evaluate(expr);
      } catch (e) {
        // the page is still loading
      }
      if (v) return v;
      if (Date.now() > end) throw new Error('timed out after ' + seconds + ' s waiting for ' + expr +
                                            (logs.length ? ' (page errors: ' + logs.join('; ') + ')' : ''));
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { send, evaluate, waitFor };
}

async function mouse(p, type, x, y) {
  await p.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1 });
}

async function main() {
  const [mode, url, ...rest] = process.argv.slice(2);
  if (!mode || !url) {
    process.stderr.write('usage: webdrive.js wait ID SECONDS OUTDIR URL... | screenshot URL PNG SECONDS WxH | edit URL | watchdog URL | reload URL | look URL | names URL | replay URL | halves URL | seekend URL | background URL FILE... | seek URL FRAME... [-- FAR TEXT] | queue URL HOLD [heavy]\n');
    process.exit(2);
  }
  const size = mode === 'screenshot' ? rest[2].split('x').map(Number) : [1280, 800];
  const b = browser(size[0], size[1]);
  const timer = setTimeout(async () => {
    await b.close();
    fail('gave up after 300 s');
  }, 300000);
  try {
    if (mode === 'wait') {
      const [id, seconds, outdir, ...urls] = [url, ...rest];
      for (let i = 0; i < urls.length; i++) {
        const p = await page(b, urls[i]);
        const title = await p.waitFor("['done','error'].includes(document.title) && document.title", +seconds);
        const text = await p.evaluate('document.getElementById(' + JSON.stringify(id) + ').textContent');
        fs.writeFileSync(path.join(outdir, i + 1 + '.txt'), title + '\n' + text);
        await p.send('Page.close');
      }
      return finish(b, timer);
    }
    const p = await page(b, url);
    if (mode === 'screenshot') {
      await p.send('Emulation.setDeviceMetricsOverride', { width: size[0], height: size[1], deviceScaleFactor: 1, mobile: false });
      await p.waitFor("document.getElementById('clock').textContent.startsWith('frame') && !document.getElementById('clock').textContent.startsWith('frame 0 ')", 120);
      await new Promise((r) => setTimeout(r, +rest[1] * 1000));
      const shot = await p.send('Page.captureScreenshot', { format: 'png' });
      fs.writeFileSync(rest[0], Buffer.from(shot.data, 'base64'));
    } else if (mode === 'edit') {
      await edit(p);
    } else if (mode === 'watchdog') {
      await watchdog(p);
    } else if (mode === 'background') {
      await background(p, rest);
    } else if (mode === 'queue') {
      await queue(p, rest[0], rest[1] === 'heavy');
    } else if (mode === 'reload') {
      await reload(p);
    } else if (mode === 'look') {
      // what the page shows once it says something (at most 30 s), and a moment later
      await p.waitFor("document.getElementById('error').textContent !== ''", 30).catch(() => {});
      await sleep(1000);
      for (const [k, id, prop] of [['error', 'error', 'textContent'], ['clock', 'clock', 'textContent'], ['text', 'scene', 'value']])
        say(k, (await p.evaluate('document.getElementById(' + JSON.stringify(id) + ').' + prop)).slice(0, k === 'text' ? 40 : 400));
    } else if (mode === 'names') {
      await p.waitFor(frameShown + ' >= 0', 60);
      await p.send('Accessibility.enable');
      const { nodes } = await p.send('Accessibility.getFullAXTree');
      for (const n of nodes) {
        const role = n.role && n.role.value;
        const focusable = (n.properties || []).some((x) => x.name === 'focusable' && x.value.value);
        if (n.ignored || !(focusable || role === 'img' || role === 'canvas')) continue;
        if (role === 'RootWebArea' || role === 'WebArea') continue;
        if (!n.name || !String(n.name.value).trim()) {
          let id = '';
          if (n.backendDOMNodeId) {
            const d = await p.send('DOM.describeNode', { backendNodeId: n.backendDOMNodeId });
            const a = d.node.attributes || [];
            const i = a.indexOf('id');
            id = i >= 0 ? a[i + 1] : d.node.nodeName;
          }
          say('unnamed', role + '#' + id);
        }
      }
      say('done', 1);
    } else if (mode === 'replay') {
      await replay(p);
    } else if (mode === 'halves') {
      await halves(p);
    } else if (mode === 'seekend') {
      await seekEnd(p);
    } else if (mode === 'seek') {
      await seek(p, rest);
    } else {
      throw new Error('unknown mode ' + mode);
    }
  } catch (e) {
    clearTimeout(timer);
    await b.close();
    fail(e.message);
  }
  await finish(b, timer);
}

async function finish(b, timer) {
  clearTimeout(timer);
  await b.close();
}

// What the editing and watchdog checks share: a `key value` line out, a pause, and the
// frame number the page shows (-1 before the first).
const say = (k, v) => process.stdout.write(k + ' ' + String(v).replace(/\n/g, '\\n') + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The frame the clock says was drawn, or -1 before one is (the page's own text, 'frame 0 ·
// 0.000s', has no ' / ').
const frameShown = "(() => { const m = /^frame ([0-9]+) \\/ /.exec(document.getElementById('clock').textContent); return m ? +m[1] : -1; })()";

// The editing checks: the page's own state read back after each step, printed as lines.
async function edit(p) {
  await p.waitFor(frameShown + ' >= 0', 60);
  // a small size, so that a loaded machine still plays a few frames a second
  await p.evaluate("(() => { const s = document.getElementById('size'); s.value = '320x180'; s.dispatchEvent(new Event('change')); return true; })()");
  await p.waitFor("document.getElementById('water').width === 320", 30);
  await p.waitFor(frameShown + ' > 5', 60);
  // 1. a broken line typed at the end of the text (as keystrokes)
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.focus(); t.setSelectionRange(t.value.length, t.value.length); return true; })()");
  say('lines_before', await p.evaluate("document.getElementById('scene').value.split('\\n').length"));
  await p.send('Input.insertText', { text: 'at 1s drop 50% 50% radius 0 height 500\n' });
  await p.waitFor("document.getElementById('error').className !== 'ok'", 10);
  say('error', await p.evaluate("document.getElementById('error').textContent"));
  // the water goes on: the frame on screen changes while the error shows
  const f1 = await p.evaluate(frameShown);
  let f2 = f1;
  for (let i = 0; i < 200 && f2 === f1; i++) {
    await sleep(100);
    f2 = await p.evaluate(frameShown);
  }
  const still = await p.evaluate("document.getElementById('error').className !== 'ok'");
  say('frames_while_broken', f1 + ' ' + f2 + ' ' + (still ? 1 : 0));
  // 2. the broken line taken out again: the error clears
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.value = t.value.replace(/at 1s drop 50% 50% radius 0 height 500\\n$/, ''); t.dispatchEvent(new Event('input')); return true; })()");
  await p.waitFor("document.getElementById('error').className === 'ok'", 10);
  say('error_cleared', 1);
  // 2b. a broken line with a character outside the BMP (two UTF-16 units) and a tab before
  // its error's column: the caret under the column (code points, as the command line's)
  const wide = 'background "\u{1F30A}.png"\tbogus\n';
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.focus(); t.setSelectionRange(t.value.length, t.value.length); return true; })()");
  await p.send('Input.insertText', { text: wide });
  await p.waitFor("document.getElementById('error').textContent.includes(\"unexpected 'bogus'\")", 10);
  say('error_wide', await p.evaluate("document.getElementById('error').textContent"));
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.value = t.value.slice(0, -" + wide.length + "); t.dispatchEvent(new Event('input')); return true; })()");
  await p.waitFor("document.getElementById('error').className === 'ok'", 10);
  // 3. pause, wait until the frame on screen stays, then click on the water at 25%, 75%
  await p.evaluate("document.getElementById('play').click(), true");
  await p.waitFor("document.getElementById('water').dataset.settled === '1'", 60);
  const frame = await p.evaluate(frameShown);
  say('paused_frame', frame);
  say('fps', await p.evaluate("document.getElementById('clock').dataset.fps"));
  const box = await p.evaluate("(() => { const r = document.getElementById('water').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()");
  const before = await p.evaluate("document.getElementById('scene').value");
  const x = box[0] + box[2] * 0.25, y = box[1] + box[3] * 0.75;
  await mouse(p, 'mousePressed', x, y);
  await mouse(p, 'mouseReleased', x, y);
  await p.waitFor("document.getElementById('scene').value !== " + JSON.stringify(before), 5);
  const after = await p.evaluate("document.getElementById('scene').value");
  say('added', after.startsWith(before) ? after.slice(before.length).replace(/\n$/, '') : '(text changed elsewhere)');
  await sleep(1000);
  say('error_after_click', await p.evaluate("document.getElementById('error').className"));
  // 3b. Ctrl+Z in the editor takes the clicked line back (the text as before the click)
  await p.evaluate("document.getElementById('scene').focus(), true");
  for (const type of ['rawKeyDown', 'keyUp'])
    await p.send('Input.dispatchKeyEvent', { type, key: 'z', code: 'KeyZ', windowsVirtualKeyCode: 90, modifiers: 2 });
  let undone = false;
  for (let i = 0; i < 50 && !undone; i++) {
    undone = (await p.evaluate("document.getElementById('scene').value")) === before;
    if (!undone) await sleep(100);
  }
  say('undone', undone ? 1 : 0);
  // 4. a drag from 10%, 10% to 40%, 20%: one stroke line
  const text = () => p.evaluate("document.getElementById('scene').value");
  const before2 = await text();
  await mouse(p, 'mousePressed', box[0] + box[2] * 0.1, box[1] + box[3] * 0.1);
  for (let i = 1; i <= 6; i++) {
    await sleep(50);
    await mouse(p, 'mouseMoved', box[0] + box[2] * (0.1 + 0.05 * i), box[1] + box[3] * (0.1 + i / 60));
  }
  await mouse(p, 'mouseReleased', box[0] + box[2] * 0.4, box[1] + box[3] * 0.2);
  await p.waitFor("document.getElementById('scene').value !== " + JSON.stringify(before2), 5);
  const after2 = await text();
  say('dragged', after2.startsWith(before2) ? after2.slice(before2.length).replace(/\n$/, '') : '(text changed elsewhere)');
  // 5. the depth slider at 100: its line, and the scene still parses
  await p.evaluate("(() => { const k = document.getElementById('k-depth'); k.value = '100'; k.dispatchEvent(new Event('input')); return true; })()");
  await sleep(1500);
  say('depth_lines', (await text()).split('\n').filter((l) => /^depth /.test(l)).join('|'));
  say('error_after_knob', await p.evaluate("document.getElementById('error').className"));
}

// The watchdog: the page was opened with open_timeout=300 (0.3 s) on a small scene (harbour
// takes about 20 ms to prepare, in Node on the development machine; a loaded machine once
// took over 0.3 s). Once it plays, its text is replaced
// by 3000 s of rain at 1400 drops a second (4.2 million drops in the timeline, under the
// page's 1 GiB: about 0.9 s of preparing in Node there; a small text, so the editor itself
// has little to do): the page must say it gave up, play the last good water on (the worker
// ended and started again with it), answer at once, and take the good scene back when its
// text is put back.
async function watchdog(p) {
  await p.waitFor(frameShown + ' > 3', 60);
  await p.evaluate("(() => { const t = document.getElementById('scene'); window.rpGood = t.value; t.value = 'duration 3000s\\nat 0s..3000s rain rate 1400/s radius 1% height 500\\n'; t.dispatchEvent(new Event('input')); return true; })()");
  const t0 = Date.now();
  await p.waitFor("document.getElementById('error').className !== 'ok'", 60);
  say('error', await p.evaluate("document.getElementById('error').textContent"));
  say('error_after_ms', Date.now() - t0);
  const t1 = Date.now();
  await p.evaluate('1');
  say('answer_ms', Date.now() - t1);
  const f1 = await p.evaluate(frameShown);
  let f2 = f1;
  for (let i = 0; i < 300 && f2 === f1; i++) {
    await sleep(100);
    f2 = await p.evaluate(frameShown);
  }
  say('frames_after', f1 + ' ' + f2);
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.value = window.rpGood; t.dispatchEvent(new Event('input')); return true; })()");
  await p.waitFor("document.getElementById('error').className === 'ok'", 30);
  say('cleared', 1);
}

// Edits made while the worker loads its core (rockpool.wasm served slowly): each open is
// answered in turn once the core is there, and each has the page's time limit to itself
// (the limits of all of them ran from the core's arrival: the later ones, waiting behind
// the others, were given up as 'too much work'). The outcome waited for: the last edit's
// scene taken (no error, its text the page's good one), or a scene given up.
// Thirty-two edits; with `heavy`, eight, the seventh a scene far over the limit: it is given
// up, the worker started again, and the eighth, waiting behind it, must still play (it was
// shown as 'error: restarted' and never played). The core is held back (the file hold)
// till the edits are made, however slowly a loaded machine makes them.
async function queue(p, hold, heavy) {
  try {
    await queueEdits(p, hold, heavy);
  } finally {
    fs.rmSync(hold, { force: true }); // (the server holds the core while it exists)
  }
}

async function queueEdits(p, hold, heavy) {
  await p.waitFor("document.getElementById('scene').value.length > 0 && !workerReady", 30);
  const texts = [];
  const n = heavy ? 8 : 32;
  for (let i = 1; i <= n; i++) {
    // (with `heavy`, the others are two drops: a loaded machine prepares them within the limit)
    const text = heavy && i === n - 1 ? 'duration 3000s\nat 0s..3000s rain rate 1400/s radius 1% height 500\n'
      : heavy ? 'size 320x180\nduration 10s\nat 0s drop 50% 50% radius 5% height 800\nat 1s drop 30% 40% radius 4% height 700\n# edit ' + i + '\n'
              : 'duration 600s\nat 0s..600s rain rate 800/s radius 1% height 500\n# edit ' + i + '\n';
    texts.push(text);
    await p.evaluate("(() => { const t = document.getElementById('scene'); t.value = " + JSON.stringify(text) + "; t.dispatchEvent(new Event('input')); return true; })()");
    // (the page reads the text 200 ms after the last keystroke: a later edit within that
    // merges with this one, as typing does. With `heavy`, edits 7 and 8 must not merge, so a
    // busy page has 400 ms more to read each.)
    await sleep(heavy ? 600 : 230);
  }
  say('edits_before_ready', await p.evaluate('!workerReady'));
  fs.rmSync(hold, { force: true });
  const last = JSON.stringify(texts[texts.length - 1]);
  await p.waitFor("document.getElementById('error').className !== 'ok' || " +
                  "(document.getElementById('error').className === 'ok' && st.good === " + last + ')', 120);
  say('error', await p.evaluate("document.getElementById('error').textContent"));
  say('last_taken', await p.evaluate('st.good === ' + last));
  say('worker_starts', await p.evaluate('workerStarts'));
}

// The page reloaded, waited for as a new document (a mark left on the old one is gone) that
// shows a frame: half a second's sleep let a loaded machine read the old page's clock, then
// the new page's status before it had one.
async function reloaded(p) {
  await p.evaluate('(() => { window.rpOldPage = 1; return true; })()');
  await p.send('Page.reload');
  await p.waitFor('!window.rpOldPage && ' + frameShown + ' >= 0', 60);
}

// The editor's text is in the browser's storage (the page keeps it a moment after an edit).
const keptNow = "(() => { try { return JSON.parse(localStorage.getItem('rockpool-playground-scene')).text === " +
  "document.getElementById('scene').value; } catch (e) { return false; } })()";

// The scene kept over a reload.
async function reload(p) {
  const text = () => p.evaluate("document.getElementById('scene').value");
  await p.waitFor(frameShown + ' > 3', 60);
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.focus(); t.setSelectionRange(t.value.length, t.value.length); return true; })()");
  await p.send('Input.insertText', { text: 'at 2s drop 30% 30% radius 3% height 700\n' });
  const typed = await text();
  await p.waitFor(keptNow, 30);
  await reloaded(p);
  say('kept', (await text()) === typed ? 1 : 0);
  say('status', await p.evaluate("document.getElementById('status').textContent"));
  say('error', await p.evaluate("document.getElementById('error').textContent"));
  await p.evaluate("(() => { const s = document.getElementById('example'); s.value = 'rain'; s.dispatchEvent(new Event('change')); return true; })()");
  await p.waitFor("/^frame [0-9]+ \\/ /.test(document.getElementById('clock').textContent) && st.name === 'rain.scene'", 30);
  const rain = await text();
  await p.waitFor(keptNow, 30);
  await reloaded(p);
  say('example', await p.evaluate("document.getElementById('example').value"));
  say('kept_rain', (await text()) === rain ? 1 : 0);
}

// Play pressed at the end of a scene that does not loop.
async function replay(p) {
  await p.waitFor(frameShown + ' > 3', 60);
  await p.evaluate("(() => { const s = document.getElementById('size'); s.value = '320x180'; s.dispatchEvent(new Event('change')); " +
                   "document.getElementById('loop').click(); const t = document.getElementById('scene'); " +
                   "t.value = 'size 320x180\\nduration 1s\\nat 0s drop 50% 50% radius 5% height 900\\n'; t.dispatchEvent(new Event('input')); return true; })()");
  // (stopped, and settled: the last frame is on screen. The button says 'play' as the clock
  // passes the end, while a loaded machine may still be drawing the last frame.)
  await p.waitFor("/ 30 /.test(document.getElementById('clock').textContent) && document.getElementById('play').textContent === 'play' && " +
                  "document.getElementById('water').dataset.settled === '1'", 30);
  const shown = "(" + frameShown + ") + ' ' + document.getElementById('play').textContent";
  say('ended', await p.evaluate(shown));
  await p.evaluate("document.getElementById('play').click(), true");
  await sleep(500);
  say('replay', await p.evaluate(shown));
}

// The size menu's half and quarter over a scene with no size line (its preset's 640x480),
// then with one: the canvas's size after each choice.
async function halves(p) {
  await p.waitFor(frameShown + ' > 3', 60); // (harbour loaded and playing)
  const choose = (v) => p.evaluate("(() => { const s = document.getElementById('size'); s.value = " +
                                   JSON.stringify(v) + "; s.dispatchEvent(new Event('change')); return true; })()");
  const text = (t) => p.evaluate("(() => { const e = document.getElementById('scene'); e.value = " +
                                 JSON.stringify(t) + "; e.dispatchEvent(new Event('input')); return true; })()");
  const canvas = "(() => { const c = document.getElementById('water'); return c.width + 'x' + c.height; })()";
  await text('at 0s drop 50% 50% radius 3% height 500\n');
  for (const [v, want] of [['scene', '640x480'], ['half', '320x240'], ['quarter', '160x120']]) {
    await choose(v);
    try { await p.waitFor(canvas + " === " + JSON.stringify(want), 20); } catch (e) { /* said below */ }
    say('nosize_' + v, await p.evaluate(canvas));
  }
  await text('size 1000x562\nat 0s drop 50% 50% radius 3% height 500\n');
  try { await p.waitFor(canvas + " === '250x140'", 20); } catch (e) { /* said below */ }
  say('sized_quarter', await p.evaluate(canvas));
}

// The slider dragged to the last frame while playing with loop on, over a scene whose last
// frame takes a while to simulate: that frame is shown, then playing loops on from 0.
async function seekEnd(p) {
  await p.waitFor(frameShown + ' > 3', 60); // (harbour loaded and playing)
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.value = 'size 320x180\\nduration 120s\\n" +
                   "at 0s..120s rain rate 4/s radius 3% height 800\\n'; t.dispatchEvent(new Event('input')); return true; })()");
  await p.waitFor("/ 3600 /.test(document.getElementById('clock').textContent) && " + frameShown + " > 3", 60);
  // every frame the clock shows from the seek on (a frame may stay on screen for 33 ms).
  // The page's clock is set 20 ms ahead of the animation frames' times, as when a frame
  // reaches the screen after the animation frame began: the clock must not count back.
  await p.evaluate("(() => { const now = performance.now.bind(performance); performance.now = () => now() + 20; window.shown = []; const c = document.getElementById('clock'); new MutationObserver(() => { " +
                   "const m = /^frame ([0-9]+)/.exec(c.textContent); if (m) window.shown.push(+m[1]); }).observe(c, " +
                   "{ childList: true, characterData: true, subtree: true }); " +
                   "if (!document.getElementById('loop').checked) document.getElementById('loop').click(); " +
                   "const t = document.getElementById('time'); t.value = t.max; t.dispatchEvent(new Event('input')); return true; })()");
  try { await p.waitFor("window.shown.includes(3599) && window.shown[window.shown.length - 1] < 100", 60); } catch (e) { /* said below */ }
  // (from the first showing of the frame sought: the frames before it came before the seek)
  const shown = JSON.parse(await p.evaluate('JSON.stringify(window.shown)'));
  const from = shown.indexOf(3599);
  say('shown', shown.slice(from < 0 ? 0 : from, (from < 0 ? 0 : from) + 4).join(','));
}

// Backgrounds chosen through the file input, as a user picks them.
async function background(p, files) {
  await p.waitFor(frameShown + ' > 3', 60);
  const { root } = await p.send('DOM.getDocument');
  const { nodeId } = await p.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#bgfile' });
  const shown = "document.getElementById('bgname').textContent + '|' + document.getElementById('status').textContent";
  for (let i = 0; i < files.length; i++) {
    const name = path.basename(files[i]);
    await p.evaluate("document.getElementById('status').textContent = '', true");
    await p.send('DOM.setFileInputFiles', { nodeId, files: [path.resolve(files[i])] });
    try {
      // taken, or refused by name (the status line may show the previous refusal again
      // meanwhile: the page keeps it till another file is taken or refused)
      await p.waitFor("document.getElementById('bgname').textContent === " + JSON.stringify(name) +
                      " || document.getElementById('status').textContent.includes(" +
                      JSON.stringify('error: ' + name) + ")", 30);
    } catch (e) {
      // neither: printed as it is
    }
    say('bg_' + (i + 1), await p.evaluate(shown));
    say('cmd_' + (i + 1), await p.evaluate("document.getElementById('command').textContent"));
  }
}

// The MD5 of the RGB24 bytes of the canvas (the frame on screen: opaque, so putImageData
// and getImageData keep its bytes).
async function shownMd5(p) {
  const b64 = await p.evaluate("(() => { const c = document.getElementById('water'); " +
    "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let s = ''; " +
    "for (let i = 0; i < d.length; i += 4) s += String.fromCharCode(d[i], d[i + 1], d[i + 2]); return btoa(s); })()");
  return require('crypto').createHash('md5').update(Buffer.from(b64, 'base64')).digest('hex');
}

// Seeking: the frames on screen after the slider moves (paused), as MD5s of their RGB24
// bytes, then an edit while the water is on its way to a frame far ahead.
async function seek(p, args) {
  const cut = args.indexOf('--');
  const frames = cut < 0 ? args : args.slice(0, cut);
  await p.waitFor(frameShown + ' > 3', 60);
  await p.evaluate("document.getElementById('play').click(), true");
  await p.waitFor("document.getElementById('water').dataset.settled === '1'", 60);
  const slide = (k) => p.evaluate("(() => { const t = document.getElementById('time'); t.value = '" + k +
                                  "'; t.dispatchEvent(new Event('input')); return true; })()");
  for (const k of frames) {
    await slide(k);
    await p.waitFor("document.getElementById('water').dataset.settled === '1' && " + frameShown + ' === ' + k, 120);
    say('frame_' + k, await shownMd5(p));
  }
  if (cut < 0) return;
  const [far, text] = args.slice(cut + 1);
  await slide(far);
  await sleep(1000);
  say('busy', await p.evaluate("(document.getElementById('busy') || {}).textContent || ''"));
  const t0 = Date.now();
  await p.evaluate("(() => { const t = document.getElementById('scene'); t.value = " + JSON.stringify(text) +
                   "; t.dispatchEvent(new Event('input')); return true; })()");
  let ms = 'none';
  for (let i = 0; i < 150; i++) {
    if (await p.evaluate("document.getElementById('water').dataset.settled === '1' && /^frame 0 \\/ 30 /.test(document.getElementById('clock').textContent)")) {
      ms = Date.now() - t0;
      break;
    }
    await sleep(100);
  }
  say('far_ms', ms);
  if (ms !== 'none') say('far_frame_0', await shownMd5(p));
  say('far_error', await p.evaluate("document.getElementById('error').textContent"));
}

main();
