/* core.h - what the library's session still reads of a core beyond rpcore.h: the engine
 * under it, for the set-up the session does itself (the timeline's items and counts, the
 * resolved settings, the memory estimate) and its checkpoint files. Not for other users:
 * the frei0r plugin, the core driver and the WebAssembly build use rpcore.h alone. */
#ifndef RP_CORE_CORE_H
#define RP_CORE_CORE_H

#include "rpcore.h"
#include "engine/engine.h"

/** The engine the core renders with: valid until the core goes back in time or loads a
 * checkpoint (rp_core_render of an earlier frame, rp_core_checkpoint_load), which the
 * session never does. */
rp_engine *rp_core_engine(rp_core *core);

#endif
