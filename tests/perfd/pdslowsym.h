/* Symbol offsets of perfd's test provider. */
#define PD_SLOW 0
#define PD_COLLECTIONS 2
