/* nemos's <inttypes.h>: <stdint.h>; printing has no effect, so the format macros are
 * plain strings. */
#ifndef NEMOS_INTTYPES_H
#define NEMOS_INTTYPES_H
#include <stdint.h>
#define PRId32 "d"
#define PRIu32 "u"
#define PRIx32 "x"
#define PRId64 "ld"
#define PRIu64 "lu"
#define PRIx64 "lx"
#endif
