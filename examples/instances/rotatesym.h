/* Symbol offsets of the instances example provider (lodctr's symbol file). */
#ifndef ROTATESYM_H
#define ROTATESYM_H

#define ROTATE_OBJECT 0
#define ROTATE_SLOT 2
#define ROTATE_APPEARANCES 4

#endif
