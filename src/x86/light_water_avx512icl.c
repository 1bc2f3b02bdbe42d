/* light_water_avx512icl.c - look water's kernel with AVX512VBMI: light_water_avx512.c
 * compiled again with RP_LIGHT_WATER_ICL (see there). */
#define RP_LIGHT_WATER_ICL 1
#include "x86/light_water_avx512.c"
