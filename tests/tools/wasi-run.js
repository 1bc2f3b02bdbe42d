// wasi-run.js - run a wasm32-wasi command (the core's unit tests built by make web-tests)
// under Node's WASI: node --no-warnings tests/tools/wasi-run.js PROGRAM.wasm [ARGS...].
// The program sees the current directory's files (test_scene reads tests/bad) and no
// environment; its exit status is Node's.
'use strict';
const fs = require('fs');
const { WASI } = require('wasi');

(async () => {
  const wasi = new WASI({ version: 'preview1', args: process.argv.slice(2), env: {},
                         preopens: { '.': process.cwd() } });
  const mod = await WebAssembly.compile(fs.readFileSync(process.argv[2]));
  // (Node 18, Debian 12's, has wasiImport alone; later ones getImportObject)
  const imports = wasi.getImportObject ? wasi.getImportObject()
                                       : { wasi_snapshot_preview1: wasi.wasiImport };
  const inst = await WebAssembly.instantiate(mod, imports);
  process.exitCode = wasi.start(inst);
})().catch((e) => {
  console.error('wasi-run: ' + e.message);
  process.exitCode = 2;
});
