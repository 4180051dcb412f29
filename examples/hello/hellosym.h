/* Symbol offsets of the hello provider (lodctr's symbol file). Each name
 * index is First Counter + offset, each help index First Help + offset. */
#ifndef HELLOSYM_H
#define HELLOSYM_H

#define HELLO_OBJECT 0
#define HELLO_GREETING 2
#define HELLO_COLLECTS 4

#endif
