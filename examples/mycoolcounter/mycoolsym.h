/* MyCoolCounter's symbol offsets (lodctr). */
#define MYCOOL_COUNTER 0
