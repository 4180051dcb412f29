#define TW_NOTHING 0
