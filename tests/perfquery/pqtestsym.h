/* Symbol offsets of perfquery's deterministic test provider. */
#define PQ_MACHINE 0
#define PQ_GREETING 2
#define PQ_TICKS 4
#define PQ_FLAGS 6
#define PQ_PARENT 8
#define PQ_ITEMS 10
#define PQ_CHILD 12
#define PQ_HITS 14
#define PQ_HIT_RATIO 16
#define PQ_BYTES 18
