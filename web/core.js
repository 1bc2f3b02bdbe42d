// core.js - rockpool's core as WebAssembly (rockpool.wasm, built by make web from the
// sources of librpcore.a and web/rpweb.c), loaded with the few WASI calls wasi-libc asks
// for. Used by web/worker.js (and by Node in tests/cli/web_units.sh, which loads the
// page's rockpool.wasm through it).
'use strict';

// loadCore(bytes): an object over one instance; see web/rpweb.c for what each call does.
async function loadCore(bytes) {
  let mem = null;
  const enc = new TextEncoder(), dec = new TextDecoder();
  const u8 = () => new Uint8Array(mem.buffer);
  const cstr = (p) => {
    const b = u8();
    let e = p;
    while (b[e]) e++;
    return dec.decode(b.subarray(p, e));
  };
  const wasi = {
    // the core reads no clock that decides a pixel; pool.c's timed waits never run here
    clock_time_get: (id, prec, out) => {
      new DataView(mem.buffer).setBigUint64(out, BigInt(Math.round(Date.now() * 1e6)), true);
      return 0;
    },
    fd_close: () => 0,
    fd_seek: () => 70, // ESPIPE
    fd_write: (fd, iovs, n, written) => { // stdout and stderr to the console
      const dv = new DataView(mem.buffer);
      let total = 0, text = '';
      for (let i = 0; i < n; i++) {
        const p = dv.getUint32(iovs + 8 * i, true), len = dv.getUint32(iovs + 8 * i + 4, true);
        text += dec.decode(u8().subarray(p, p + len));
        total += len;
      }
      if (text.trim()) console.log('rockpool.wasm: ' + text.trimEnd());
      dv.setUint32(written, total, true);
      return 0;
    },
  };
  const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
  const x = instance.exports;
  mem = x.memory;
  x._initialize();
  const core = {
    info: null,
    // open(text, name, w, h, imgW, imgH): parse and resolve; {ok, status, error, info}
    open(text, name, w, h, imgW, imgH) {
      const t = enc.encode(text), nm = enc.encode(name + '\0');
      const tp = x.rpw_alloc(t.length + 1), np = x.rpw_alloc(nm.length);
      if (!tp || !np) {
        x.rpw_free(tp);
        x.rpw_free(np);
        return { ok: false, status: 1, error: { line: 0, col: 0, msg: 'out of memory', file: name, source: '' } };
      }
      u8().set(t, tp);
      u8().set(nm, np);
      const r = x.rpw_open(tp, t.length, np, w | 0, h | 0, imgW | 0, imgH | 0);
      x.rpw_free(tp);
      x.rpw_free(np);
      if (r !== 0)
        return {
          ok: false, status: r,
          error: { line: x.rpw_err_line(), col: x.rpw_err_col(), msg: cstr(x.rpw_err_msg()),
                   file: cstr(x.rpw_err_file()), source: cstr(x.rpw_err_source()) },
        };
      const i = (k) => x.rpw_info(k);
      this.info = { width: i(0), height: i(1), frames: i(2), fps: i(3), fpsDen: i(4),
                    light: i(8), skyImage: i(9), backgroundFile: i(10), fit: i(11) };
      return { ok: true, status: 0, info: this.info };
    },
    // setBackground(rgb, drawn): output-sized RGB24 bytes over the water from the next frame
    // on; drawn ([x, y, w, h], optional: the whole frame) is where the picture is, the rest
    // bars that stay black (fit contain)
    setBackground(rgb, drawn) {
      const p = x.rpw_bg();
      if (!p) return;
      u8().set(rgb, p);
      x.rpw_bg_use();
      const d = drawn || [0, 0, this.info.width, this.info.height];
      x.rpw_bg_drawn(d[0], d[1], d[2], d[3]);
    },
    defaultBackground() {
      x.rpw_bg_default();
    },
    // render(k): frame k's RGB24 bytes (a view into the core's memory, valid until the
    // next call), or null
    render(k) {
      const p = x.rpw_render(k);
      if (!p) return null;
      return u8().subarray(p, p + this.info.width * this.info.height * 3);
    },
    // renderSome(k, cells): render(k) with at most `cells` grid cells simulated; null when
    // that ran out first (again() true: ask again, the water goes on from where it is) or
    // the core refused
    renderSome(k, cells) {
      const p = x.rpw_render_some(k, cells);
      if (!p) return null;
      return u8().subarray(p, p + this.info.width * this.info.height * 3);
    },
    again() {
      return x.rpw_again() === 1;
    },
    // progress(k): how far the water is towards frame k, 0 to 1 (-1: no such frame)
    progress(k) {
      const v = x.rpw_progress(k);
      return v < 0 ? -1 : v / 1000;
    },
    // rgba(): the last frame rendered as RGBA (a view, as render's)
    rgba() {
      const p = x.rpw_rgba();
      return u8().subarray(p, p + this.info.width * this.info.height * 4);
    },
  };
  return core;
}

if (typeof module !== 'undefined')
  module.exports = { loadCore };
