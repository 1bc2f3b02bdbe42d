# webp_opaque.awk - reads webpinfo's output of an animated WebP; prints "opaque" when every
# composited frame is: the first frame covers the canvas with no alpha chunk, no frame is
# disposed to the background, and every frame that has an alpha chunk is blended (Blend: 0,
# alpha-blending) over the frame before it; else the first reason it is not.
function endframe() {
    if (!n) return
    if (n == 1 && (x != 0 || y != 0 || w != cw || h != ch)) fail("the first frame does not cover the canvas")
    if (n == 1 && alpha) fail("the first frame has an alpha chunk")
    if (dispose != 0) fail("frame " n " is disposed to the background")
    if (alpha && blend != 0) fail("frame " n " has alpha and replaces what is under it")
}
function fail(why) { if (!bad) bad = why }
/^  Canvas size/ { cw = $3; ch = $5 }
/^Chunk ANMF/ { endframe(); n++; alpha = 0; got = 0 }
/^Chunk ALPH/ { alpha = 1 }
/^  Offset_X:/ { x = $2 } /^  Offset_Y:/ { y = $2 }
/^  Width:/ { if (!got) w = $2 } /^  Height:/ { if (!got) { h = $2; got = 1 } }
/^  Dispose:/ { dispose = $2 } /^  Blend:/ { blend = $2 }
END { endframe(); if (!n) fail("no frames"); print bad ? bad : "opaque" }
