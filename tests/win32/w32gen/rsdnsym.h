/* Symbol offsets of the RSDN-style test provider (lodctr symbol file). */
#define RSDN_OBJ 0
#define RSDN_ATTACHES 2
#define RSDN_ANSWER 4
#define RSDN_DIGIT 6
#define RSDN_SCM_ERROR 8
#define RSDN_TEXT_LENGTH 10
