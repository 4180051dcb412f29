/* Symbol offsets of the W32Gen test provider (lodctr symbol file). */
#define W32GEN_OBJ 0
#define W32GEN_CONSTANT 2
#define W32GEN_TICKS 4
