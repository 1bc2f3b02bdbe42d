/* setjmp.h - empty for the wasm32 unit tests (tests/wasm/cmocka.h needs no longjmp). */
